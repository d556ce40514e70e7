#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The daemon's BGP mode "routes" with the host's routing daemon: the example configurations
# Documentation/examples/{bird2,frr}-kmaglev.conf, run as they are (only addresses, AS numbers
# and table changed by sed) in a netns "lb", peer over a veth with gobgpd in a netns "rtr".
# The VIPs' routes (blackhole, proto 252, in the configured table) come and go through
# bgp/routes.c (or ip(8)); the router must receive and withdraw them, the LB as next hop,
# and nothing else. BIRD's and FRR's cases are skipped when that daemon is not installed.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip gobgpd gobgp python3
BIRD=$(command -v bird)
ZEBRA=/usr/lib/frr/zebra
BGPD=/usr/lib/frr/bgpd
[[ -x $ZEBRA && -x $BGPD ]] && command -v vtysh >/dev/null && id frr >/dev/null 2>&1 || ZEBRA=
[[ -n $BIRD || -n $ZEBRA ]] || ktap_skip_all "neither bird nor frr installed"

EX=$KMG_TOP/Documentation/examples
TMP=$(mktemp -d)
__pids=()
cleanup() {
	local p
	for p in "${__pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${__pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	__pids=()
	kmg_netns_cleanup
	[[ -n ${KMG_BGP_KEEP:-} ]] && echo "# kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT

# The example's values, and ours.
LB4=10.0.0.1 LB6=fd00::1 RTR4=10.0.0.2 RTR6=fd00::2 LB_AS=65001 RTR_AS=65000
T_LB4=10.77.0.1 T_LB6=fd77::1 T_RTR4=10.77.0.2 T_RTR6=fd77::2 T_LB_AS=64601 T_RTR_AS=64600
VIP4=(192.0.2.10 192.0.2.11) VIP6=(2001:db8:77::10 2001:db8:77::11)
API=127.0.0.1:50051

# kmg_netns_add's names in lb and rtr; a veth between them.
net_up() {
	kmg_netns_add lb && kmg_netns_add rtr || return 1
	ip link add v0 netns "$lb" type veth peer name v1 netns "$rtr" || return 1
	ip -n "$lb" addr add $T_LB4/24 dev v0
	ip -n "$lb" addr add $T_LB6/64 dev v0 nodad
	ip -n "$rtr" addr add $T_RTR4/24 dev v1
	ip -n "$rtr" addr add $T_RTR6/64 dev v1 nodad
	ip -n "$lb" link set v0 up
	ip -n "$rtr" link set v1 up
}

# The example configuration @1 with our addresses, AS numbers and table @2.
templ() {
	sed -e "s/\b$LB4\b/$T_LB4/g; s/\b$RTR4\b/$T_RTR4/g; s/$LB6\b/$T_LB6/g" \
	    -e "s/\b$LB_AS\b/$T_LB_AS/g; s/\b$RTR_AS\b/$T_RTR_AS/g" \
	    -e "s/\(kernel table\|import-table\|redistribute table\) [0-9]\+/\1 $2/" "$1"
}

rtr_up() {
	cat >"$TMP/gobgpd.toml" <<-EOF
	[global.config]
	  as = $T_RTR_AS
	  router-id = "$T_RTR4"
	[[neighbors]]
	  [neighbors.config]
	    neighbor-address = "$T_LB4"
	    peer-as = $T_LB_AS
	  [[neighbors.afi-safis]]
	    [neighbors.afi-safis.config]
	      afi-safi-name = "ipv4-unicast"
	  [[neighbors.afi-safis]]
	    [neighbors.afi-safis.config]
	      afi-safi-name = "ipv6-unicast"
	EOF
	ip netns exec "$rtr" gobgpd -f "$TMP/gobgpd.toml" --api-hosts $API --pprof-disable \
		-p -l info >"$TMP/gobgpd.log" 2>&1 &
	__pids+=($!)
}

bird_up() {
	templ "$EX/bird2-kmaglev.conf" "$1" >"$TMP/bird.conf"
	ip netns exec "$lb" "$BIRD" -f -c "$TMP/bird.conf" -s "$TMP/bird.ctl" -P "$TMP/bird.pid" \
		>"$TMP/bird.log" 2>&1 &
	__pids+=($!)
	wait_for 10 ip netns exec "$lb" birdc -s "$TMP/bird.ctl" show status || {
		cat "$TMP/bird.log"
		return 1
	}
}

# zebra and bgpd as the package's user (root would have to be in its vty group), with their
# sockets, pid files and logs in a directory of theirs.
frr_up() {
	local f=$TMP/frr
	templ "$EX/frr-kmaglev.conf" "$1" >"$TMP/frr.conf"
	mkdir -p "$f"
	chmod 711 "$TMP"
	chown frr:frr "$f"
	ip netns exec "$lb" "$ZEBRA" -u frr -g frr --vty_socket "$f" -z "$f/zserv.api" \
		-i "$f/zebra.pid" --log file:"$f/zebra.log" >"$TMP/zebra.out" 2>&1 &
	__pids+=($!)
	wait_for 10 test -S "$f/zserv.api" || { cat "$TMP/zebra.out"; return 1; }
	ip netns exec "$lb" "$BGPD" -u frr -g frr --vty_socket "$f" -z "$f/zserv.api" \
		-i "$f/bgpd.pid" --log file:"$f/bgpd.log" >"$TMP/bgpd.out" 2>&1 &
	__pids+=($!)
	wait_for 10 test -S "$f/bgpd.vty" || { cat "$TMP/bgpd.out"; return 1; }
	ip netns exec "$lb" vtysh --vty_socket "$f" -f "$TMP/frr.conf"
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@" >/dev/null 2>&1; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.1
	done
}

# "prefix next-hop" for each route in the router's RIB, both families, sorted.
rib() {
	local af
	for af in ipv4 ipv6; do
		ip netns exec "$rtr" gobgp -u ${API%:*} -p ${API#*:} -j global rib -a $af
	done | python3 -c '
import json, sys
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    for pfx, paths in json.loads(line).items():
        for p in paths:
            nh = [a.get("nexthop") for a in p.get("attrs", []) if a.get("nexthop")]
            print(pfx, nh[0] if nh else "-")' | sort
}

established() {
	ip netns exec "$rtr" gobgp -u ${API%:*} -p ${API#*:} neighbor $T_LB4 |
		grep -qi "BGP state = established"
}

# rib_is WANT: the router's RIB is exactly WANT (lines), within 10 s.
rib_is() {
	local want=$1 got
	local end=$((SECONDS + 10))
	while :; do
		got=$(rib 2>/dev/null)
		[[ $got == "$want" ]] && return 0
		[[ $SECONDS -lt $end ]] || break
		sleep 0.1
	done
	echo "want:"; echo "$want" | sed 's/^/  /'
	echo "got:"; echo "$got" | sed 's/^/  /'
	return 1
}

# What the LB's daemon exports and the router has (KMG_BGP_VERBOSE=1).
show() {
	echo "LB's kernel routes, proto 252:"
	ip -n "$lb" route show table all proto 252
	if [[ $1 == bird ]]; then
		ip netns exec "$lb" birdc -s "$TMP/bird.ctl" show route export uplink all
	else
		ip netns exec "$lb" vtysh --vty_socket "$TMP/frr" -c "show bgp ipv4 unicast" \
			-c "show bgp ipv6 unicast" -c "show ip route kernel" -c "show ipv6 route kernel"
	fi
	echo "router:"
	ip netns exec "$rtr" gobgp -u ${API%:*} -p ${API#*:} global rib -a ipv4
	ip netns exec "$rtr" gobgp -u ${API%:*} -p ${API#*:} global rib -a ipv6
}

# The VIPs' routes come from bgp/routes.c through the driver mode of its unit test when
# that is built (KMG_ROUTES_IP=1: never), else from ip(8) the way routes.c makes them.
ROUTES_DRV=$KMG_TOP/build/userland/tests/test_routes
[[ -x $ROUTES_DRV && -z ${KMG_ROUTES_IP:-} ]] || ROUTES_DRV=
vips=()
vip_add() {
	vips+=("$1")
	if [[ -n $ROUTES_DRV ]]; then
		ip netns exec "$lb" "$ROUTES_DRV" sync "$2" 252 "${vips[@]}"
	else
		ip -n "$lb" route add blackhole "$1" proto 252 table "$2"
	fi
}
vip_del() {
	local v keep=()
	for v in "${vips[@]}"; do
		[[ $v == "$1" ]] || keep+=("$v")
	done
	vips=("${keep[@]}")
	if [[ -n $ROUTES_DRV ]]; then
		ip netns exec "$lb" "$ROUTES_DRV" sync "$2" 252 "${vips[@]}"
	else
		ip -n "$lb" route del "$1" proto 252 table "$2"
	fi
}

# One case: the LB daemon @1 (bird, frr) with routes in table @2.
run_case() {
	local d=$1 table=$2 name="$1, table $2" v want
	vips=()
	# A VIP of each family there before the daemon starts, another added later.
	if net_up && vip_add ${VIP4[0]} "$table" && vip_add ${VIP6[0]} "$table"; then
		# Not to be announced: another protocol's, in another table.
		ip -n "$lb" route add blackhole 198.51.100.1/32 proto static table "$table"
		ip -n "$lb" route add blackhole 198.51.100.2/32 proto 252 table 4242
		rtr_up
		"${d}_up" "$table" >"$TMP/$d-up.log" 2>&1
	fi || {
		echo "# no network, or $d did not start, or it refused its configuration:"
		sed 's/^/#   /' "$TMP/$d-up.log" 2>/dev/null
		ktap_test_fail "$name: BGP session up"
		for v in 1 2 3 4; do ktap_test_skip "$name"; done
		cleanup
		TMP=$(mktemp -d)
		return
	}
	ktap_test_result "$name: BGP session up" wait_for 60 established
	want=$(printf '%s\n' "${VIP4[0]}/32 $T_LB4" "${VIP6[0]}/128 $T_LB6" | sort)
	ktap_test_result "$name: the router has the VIPs, the LB as next hop" rib_is "$want"
	vip_add ${VIP4[1]} "$table"
	vip_add ${VIP6[1]} "$table"
	want=$(printf '%s\n' "${VIP4[0]}/32 $T_LB4" "${VIP4[1]}/32 $T_LB4" \
		"${VIP6[0]}/128 $T_LB6" "${VIP6[1]}/128 $T_LB6" | sort)
	ktap_test_result "$name: VIPs added later are announced" rib_is "$want"
	[[ -n ${KMG_BGP_VERBOSE:-} ]] && show "$d" | sed 's/^/# /'
	vip_del ${VIP4[0]} "$table"
	vip_del ${VIP6[1]} "$table"
	want=$(printf '%s\n' "${VIP4[1]}/32 $T_LB4" "${VIP6[0]}/128 $T_LB6" | sort)
	ktap_test_result "$name: a VIP's route removed, the router's withdrawn" rib_is "$want"
	vip_del ${VIP4[1]} "$table"
	vip_del ${VIP6[0]} "$table"
	ktap_test_result "$name: all removed, all withdrawn" rib_is ""
	cleanup
	TMP=$(mktemp -d)
}

ktap_print_header
ktap_print_msg "VIP routes from ${ROUTES_DRV:-ip route}"
# KMG_BGP_CASES="bird 254,bird 100" runs just those.
cases=("bird 254" "bird 100" "frr 254")
[[ -n ${KMG_BGP_CASES:-} ]] && IFS=, read -ra cases <<<"$KMG_BGP_CASES"
ktap_set_plan $((5 * ${#cases[@]}))
for c in "${cases[@]}"; do
	set -- $c
	if [[ $1 == bird && -z $BIRD || $1 == frr && -z $ZEBRA ]]; then
		for i in 1 2 3 4 5; do ktap_test_skip "$1, table $2: not installed"; done
		continue
	fi
	run_case "$1" "$2"
done
ktap_finished
