#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data-plane selftest library: a routed direct-server-return topology in network namespaces,
# servers on the backends, clients, counters and checks. Sourced after lib.sh by dp_*.sh and by
# the demo. Executed directly, it runs its own self-check, with IPVS standing in for kmaglev
# (KTAP, like a test; run_tests.sh runs it with the others):
#
#   selftests/vm/run --kernel stock -- selftests/net/dp_lib.sh
#
#                    client 203.0.113.2, 2001:db8:c::2
#                      |
#   lb1 --- l1 ---  router  --- b1 --- backend b1 10.0.1.2, 2001:db8:b:1::2   VIPs on lo,
#   lb2 --- l2 ---  (rt)    --- b2 --- backend b2 10.0.2.2, 2001:db8:b:2::2   every tunnel
#   198.51.100.2, .10       --- ...                                            decapsulates
#   2001:db8:1:N::2
#
# The router routes the VIPs (192.0.2.10-17 in 192.0.2.0/24, 2001:db8:f::10-17 in
# 2001:db8:f::/48) to an LB, or over every LB (ECMP); the LB sends packets encapsulated to a
# backend through the router; the backend answers the client directly through the router,
# from the VIP. No bridges (the test kernel has none): every link is a routed veth pair.
# rp_filter is off everywhere; forwarding is on only on the router (kmaglev takes VIP packets
# at PRE_ROUTING and needs none).
#
# Backend servers (one python3 helper process, which also starts busybox httpd):
#   tcp 80    busybox httpd: "/" is "backend bN"; "/big" is 1 MiB (its first line
#             "backend bN"); "/cgi-bin/slow?SECS" is "backend bN", then 40 KB/s for SECS
#             seconds, then "end" (a long-lived response)
#   tcp 7000  stream echo: "hello bN\n", then every line echoed
#   tcp 8080  HTTP upload sink: "bN received N bytes"
#   udp 5300  answers each datagram with "bN", from the VIP it was sent to
#
# The main functions:
#   dp_test_start PLAN NLB NBE / dp_test_end   a test's frame: tools, KTAP plan, kmaglev.ko,
#                                              topology (the first test); teardown, unload
#                                              (the last test)
#   dp_topo NLB NBE                            just the topology (the VIPs routed to LB 1)
#   dp_km N ARGS, dp_km_batch N <<<CMDS        kmaglev in LB N (0: every LB)
#   dp_vip_route N|ecmp, dp_lb_mtu_link N MTU  routing changes
#   dp_http, dp_udp, dp_curl_many, dp_py ...   clients: "LPORT BACKEND" lines
#   dp_stream_start/wait/stop/alive            long-lived TCP streams with checked echoes
#   dp_snap ARRAY ..., dp_snap_all, dp_delta   interface and SNMP counters of the namespaces
#   dp_kmj N FILTER ARGS                       a value from kmaglev -j ARGS, by key (jq)
#   dp_gstats N, dp_gcheck, dp_svc_stat N S F  kmaglev's counters
#   dp_check_encap, dp_check_split, dp_check_dsr, dp_check_icmp_fwd    checks (KTAP results)
#   dp_check_hook                              where kmaglev took the packets (DP_HOOK, below)
#
# DP_STANDIN=ipvs (or KMAGLEV_DP_STANDIN=ipvs, which selftests/vm/run passes on) makes dp_km
# configure IPVS instead of kmaglev (tunnel mode, the mh scheduler with port hashing, the VIP on
# the LB's lo), so that the topology and the traffic checks of the dp_*.sh tests run without
# kmaglev; checks of kmaglev's own counters and features (keyed GRE, resched) are then skipped:
#
#   KMAGLEV_DP_STANDIN=ipvs selftests/vm/run --kernel stock -- selftests/net/dp_basic.sh
#
# DP_HOOK=prerouting|ingress (or KMAGLEV_DP_HOOK, which selftests/vm/run passes on and
# run_tests.sh sets for a test named NAME@MODE; default prerouting): where kmaglev takes the
# clients' packets. In mode ingress dp_test_start sets "config set hook ingress" in every LB
# as soon as the topology is up, before any test configures a service: LB 1 with ingress-dev
# "all" (every device but lo: eth0, the tunnels' fallback devices (dp_encap's loop decapsulates
# there), and devices made later, such as dp_lb_mtu_link's eth1), the other LBs with the list
# "eth0,eth1" (the link to the router, and the second link dp_lb_mtu_link may add later). Every
# dp_*.sh then runs its checks on the early path; dp_check_hook checks that it was taken.
#
#   KMAGLEV_DP_HOOK=ingress selftests/vm/run --kernel stock -- selftests/net/dp_basic.sh

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	# shellcheck source=lib.sh
	source "$(dirname "$0")/lib.sh"
	DP_MAIN=1
fi

DP_STANDIN=${DP_STANDIN:-${KMAGLEV_DP_STANDIN:-}}
DP_HOOK=${DP_HOOK:-${KMAGLEV_DP_HOOK:-prerouting}}
DP_PY=/usr/bin/python3
[[ -x $DP_PY ]] || DP_PY=$(command -v python3)
DP_TMP=$(mktemp -d /tmp/kmaglev-dp.XXXXXX)
DP_HELPER=$DP_TMP/dp_helper.py
# Short sleeps without a process: read with a timeout from a FIFO nobody writes.
mkfifo "$DP_TMP/sleep"
exec {DP_SLEEPFD}<>"$DP_TMP/sleep"
dp_sleep() { read -r -t "$1" -u "$DP_SLEEPFD" _ || true; }

DP_HTTP_PORT=80
DP_STREAM_PORT=7000
DP_SINK_PORT=8080
DP_UDP_PORT=5300
DP_NVIP=8			# VIPs 192.0.2.10-17 and 2001:db8:f::10-17 on every backend
DP_CL4=203.0.113.2
DP_CL6=2001:db8:c::2
DP_RT_CL4=203.0.113.1
DP_RT_CL6=2001:db8:c::1
DP_TUNNELS="tunl0 gre0 sit0 ip6tnl0 ip6gre0 kgre kgre6 ip6any"

DP_RT=
DP_CL=
DP_LB=()
DP_BE=()
DP_NLB=0
DP_NHMAP=		# "ADDR=lbN ..." of every LB's addresses (dp_topo; dp_rt_nhs)
DP_NBE=0
DP_KMAGLEV_LOADED=0
declare -A DP_BGPID=()		# background processes by name
declare -A DP_NSPID=()		# the anchor process of each namespace

# --- addresses --------------------------------------------------------------------------------
dp_vip4() { echo "192.0.2.$((10 + ${1:-0}))"; }
dp_vip6() { echo "2001:db8:f::$((10 + ${1:-0}))"; }
dp_be4() { echo "10.0.$1.2"; }
dp_be6() { printf '2001:db8:b:%x::2\n' "$1"; }
dp_rtbe6() { printf '2001:db8:b:%x::1\n' "$1"; }
dp_lb4() { echo "198.51.100.$((8 * $1 - 6))"; }
dp_lb6() { printf '2001:db8:1:%x::2\n' "$1"; }
dp_rtlb4() { echo "198.51.100.$((8 * $1 - 7))"; }
dp_rtlb6() { printf '2001:db8:1:%x::1\n' "$1"; }
dp_gre_key() { echo $((100 + $1)); }
# "ADDR:PORT", an IPv6 address in brackets
dp_hostport() { if [[ $1 == *:* ]]; then echo "[$1]:$2"; else echo "$1:$2"; fi; }
dp_vips_csv() {
	local i out=
	for ((i = 0; i < DP_NVIP; i++)); do out+="$(dp_vip4 $i),$(dp_vip6 $i),"; done
	echo "${out%,}"
}

# --- running things ---------------------------------------------------------------------------
dp_cl() { ip netns exec "$DP_CL" "$@"; }
dp_rt() { ip netns exec "$DP_RT" "$@"; }
dp_lb() { local i=$1; shift; ip netns exec "${DP_LB[$i]}" "$@"; }
dp_be() { local i=$1; shift; ip netns exec "${DP_BE[$i]}" "$@"; }
# The python helper in a namespace.
dp_py() { local ns=$1; shift; ip netns exec "$ns" "$DP_PY" "$DP_HELPER" "$@"; }

dp_standin() { [[ $DP_STANDIN == ipvs ]]; }

# dp_plan N: the KTAP plan; dp_fail_rest REASON [KEEP]: the tests not run yet fail (a broken
# setup), all but the last KEEP (default 0), so that the plan still holds.
DP_PLAN=0
dp_plan() { DP_PLAN=$1; ktap_set_plan "$1"; }
dp_fail_rest() {
	[[ $__ktap_n -lt $((DP_PLAN - ${2:-0})) ]] && ktap_test_fail "$1"
	while [[ $__ktap_n -lt $((DP_PLAN - ${2:-0})) ]]; do ktap_test_fail "not run: $1 failed"; done
}

# dp_need_kmaglev DESC: true with kmaglev; with the stand-in, DESC is reported as skipped.
dp_need_kmaglev() {
	dp_standin || return 0
	ktap_test_skip "$1 (needs kmaglev; stand-in is $DP_STANDIN)"
	return 1
}

# Start a command in the background, remembered by NAME (output in $DP_TMP/NAME.log).
dp_bg() {
	local name=$1; shift
	"$@" >"$DP_TMP/$name.log" 2>&1 &
	DP_BGPID[$name]=$!
}

dp_cleanup() {
	dp_teardown
	if [[ $DP_KMAGLEV_LOADED -eq 1 ]]; then
		kmg_unload_module 2>/dev/null
	fi
	[[ -n $DP_TMP && -d $DP_TMP ]] && rm -rf "$DP_TMP"
}
trap dp_cleanup EXIT

# Wait up to SECS for CMD to succeed (polling every 0.2 s).
dp_wait() {
	local secs=$1 end; shift
	end=$((SECONDS + secs))
	while ! "$@" >/dev/null 2>&1; do
		[[ $SECONDS -ge $end ]] && return 1
		dp_sleep 0.2
	done
}

# --- a test's frame ---------------------------------------------------------------------------

# dp_test_start PLAN NLB NBE: check the tools, print the KTAP header and plan, load kmaglev.ko
# and build the topology: the first test. If that fails every test fails and the script ends.
dp_test_start() {
	local out
	kmg_require_root
	kmg_require_cmd ip curl busybox awk
	[[ -x $DP_PY ]] || ktap_skip_all "python3 not installed"
	if dp_standin; then
		kmg_require_cmd ipvsadm
		modprobe -q ip_vs 2>/dev/null
		[[ -e /proc/net/ip_vs ]] || ktap_skip_all "no IPVS for the stand-in"
	fi
	ktap_print_header
	dp_plan "$1"
	if dp_standin; then
		ktap_print_msg "stand-in: IPVS instead of kmaglev; kmaglev's own checks are skipped"
	else
		ktap_print_msg "kmaglev hook: $DP_HOOK$(dp_hook_desc "$2")"
	fi
	if ! dp_load_kmaglev; then
		dp_fail_rest "load kmaglev.ko"
		ktap_finished
	fi
	if ! dp_topo "$2" "$3"; then
		dp_fail_rest "topology: $2 LB, $3 backends"
		ktap_finished
	fi
	if ! out=$(dp_hook_setup 2>&1); then
		echo "$out" | sed 's/^/# /'
		dp_fail_rest "topology: $2 LB, $3 backends; hook $DP_HOOK"
		ktap_finished
	fi
	ktap_test_pass "topology: client, router, $2 LB, $3 backends; hook $DP_HOOK (${SECONDS}s)"
}

# --- kmaglev's hook (DP_HOOK) -----------------------------------------------------------------

# dp_lb_ingress_dev N: the ingress-dev setting of LB N in mode ingress.
dp_lb_ingress_dev() { if [[ $1 -eq 1 ]]; then echo all; else echo eth0,eth1; fi; }

# dp_hook_desc NLB: the settings of mode ingress, for the KTAP header.
dp_hook_desc() {
	local i out=
	[[ $DP_HOOK == ingress ]] || return 0
	for ((i = 1; i <= $1; i++)); do out+=", LB $i ingress-dev $(dp_lb_ingress_dev "$i")"; done
	echo "$out"
}

# dp_hook_setup: in mode ingress, "config set hook ingress" in every LB (before any service).
dp_hook_setup() {
	local i
	case $DP_HOOK in
	prerouting) return 0 ;;
	ingress) ;;
	*) echo "KMAGLEV_DP_HOOK=$DP_HOOK: must be prerouting or ingress"; return 1 ;;
	esac
	dp_standin && return 0
	for ((i = 1; i <= DP_NLB; i++)); do
		dp_km "$i" config set hook ingress ingress-dev "$(dp_lb_ingress_dev "$i")" || return 1
		dp_km "$i" -j config show |
			kmg_jq_test '.hook == "ingress" and ."ingress-dev" == $d' --arg d "$(dp_lb_ingress_dev "$i")" ||
			{ echo "LB $i: config show: $(dp_km "$i" config show)"; return 1; }
	done
}

# dp_check_hook DESC BEFORE AFTER [N]: one KTAP result: between two dp_gstats outputs of LB N
# (default 1), the packets kmaglev balanced (rx-packets) were taken where DP_HOOK says: in mode
# ingress all of them by the early path (rx-ingress grew as much, but for at most 3 counted
# while the stats were read), in mode prerouting none of them (rx-ingress +0).
dp_check_hook() {
	local desc=$1 rx ri ok=0
	rx=$(dp_gdelta "$2" "$3" rx-packets)
	ri=$(dp_gdelta "$2" "$3" rx-ingress)
	if [[ $rx -le 0 || $ri -lt 0 ]]; then
		ok=0
	elif [[ $DP_HOOK == ingress ]]; then
		[[ $ri -ge $((rx - 3)) && $ri -le $((rx + 3)) ]] && ok=1
	else
		[[ $ri -eq 0 ]] && ok=1
	fi
	if [[ $ok -eq 1 ]]; then
		ktap_test_pass "$desc (hook $DP_HOOK): rx-packets +$rx rx-ingress +$ri"
	else
		ktap_test_fail "$desc (hook $DP_HOOK): rx-packets +$rx rx-ingress +$ri"
	fi
}

# Stop everything started in the background and delete the namespaces.
dp_teardown() {
	local n
	for n in "${!DP_BGPID[@]}"; do kill "${DP_BGPID[$n]}" 2>/dev/null; done
	for n in "${!DP_NSPID[@]}"; do kill "${DP_NSPID[$n]}" 2>/dev/null; done
	DP_BGPID=()
	DP_NSPID=()
	kmg_netns_cleanup
	wait 2>/dev/null
}

# Tear the namespaces down, unload kmaglev.ko (the last test) and finish.
dp_test_end() {
	dp_teardown
	if dp_need_kmaglev "kmaglev.ko unloads after the namespaces are gone"; then
		if dp_unload_kmaglev >"$DP_TMP/rmmod.log" 2>&1; then
			ktap_test_pass "kmaglev.ko unloads after the namespaces are gone (${SECONDS}s)"
		else
			sed 's/^/# /' "$DP_TMP/rmmod.log"
			ktap_test_fail "kmaglev.ko unloads after the namespaces are gone"
		fi
	fi
	ktap_finished
}

# dp_km_batch N: kmaglev commands from stdin, one per line, as one batch (kmaglev -b -) in LB N
# (0: every LB); with the stand-in, line by line.
dp_km_batch() {
	local i=$1 line rc=0 cmds
	cmds=$(cat)
	if dp_standin; then
		while read -r -a line; do
			[[ ${#line[@]} -eq 0 || ${line[0]} == \#* ]] && continue
			dp_km "$i" "${line[@]}" || rc=1
		done <<<"$cmds"
		return $rc
	fi
	if [[ $i -eq 0 ]]; then
		for ((i = 1; i <= DP_NLB; i++)); do dp_km_batch "$i" <<<"$cmds" || rc=1; done
		return $rc
	fi
	ip netns exec "${DP_LB[i]}" timeout 60 "$KMAGLEV" -b - <<<"$cmds"
}

# --- the topology -----------------------------------------------------------------------------

# Tunnel and IPVS modules (built in on the test kernel). kmaglev itself: dp_load_kmaglev.
dp_modules() {
	modprobe -q -a ipip sit ip_gre ip6_gre ip6_tunnel veth 2>/dev/null
	if dp_standin; then
		modprobe -q -a ip_vs ip_vs_mh 2>/dev/null
	fi
	return 0
}

dp_load_kmaglev() {
	dp_standin && return 0
	kmg_load_module || return 1
	DP_KMAGLEV_LOADED=1
}

dp_unload_kmaglev() {
	dp_standin && return 0
	kmg_unload_module || return 1
	DP_KMAGLEV_LOADED=0
}

# dp_netns_new VAR PREFIX: a namespace named PREFIX-XXXXXX (in VAR), with IPv6 DAD and RAs off
# and rp_filter off ("all" and "default": devices made later inherit it; the backends' helper
# turns it off on the fallback tunnels too). A process stays in it as an anchor: the host reads
# the namespace's counters from /proc/ANCHOR/net without entering it. (Processes are slow to
# start in a VM without KVM, so namespaces are set up with few of them.)
dp_netns_new() {
	local __v=$1 __ns __end
	local "$2"
	kmg_netns_add "$2" || return 1
	__ns=${!2}
	ip netns exec "$__ns" sh -c 'for k in all default; do
		echo 0 >/proc/sys/net/ipv6/conf/$k/accept_dad
		echo 0 >/proc/sys/net/ipv6/conf/$k/accept_ra
		echo 0 >/proc/sys/net/ipv4/conf/$k/rp_filter
	done && : >"$1" && exec sleep 2147483647' anchor "$DP_TMP/ns.$__ns" &
	DP_NSPID[$__ns]=$!
	__end=$((SECONDS + 20))
	while [[ ! -f $DP_TMP/ns.$__ns ]]; do
		kill -0 "${DP_NSPID[$__ns]}" 2>/dev/null && [[ $SECONDS -lt $__end ]] || return 1
		dp_sleep 0.05
	done
	printf -v "$__v" '%s' "$__ns"
}

# dp_sysctl NS KEY=VALUE...: set sysctls (dotted keys) in a namespace.
dp_sysctl() {
	local ns=$1 kv script=; shift
	for kv in "$@"; do
		script+="echo '${kv#*=}' >/proc/sys/$(tr . / <<<"${kv%%=*}") && "
	done
	ip netns exec "$ns" sh -c "${script}true"
}

# dp_topo NLB NBE: router, client, NLB load balancers and NBE backends with their servers.
# The VIPs are routed to LB 1.
dp_topo() {
	local nlb=$1 nbe=$2 i ns cmds
	DP_NLB=$nlb
	DP_NHMAP=
	for ((i = 1; i <= nlb; i++)); do DP_NHMAP+="$(dp_lb4 $i)=lb$i $(dp_lb6 $i)=lb$i "; done
	DP_NBE=$nbe
	dp_modules
	dp_write_helper
	dp_netns_new DP_RT rt || return 1
	dp_netns_new DP_CL client || return 1
	for ((i = 1; i <= nlb; i++)); do dp_netns_new ns "lb$i" || return 1; DP_LB[i]=$ns; done
	for ((i = 1; i <= nbe; i++)); do dp_netns_new ns "b$i" || return 1; DP_BE[i]=$ns; done

	# the router: one veth pair per neighbour
	cmds="link add c0 type veth peer name eth0 netns $DP_CL
addr add $DP_RT_CL4/24 dev c0
addr add $DP_RT_CL6/64 dev c0 nodad
link set c0 up
"
	for ((i = 1; i <= nlb; i++)); do
		cmds+="link add l$i type veth peer name eth0 netns ${DP_LB[i]}
addr add $(dp_rtlb4 $i)/29 dev l$i
addr add $(dp_rtlb6 $i)/64 dev l$i nodad
link set l$i up
"
	done
	for ((i = 1; i <= nbe; i++)); do
		cmds+="link add b$i type veth peer name eth0 netns ${DP_BE[i]}
addr add 10.0.$i.1/24 dev b$i
addr add $(dp_rtbe6 $i)/64 dev b$i nodad
link set b$i up
"
	done
	cmds+="route add 192.0.2.0/24 via $(dp_lb4 1) dev l1
route add 2001:db8:f::/48 via $(dp_lb6 1) dev l1
"
	ip -n "$DP_RT" -b - <<<"$cmds" || return 1
	dp_sysctl "$DP_RT" net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.fib_multipath_hash_policy=1 net.ipv6.fib_multipath_hash_policy=1 || return 1

	# The client reuses 5-tuples on purpose (the same flow through two LBs, or before and after
	# a change): it keeps no TIME_WAIT sockets, which would hold their ports.
	dp_sysctl "$DP_CL" net.ipv4.tcp_max_tw_buckets=0 || return 1
	ip -n "$DP_CL" -b - <<-EOF || return 1
		addr add $DP_CL4/24 dev eth0
		addr add $DP_CL6/64 dev eth0 nodad
		link set eth0 up
		route add default via $DP_RT_CL4
		route add ::/0 via $DP_RT_CL6
	EOF
	for ((i = 1; i <= nlb; i++)); do
		ip -n "${DP_LB[i]}" -b - <<-EOF || return 1
			addr add $(dp_lb4 $i)/29 dev eth0
			addr add $(dp_lb6 $i)/64 dev eth0 nodad
			link set eth0 up
			route add default via $(dp_rtlb4 $i)
			route add ::/0 via $(dp_rtlb6 $i)
		EOF
		if dp_standin; then
			# IPVS takes over a TCP flow at any packet, as kmaglev does
			dp_sysctl "${DP_LB[i]}" net.ipv4.vs.sloppy_tcp=1 || return 1
		fi
	done
	for ((i = 1; i <= nbe; i++)); do
		dp_backend_setup "$i" || return 1
	done
	for ((i = 1; i <= nbe; i++)); do
		dp_backend_servers "$i" || return 1
	done
	for ((i = 1; i <= nbe; i++)); do
		dp_backend_wait "$i" || return 1
	done
}

# A backend: addresses, tunnels that decapsulate everything kmaglev may send, VIPs on lo.
#   tunl0 (fallback)  IPIP, IPv4 outer          sit0 (fallback)   6in4
#   gre0 (fallback)   GRE, IPv4 outer            kgre              keyed GRE, IPv4 outer
#   ip6any            4in6 and 6in6              ip6gre0 (fallback) GRE, IPv6 outer
#   kgre6             keyed GRE, IPv6 outer      (keys: dp_gre_key N = 100 + N)
# The fallback ip6tnl0 takes only 6in6: "mode any" needs a device of its own.
dp_backend_setup() {
	local i=$1 v cmds key
	key=$(dp_gre_key "$i")
	cmds="addr add $(dp_be4 $i)/24 dev eth0
addr add $(dp_be6 $i)/64 dev eth0 nodad
link set eth0 up
route add default via 10.0.$i.1
route add ::/0 via $(dp_rtbe6 $i)
link set tunl0 up
link set gre0 up
link set sit0 up
link set ip6tnl0 up
link set ip6gre0 up
link add kgre type gre key $key local $(dp_be4 $i)
link set kgre up
link add kgre6 type ip6gre key $key local $(dp_be6 $i)
link set kgre6 up
link add ip6any type ip6tnl mode any local $(dp_be6 $i)
link set ip6any up
"
	for ((v = 0; v < DP_NVIP; v++)); do
		cmds+="addr add $(dp_vip4 $v)/32 dev lo
addr add $(dp_vip6 $v)/128 dev lo
"
	done
	ip -n "${DP_BE[i]}" -b - <<<"$cmds"
}

# The helper serves the stream, sink and UDP ports, starts busybox httpd on a directory it
# fills ("/": "backend bN", "/big": 1 MiB) and reports ready when httpd answers.
dp_backend_servers() {
	local i=$1
	dp_bg "serve.b$i" dp_py "${DP_BE[i]}" serve --name "b$i" --vips "$(dp_vips_csv)" \
		--stream-port "$DP_STREAM_PORT" --sink-port "$DP_SINK_PORT" \
		--udp-port "$DP_UDP_PORT" --http-port "$DP_HTTP_PORT" --www "$DP_TMP/www/b$i" \
		--ready "$DP_TMP/ready.b$i"
}

dp_backend_wait() {
	local i=$1
	if ! dp_wait 60 test -f "$DP_TMP/ready.b$i"; then
		echo "# backend b$i: servers not ready:"
		sed 's/^/#   /' "$DP_TMP/serve.b$i.log"
		return 1
	fi
}

# dp_vip_route N | ecmp: route the VIPs (both families) to LB N, or over every LB (ECMP with
# the L4 hash).
dp_vip_route() {
	local to=$1 i r4= r6=
	if [[ $to == ecmp ]]; then
		for ((i = 1; i <= DP_NLB; i++)); do
			r4+=" nexthop via $(dp_lb4 $i) dev l$i"
			r6+=" nexthop via $(dp_lb6 $i) dev l$i"
		done
	else
		r4=" via $(dp_lb4 "$to") dev l$to"
		r6=" via $(dp_lb6 "$to") dev l$to"
	fi
	ip -n "$DP_RT" -b - <<-EOF
		route replace 192.0.2.0/24$r4
		route replace 2001:db8:f::/48$r6
	EOF
}

# dp_lb_mtu_link N MTU: a second link between LB N and the router, with a small MTU, taken by
# the LB's routes to the backends (10.0.0.0/16, 2001:db8:b::/48): a small-MTU link on the
# LB -> backend path, while the client -> LB path keeps 1500.
dp_lb_mtu_link() {
	local i=$1 mtu=$2 a4 r4 a6 r6
	a4="198.51.100.$((128 + 8 * i - 6))"
	r4="198.51.100.$((128 + 8 * i - 7))"
	a6=$(printf '2001:db8:2:%x::2' "$i")
	r6=$(printf '2001:db8:2:%x::1' "$i")
	ip -n "$DP_RT" -b - <<-EOF || return 1
		link add m$i mtu $mtu type veth peer name eth1 netns ${DP_LB[i]} mtu $mtu
		addr add $r4/29 dev m$i
		addr add $r6/64 dev m$i nodad
		link set m$i up
	EOF
	ip -n "${DP_LB[i]}" -b - <<-EOF || return 1
		addr add $a4/29 dev eth1
		addr add $a6/64 dev eth1 nodad
		link set eth1 up
		route add 10.0.0.0/16 via $r4 dev eth1
		route add 2001:db8:b::/48 via $r6 dev eth1
	EOF
}

# --- kmaglev, or the IPVS stand-in ------------------------------------------------------------

# dp_km N ARGS...: the kmaglev CLI in LB N (0: in every LB).
dp_km() {
	local i=$1 rc=0; shift
	if [[ $i -eq 0 ]]; then
		for ((i = 1; i <= DP_NLB; i++)); do dp_km "$i" "$@" || rc=1; done
		return $rc
	fi
	if dp_standin; then
		dp_ipvs_km "$i" "$@"
		return
	fi
	ip netns exec "${DP_LB[i]}" timeout 20 "$KMAGLEV" "$@"
}

# dp_be_field LB SVC BACKEND FIELD: a field of a backend in LB's `kmaglev -j backend show SVC`
# (services, each with its backends); nothing if it is not there.
dp_be_field() {
	dp_km "$1" -j backend show "$2" |
		kmg_jq '.[].backends[] | select(.backend == $b) | .[$f]' --arg b "$3" --arg f "$4"
}
# dp_wait_be LB LOG SECS SVC BACKEND FIELD VALUE: until LB's kernel shows it; prints how long it
# took, or what it shows instead (and the tail of the daemon's LOG).
dp_wait_be() {
	local lb=$1 log=$2 secs=$3 svc=$4 b=$5 f=$6 v=$7 t0=$SECONDS
	if dp_wait "$secs" eval '[[ $(dp_be_field '"$lb $svc $b $f"') == '"$v"' ]]'; then
		echo "$((SECONDS - t0))"
		return 0
	fi
	echo "# $svc $b: $f is $(dp_be_field "$lb" "$svc" "$b" "$f"), not $v after ${secs}s"
	dp_km "$lb" backend show "$svc" | sed 's/^/#   /'
	tail -n 5 "$log" | sed 's/^/#   log: /'
	return 1
}

# dp_now_us VAR: the time in microseconds into VAR (no process started)
dp_now_us() {
	local __t=$EPOCHREALTIME
	printf -v "$1" "%d" $((${__t%[.,]*} * 1000000 + 10#${__t#*[.,]}))
}

# dp_rt_nhs 4|6 DEST: the router's next hops for DEST, sorted: "lb1 lb2", "lb2", "": each LB
# by its address (of either family), or by its link (lN) for a link-local next hop; anything
# else as it is. One ip and one awk (the LBs' addresses are made once, by dp_topo, into
# DP_NHMAP: polls run against bounds in a TCG guest, where a fork is slow).
dp_rt_nhs() {
	ip -n "$DP_RT" -"$1" route show "$2" | awk -v map="$DP_NHMAP" '
	BEGIN {
		n = split(map, m, " ")
		for (i = 1; i <= n; i++) { split(m[i], kv, "="); name[kv[1]] = kv[2] }
	}
	{
		v = ""; d = ""
		for (i = 1; i < NF; i++) {
			if ($i == "via") v = $(i + 1)
			if ($i == "dev") d = $(i + 1)
		}
		if (v == "") next
		if (v in name) x = name[v]
		else if (v ~ /^fe80:/ && d ~ /^l[0-9]+$/) x = "lb" substr(d, 2)
		else x = v
		out[++k] = x
	}
	END {
		for (i = 2; i <= k; i++) {
			t = out[i]
			for (j = i - 1; j >= 1 && out[j] > t; j--) out[j + 1] = out[j]
			out[j + 1] = t
		}
		for (i = 1; i <= k; i++) printf "%s%s", (i > 1 ? " " : ""), out[i]
		print ""
	}'
}

# dp_since VIP TS: seconds (one decimal) from TS (date +%s.%N) to the first service-change
# event of VIP after TS in the daemon tests' monitor log, $DP_TMP/mon.log (`kmaglev -j -t
# monitor`, times like "2026-12-07T03:56:55.181181Z"); nothing if none came. One jq for all
# the lines: a process per event is seconds in a TCG guest.
dp_since() {
	jq -nrR --arg v "$1" --argjson ts "$2" '
		[inputs | fromjson? | select(.event == "service-change" and .service.address == $v) |
		 .time | capture("^(?<s>[^.]*)(?<f>\\.[0-9]+)?Z$") |
		 (.s + "Z" | fromdateiso8601) + ((.f // ".0") | ("0" + .) | tonumber) - $ts |
		 select(. > 0)] | first // empty | . * 10 | round / 10' "$DP_TMP/mon.log"
}
# dp_detected DESC TS SVC BACKEND STATE: one KTAP result: LB's kernel shows STATE for BACKEND
# of SVC (VIP[:PORT]/PROTO) within WAIT s, and the service-change event came within BOUND s
# of TS. LB, DLOG, WAIT and BOUND are the caller's (the daemon tests').
dp_detected() {
	local desc=$1 ts=$2 svc=$3 out t
	if ! out=$(dp_wait_be "$LB" "$DLOG" "$WAIT" "$svc" "$4" state "$5"); then
		echo "$out"
		ktap_test_fail "$desc"
		return
	fi
	t=$(dp_since "${svc%%[:/]*}" "$ts")
	if [[ -n $t ]] && awk -v t="$t" -v b="$BOUND" 'BEGIN { exit !(t <= b) }'; then
		ktap_test_pass "$desc in ${t}s (bound ${BOUND}s)"
	else
		echo "# the event came after ${t:-never}s"
		grep "service-change" "$DP_TMP/mon.log" | tail -n 3 | sed 's/^/#   /'
		ktap_test_fail "$desc within ${BOUND}s"
	fi
}

# dp_kmj N FILTER ARGS...: what jq FILTER picks from "kmaglev -j ARGS" in LB N (kmg_jq: fails,
# printing nothing, when the command fails or the key is not there). Not with the stand-in.
dp_kmj() {
	local i=$1 f=$2
	shift 2
	dp_standin && return 1
	dp_km "$i" -j "$@" | kmg_jq "$f"
}

# Netns-wide counters of LB N as "NAME VALUE" lines: the "global" object of "kmaglev -j stats"
# (jq, not python: python is slow to start in the VMs). Fails if there is none.
dp_gstats() {
	dp_kmj "$1" '.global | to_entries[] | "\(.key) \(.value)"' stats
}

# dp_gdelta BEFORE AFTER NAME: how much counter NAME grew between two dp_gstats outputs;
# -1 (and failure) when either does not have it (the kernel reports every counter: a read
# that failed, or a name that is not a counter).
dp_gdelta() {
	local b a
	b=$(awk -v k="$3" '$1 == k { print $2 }' <<<"$1")
	a=$(awk -v k="$3" '$1 == k { print $2 }' <<<"$2")
	if [[ -z $a || -z $b ]]; then
		echo -1
		return 1
	fi
	echo $((a - b))
}

# dp_grew BEFORE AFTER "NAME[+NAME...]>=MIN" ...: each counter (or sum of counters) grew by at
# least MIN between two dp_gstats outputs (a counter AFTER does not have fails); the deltas
# in DP_GREW (" NAME +DELTA ...").
DP_GREW=
dp_grew() {
	local before=$1 after=$2 c names min n d sum ok=0
	shift 2
	DP_GREW=
	for c in "$@"; do
		names=${c%%>=*}
		min=${c#*>=}
		sum=0
		for n in ${names//+/ }; do
			d=$(dp_gdelta "$before" "$after" "$n") || ok=1
			sum=$((sum + d))
		done
		DP_GREW+=" $names +$sum"
		[[ $sum -ge $min ]] || { ok=1; DP_GREW+=" (want >= $min)"; }
	done
	return $ok
}

# dp_gcheck DESC BEFORE AFTER "NAME[+NAME...]>=MIN" ...: one KTAP result: each counter (or sum
# of counters) grew by at least MIN (dp_grew). The deltas are in the result line.
dp_gcheck() {
	local desc=$1 ok=1 msg
	shift
	dp_grew "$@" || ok=0
	msg=$DP_GREW
	if [[ $ok -eq 1 ]]; then
		ktap_test_pass "$desc:$msg"
	else
		ktap_test_fail "$desc:$msg"
	fi
}

# dp_svc_stat N SERVICE FILTER: what jq FILTER picks from SERVICE's entry in "kmaglev -j stats
# SERVICE" in LB N: '.stats.packets', '.stats."new-flows"', '.stats.conns', a backend's
# '.backends[] | select(.backend == "10.0.1.2") | .stats.conns'. Fails, printing nothing, if
# it is not there (and with the stand-in).
dp_svc_stat() { dp_kmj "$1" ".services[] | $3" stats "$2"; }

# IPVS in place of kmaglev: the subset of the CLI the tests use (service add/del/flush, backend
# add/set/drain/del, config set as a no-op). SERVICE -> IPVS_SVC, IPVS_VIP, IPVS_PORT.
dp_svc_split() {
	local s=$1
	SVC_PROTO=tcp
	if [[ $s == */* ]]; then SVC_PROTO=${s##*/}; s=${s%/*}; fi
	if [[ $s == \[* ]]; then
		SVC_ADDR=${s#\[}; SVC_ADDR=${SVC_ADDR%%\]*}; SVC_PORT=${s#*\]}; SVC_PORT=${SVC_PORT#:}
	else
		SVC_ADDR=${s%%:*}; SVC_PORT=; [[ $s == *:* ]] && SVC_PORT=${s#*:}
	fi
	SVC_PORT=${SVC_PORT:-0}
}

dp_ipvs_svc() {
	local SVC_ADDR SVC_PORT SVC_PROTO
	dp_svc_split "$1"
	case $SVC_PROTO in
	tcp) IPVS_SVC=(-t "$(dp_hostport "$SVC_ADDR" "$SVC_PORT")") ;;
	udp) IPVS_SVC=(-u "$(dp_hostport "$SVC_ADDR" "$SVC_PORT")") ;;
	*) echo "stand-in: protocol $SVC_PROTO unsupported" >&2; return 1 ;;
	esac
	IPVS_VIP=$SVC_ADDR
	IPVS_PORT=$SVC_PORT
}

# Backend ADDR and its options (consumed from IPVS_ARGS up to the next "backend") -> IPVS_BE.
# drain and down are weight 0 (no new flows; flows stay): mh keeps a zero-weight backend's
# slots (its last weight), so services have mh-fallback, which skips it.
dp_ipvs_be() {
	local addr=$1 w=1 tun=ipip state=up
	while [[ ${#IPVS_ARGS[@]} -gt 0 && ${IPVS_ARGS[0]} != backend ]]; do
		case ${IPVS_ARGS[0]} in
		weight) w=${IPVS_ARGS[1]} ;;
		encap) tun=${IPVS_ARGS[1]} ;;
		state) state=${IPVS_ARGS[1]} ;;
		max-conns) ;;
		gre-key) echo "stand-in: IPVS has no keyed GRE" >&2; return 1 ;;
		*) echo "stand-in: backend option ${IPVS_ARGS[0]} unsupported" >&2; return 1 ;;
		esac
		IPVS_ARGS=("${IPVS_ARGS[@]:2}")
	done
	[[ $state == up ]] || w=0
	IPVS_BE=(-r "$(dp_hostport "$addr" "$IPVS_PORT")" -i -w "$w" --tun-type "$tun")
}

DP_IPVS_ANY="$DP_HTTP_PORT/tcp $DP_STREAM_PORT/tcp $DP_SINK_PORT/tcp $DP_UDP_PORT/udp"
dp_ipvs_km() {
	local ns=${DP_LB[$1]} cmd="$2 $3" a pre= rules= IPVS_SVC IPVS_VIP IPVS_PORT IPVS_BE IPVS_ARGS
	# a service on every port (port 0, or protocol any): the ports the tests use, one by one
	if [[ $cmd != "service flush" && $cmd != "config set" ]]; then
		local SVC_ADDR SVC_PORT SVC_PROTO p rc=0 n=0
		dp_svc_split "$4"
		if [[ $SVC_PORT == 0 || $SVC_PROTO == any ]]; then
			for p in $DP_IPVS_ANY; do
				[[ $SVC_PORT == 0 || $SVC_PORT == "${p%/*}" ]] || continue
				[[ $SVC_PROTO == any || $SVC_PROTO == "${p#*/}" ]] || continue
				dp_ipvs_km "$1" "$2" "$3" "$(dp_hostport "$SVC_ADDR" "${p%/*}")/${p#*/}" \
					"${@:5}" || rc=1
				n=$((n + 1))
			done
			[[ $n -gt 0 ]] || { echo "stand-in: no test port matches $4" >&2; rc=1; }
			return $rc
		fi
	fi
	shift 3
	case $cmd in
	"service add")
		dp_ipvs_svc "$1" || return 1
		IPVS_ARGS=("${@:2}")
		# service options have no IPVS equivalent here: skip to the first backend
		while [[ ${#IPVS_ARGS[@]} -gt 0 && ${IPVS_ARGS[0]} != backend ]]; do
			IPVS_ARGS=("${IPVS_ARGS[@]:2}")
		done
		pre="ip addr add $IPVS_VIP/$([[ $IPVS_VIP == *:* ]] && echo 128 || echo 32) dev lo 2>/dev/null;"
		rules="-A ${IPVS_SVC[*]} -s mh -b mh-fallback,mh-port"$'\n'
		while [[ ${#IPVS_ARGS[@]} -gt 0 ]]; do
			a=${IPVS_ARGS[1]}
			IPVS_ARGS=("${IPVS_ARGS[@]:2}")
			dp_ipvs_be "$a" || return 1
			rules+="-a ${IPVS_SVC[*]} ${IPVS_BE[*]}"$'\n'
		done
		;;
	"service del")
		dp_ipvs_svc "$1" || return 1
		rules="-D ${IPVS_SVC[*]}"
		;;
	"service flush")
		rules="-C"
		;;
	"backend add" | "backend set" | "backend drain")
		dp_ipvs_svc "$1" || return 1
		IPVS_ARGS=("${@:3}")
		[[ $cmd == "backend drain" ]] && IPVS_ARGS=(state drain)
		dp_ipvs_be "$2" || return 1
		if [[ $cmd == "backend add" ]]; then a=-a; else a=-e; fi
		rules="$a ${IPVS_SVC[*]} ${IPVS_BE[*]}"
		;;
	"backend del")
		# kmaglev keeps a deleted backend's flows; IPVS would drop their packets, so the
		# stand-in quiesces the backend instead (weight 0: no new flows, flows stay)
		dp_ipvs_svc "$1" || return 1
		IPVS_ARGS=(state down)
		dp_ipvs_be "$2" || return 1
		rules="-e ${IPVS_SVC[*]} ${IPVS_BE[*]}"
		;;
	"config set")
		return 0	# connection-table settings: IPVS has its own
		;;
	*)
		echo "stand-in: \"kmaglev $cmd\" has no IPVS equivalent" >&2
		return 1
		;;
	esac
	ip netns exec "$ns" sh -c "$pre ipvsadm -R" <<<"$rules"
}

# --- clients ----------------------------------------------------------------------------------

# dp_http VIP [options]: HTTP GETs from the client, one connection each: "LPORT NAME" lines,
# "LPORT ERR why" for failures (it gives up after --max-fail, default 3).
#   --count N | --lports 41000-41099, --port, --timeout, --parallel
dp_http() { local vip=$1; shift; dp_py "$DP_CL" http --addr "$vip" "$@"; }
# dp_udp VIP [options]: one datagram per flow from the client: "LPORT NAME", "LPORT -" unanswered.
dp_udp() { local vip=$1; shift; dp_py "$DP_CL" udp --addr "$vip" "$@"; }

# dp_probe_marked udp|tcp VIP MARK COUNT: COUNT flows from LB 1 with SO_MARK MARK (a probe
# mark), each from its own socket, to the UDP or stream port; the answers sorted and counted
# ("5 b2, 3 -": "-" is no answer)
dp_probe_marked() {
	local port=$DP_UDP_PORT py=$DP_TMP/probe_marked.py
	[[ $1 == tcp ]] && port=$DP_STREAM_PORT
	[[ -f $py ]] || cat >"$py" <<'EOF'
import socket, sys, time

# udp|tcp ADDR PORT MARK COUNT: COUNT flows with SO_MARK MARK, each from its own socket (its own
# source port); prints the answer of each, "-" when none came ("hello bN" for tcp is printed
# as "bN").
kind, addr, port, mark, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5])
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
for _ in range(n):
    s = socket.socket(fam, socket.SOCK_DGRAM if kind == 'udp' else socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
    s.settimeout(1.0)
    ans = '-'
    try:
        if kind == 'udp':
            s.connect((addr, port))
            for _ in range(2):
                s.send(b'probe')
                try:
                    ans = s.recv(100).decode().strip()
                    break
                except socket.timeout:
                    pass
        else:
            s.connect((addr, port))
            line = s.makefile().readline().split()
            if len(line) == 2 and line[0] == 'hello':
                ans = line[1]
    except OSError:
        pass
    s.close()
    print(ans, flush=True)
EOF
	dp_lb 1 "$DP_PY" "$py" "$1" "$2" "$port" "$3" "$4" | sort | uniq -c |
		awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }'
}

# dp_curl_many VIP N: N curl requests to VIP port 80 in one curl process, each on a new
# connection (busybox httpd closes after every response): "LPORT NAME" lines. Stops at the
# first error.
dp_curl_many() {
	local url
	url="http://$(dp_hostport "$1" "$DP_HTTP_PORT")/?[1-$2]"
	ip netns exec "$DP_CL" curl -s --fail-early --fail --connect-timeout 3 --max-time 5 \
		-w ' %{local_port}\n' "$url" |
		awk '$1 == "backend" && NF == 3 { print $3, $2; next } { print "? ERR", $0 }'
}

# Count "LPORT NAME" lines per name: "NAME COUNT" lines, sorted.
dp_tally() { awk '{ n[$2]++ } END { for (k in n) print k, n[k] }' "$@" | sort; }

# Every line of FILE ("LPORT NAME") is an answer of a backend (none failed), and there are N.
dp_all_answered() {
	local file=$1 n=$2 got bad
	got=$(wc -l <"$file")
	bad=$(awk '$2 !~ /^b[0-9]+$/' "$file" | head -n 3)
	if [[ $got -ne $n || -n $bad ]]; then
		echo "# $got answers of $n; failures: ${bad:-none}"
		return 1
	fi
}

# dp_check_split FILE "b1:W1 b2:W2 ..." TOL: each backend's share of the answers in FILE
# ("LPORT NAME") is within TOL (absolute, e.g. 0.08) of W / sum(W), and no one else answered.
dp_check_split() {
	awk -v weights="$2" -v tol="$3" '
	BEGIN {
		n = split(weights, w, " ")
		for (i = 1; i <= n; i++) { split(w[i], kv, ":"); want[kv[1]] = kv[2]; sum += kv[2] }
	}
	{ got[$2]++; total++ }
	END {
		bad = 0
		if (total == 0) { print "# no answers"; exit 1 }
		for (k in got)
			if (!(k in want)) { printf "# unexpected answer \"%s\" x%d\n", k, got[k]; bad = 1 }
		for (k in want) {
			share = got[k] / total; expect = want[k] / sum
			ok = (share - expect <= tol && expect - share <= tol)
			printf "# %s weight %d: %d of %d = %.3f, expected %.3f +- %.3f %s\n", k, want[k],
				got[k], total, share, expect, tol, ok ? "ok" : "OUT OF RANGE"
			if (!ok) bad = 1
		}
		exit bad
	}' "$1"
}

# Long-lived TCP streams from the client to VIP port 7000, in the background:
#   dp_stream_start NAME VIP COUNT|PORTS [stream options]   PORTS: "43000-43009"
#   dp_stream_wait NAME [SECS]  until all are connected; their backends: $DP_TMP/NAME.info
#   dp_stream_stop NAME         stop them: succeeds if none saw a reset, EOF, bad echo, or an
#                               echo later than 15 s (TCP backoff on a loaded machine is not a reset)
dp_stream_start() {
	local name=$1 vip=$2 n=$3 sel; shift 3
	if [[ $n == *-* || $n == *,* ]]; then sel=(--lports "$n"); else sel=(--conns "$n"); fi
	rm -f "$DP_TMP/$name.stop" "$DP_TMP/$name.info"
	dp_bg "$name" dp_py "$DP_CL" stream --addr "$vip" --port "$DP_STREAM_PORT" "${sel[@]}" \
		--stop "$DP_TMP/$name.stop" --info "$DP_TMP/$name.info" "$@"
}

dp_stream_wait() {
	local name=$1 pid=${DP_BGPID[$1]} end=$((SECONDS + ${2:-30}))
	while [[ ! -f $DP_TMP/$name.info ]]; do
		if ! kill -0 "$pid" 2>/dev/null || [[ $SECONDS -ge $end ]]; then
			sed 's/^/# /' "$DP_TMP/$name.log"
			return 1
		fi
		dp_sleep 0.2
	done
}

# Is the stream client still running (no failure so far)?
dp_stream_alive() { kill -0 "${DP_BGPID[$1]}" 2>/dev/null; }

dp_stream_stop() {
	local name=$1 pid=${DP_BGPID[$1]} rc end=$((SECONDS + 20))
	touch "$DP_TMP/$name.stop"
	while kill -0 "$pid" 2>/dev/null && [[ $SECONDS -lt $end ]]; do dp_sleep 0.2; done
	kill "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	unset "DP_BGPID[$name]"
	sed 's/^/# /' "$DP_TMP/$name.log"
	return $rc
}

# --- checks shared by the tests ---------------------------------------------------------------

# dp_check_encap DESC VIP DEV: 10 HTTP requests and 10 UDP flows answered, and the backends' DEV
# received them.
dp_check_encap() {
	local desc=$1 vip=$2 dev=$3 i n=0 out ans
	local -A B=() A=()
	dp_snap_all B
	out=$(dp_py "$DP_CL" probe --addr "$vip" --http 10 --udp 10 2>&1)
	dp_snap_all A
	for ((i = 1; i <= DP_NBE; i++)); do n=$((n + $(dp_delta B A "b$i/$dev:rx_packets"))); done
	ans=$(grep -cE '^[0-9]+ b[0-9]+$' <<<"$out")
	if [[ $ans -eq 20 && $n -ge 20 ]]; then
		ktap_test_pass "$desc: 20 of 20 answered, $dev received $n packets"
	else
		sed 's/^/# /' <<<"$out"
		ktap_test_fail "$desc: $ans of 20 answered, $dev received $n packets"
	fi
}

# dp_check_dsr VIP: direct server return: 1 MiB downloaded through the VIP, and LB 1 carried
# less than a quarter of it (the requests and ACKs only).
dp_check_dsr() {
	local vip=$1 lb got
	local -A B=() A=()
	dp_snap_all B
	got=$(dp_cl curl -s --max-time 20 -o /dev/null -w '%{size_download}' \
		"http://$(dp_hostport "$vip" 80)/big")
	dp_snap_all A
	lb=$(($(dp_delta B A lb1/eth0:rx_bytes) + $(dp_delta B A lb1/eth0:tx_bytes)))
	if [[ $got == 1048576 && $lb -lt 262144 ]]; then
		ktap_test_pass "DSR $vip: 1 MiB downloaded, the LB carried $lb bytes"
	else
		ktap_test_fail "DSR $vip: downloaded ${got:-nothing}, the LB carried $lb bytes"
	fi
}

# dp_check_icmp_fwd VIP: an ICMP "too big" from the router (as if the backend -> client path had
# a small MTU) about the VIP -> client packets of a stream reaches the backend that serves the
# stream, and no other (their IcmpInDestUnreachs / Icmp6InPktTooBigs).
dp_check_icmp_fwd() {
	local vip=$1 name=icmp${1//[:.]/_} lport owner i d ctr client=$DP_CL4 ok=1 msg=
	local -A B=() A=()
	ctr=IcmpInDestUnreachs
	[[ $vip == *:* ]] && { ctr=Icmp6InPktTooBigs; client=$DP_CL6; }
	dp_stream_start "$name" "$vip" 1
	if ! dp_stream_wait "$name"; then
		ktap_test_fail "ICMP error to $vip reaches the flow's backend (no stream)"
		return
	fi
	read -r lport owner <"$DP_TMP/$name.info"
	dp_snap_all B
	dp_py "$DP_RT" icmp-err --vip "$vip" --client "$client" --cport "$lport" \
		--vport "$DP_STREAM_PORT" --mtu 1300 --count 3 >/dev/null
	dp_sleep 1
	dp_snap_all A
	for ((i = 1; i <= DP_NBE; i++)); do
		d=$(dp_delta B A "b$i/$ctr")
		msg+=" b$i:+$d"
		if [[ b$i == "$owner" ]]; then [[ $d -ge 3 ]] || ok=0; else [[ $d -eq 0 ]] || ok=0; fi
	done
	dp_stream_stop "$name" >/dev/null || ok=0
	if [[ $ok -eq 1 ]]; then
		ktap_test_pass "ICMP error to $vip reaches the flow's backend $owner ($ctr$msg)"
	else
		ktap_test_fail "ICMP error to $vip reaches the flow's backend $owner ($ctr$msg)"
	fi
}

# --- counters ---------------------------------------------------------------------------------

# Interface and SNMP counters of namespaces as "PREFIX/NAME VALUE" lines, read from their anchors'
# /proc/PID/net (one process for all): dp_counters PREFIX NS [PREFIX NS]... Names:
# DEV:rx_packets (tx_packets, rx_bytes, tx_bytes), IpInHdrErrors, IcmpInDestUnreachs,
# Icmp6InPktTooBigs, UdpInDatagrams, ... (as in /proc/net/snmp and snmp6).
dp_counters() {
	local args=() p
	while [[ $# -ge 2 ]]; do
		p=/proc/${DP_NSPID[$2]}/net
		args+=("pfx=$1" "$p/dev" "$p/snmp" "$p/snmp6")
		shift 2
	done
	awk '
	FILENAME ~ /\/dev$/ {
		if (FNR <= 2) next
		i = index($0, ":"); dev = substr($0, 1, i - 1); gsub(/ /, "", dev)
		split(substr($0, i + 1), f, " ")
		print pfx "/" dev ":rx_bytes", f[1]; print pfx "/" dev ":rx_packets", f[2]
		print pfx "/" dev ":tx_bytes", f[9]; print pfx "/" dev ":tx_packets", f[10]
		next
	}
	FILENAME ~ /snmp6$/ { print pfx "/" $1, $2; next }
	$1 == h { p = substr(h, 1, length(h) - 1)
		  for (i = 2; i <= NF; i++) print pfx "/" p k[i], $i; h = ""; next }
	{ h = $1; for (i = 2; i <= NF; i++) k[i] = $i }' "${args[@]}"
}

# dp_snap ARRAY PREFIX NS [PREFIX NS]...: the counters into the associative ARRAY, keys
# PREFIX/NAME.
dp_snap() {
	local -n __a=$1
	local k v
	shift
	while read -r k v; do __a[$k]=$v; done <<<"$(dp_counters "$@")"
}

# dp_snap_all ARRAY: the counters of every namespace: rt/, cl/, lbN/, bN/.
dp_snap_all() {
	local i args=(rt "$DP_RT" cl "$DP_CL")
	for ((i = 1; i <= DP_NLB; i++)); do args+=("lb$i" "${DP_LB[i]}"); done
	for ((i = 1; i <= DP_NBE; i++)); do args+=("b$i" "${DP_BE[i]}"); done
	dp_snap "$1" "${args[@]}"
}

# dp_delta BEFORE AFTER KEY: how much a counter grew between two snapshots (arrays).
dp_delta() {
	local -n __b=$1 __a=$2
	echo $((${__a[$3]:-0} - ${__b[$3]:-0}))
}

# dp_tun_delta BEFORE AFTER bN: packets backend N's tunnel devices received (decapsulated).
dp_tun_delta() {
	local -n __b=$1 __a=$2
	local d n=0
	for d in $DP_TUNNELS; do
		n=$((n + ${__a[$3/$d:rx_packets]:-0} - ${__b[$3/$d:rx_packets]:-0}))
	done
	echo "$n"
}

# --- the python helper ------------------------------------------------------------------------
dp_write_helper() {
	[[ -f $DP_HELPER ]] && return 0
	cat >"$DP_HELPER" <<'PYEOF'
#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Servers and clients for the kmaglev data-plane selftests (written out by dp_lib.sh).

serve      on a backend: TCP stream echo, HTTP upload sink, UDP responder (all name the backend),
           and busybox httpd
stream     long-lived TCP streams: one line every INTERVAL, every echo checked
http       HTTP GETs, one connection each, from given or ephemeral ports: "LPORT NAME"
udp        one datagram per flow, from given or ephemeral ports: "LPORT NAME" ("-" = no reply)
probe      both: N HTTP requests and N UDP flows
connect    half-open TCP connections (SYN only, the server refuses)
icmp-err   an ICMP error to a VIP about the VIP->client packet of a flow
bad        malformed packets to a VIP (raw sockets)
"""
import errno
import os
import select
import socket
import struct
import sys
import threading
import time

# Few imports: python starts slowly in the test VMs (no KVM), so no argparse, socketserver,
# concurrent.futures or random.

# --- helpers ---------------------------------------------------------------------------------


def family_of(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET


def ports(spec):
    """'41000-41099' or '41000,41005' -> list of ints."""
    out = []
    for part in spec.split(','):
        if '-' in part:
            lo, hi = part.split('-')
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(src, dst, proto, payload, ihl=5, frag=0x4000, ident=0, tot_len=None, options=b'',
        fix_csum=True):
    """An IPv4 header (+ options) + payload. frag: flags|offset (default DF)."""
    if tot_len is None:
        tot_len = ihl * 4 + len(payload) if ihl >= 5 else 20 + len(payload)
    hdr = struct.pack('!BBHHHBBH4s4s', 0x40 | (ihl & 0xf), 0, tot_len, ident, frag, 64, proto,
                      0, socket.inet_aton(src), socket.inet_aton(dst))
    hdr += options
    if fix_csum:
        c = csum(hdr)
        hdr = hdr[:10] + struct.pack('!H', c) + hdr[12:]
    return hdr + payload


def ip6(src, dst, nexthdr, payload, plen=None):
    if plen is None:
        plen = len(payload)
    return struct.pack('!IHBB16s16s', 0x60000000, plen, nexthdr, 64,
                       socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst)) + payload


def l4_csum4(src, dst, proto, seg):
    ph = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack('!BBH', 0, proto, len(seg))
    return csum(ph + seg)


def l4_csum6(src, dst, proto, seg):
    ph = (socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst) +
          struct.pack('!IxxxB', len(seg), proto))
    return csum(ph + seg)


def udp_seg(sport, dport, data, src=None, dst=None, v6=False):
    seg = struct.pack('!HHHH', sport, dport, 8 + len(data), 0) + data
    if src:
        c = (l4_csum6 if v6 else l4_csum4)(src, dst, 17, seg) or 0xffff
        seg = seg[:6] + struct.pack('!H', c) + seg[8:]
    return seg


def tcp_seg(sport, dport, seq=1, flags=0x02, src=None, dst=None, v6=False):
    seg = struct.pack('!HHIIBBHHH', sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    if src:
        c = (l4_csum6 if v6 else l4_csum4)(src, dst, 6, seg)
        seg = seg[:16] + struct.pack('!H', c) + seg[18:]
    return seg


def log(*a):
    print(*a, file=sys.stderr, flush=True)

# --- serve -----------------------------------------------------------------------------------


SLOW_CGI = '''#!%s -S
import os, sys, time
secs = float(os.environ.get('QUERY_STRING', '') or 10)
out = sys.stdout.buffer
out.write(b'Content-Type: application/octet-stream\\r\\n\\r\\nbackend %s\\n')
out.flush()
end = time.monotonic() + secs
while time.monotonic() < end:
    out.write(b'.' * 4095 + b'\\n')
    out.flush()
    time.sleep(0.1)
out.write(b'end\\n')
'''


def tcp_server(port, handler):
    """A dual-stack listening socket on PORT; every connection handled in a thread."""
    ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    ls.bind(('::', port))
    ls.listen(1024)

    def loop():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                continue
            threading.Thread(target=handler, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


def serve(a):
    name = a.name.encode()

    def stream_conn(s):
        """'hello NAME', then every line echoed back."""
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(b'hello ' + name + b'\n')
            while True:
                d = s.recv(65536)
                if not d:
                    break
                s.sendall(d)
        except OSError:
            pass
        s.close()

    def sink_conn(s):
        """HTTP upload sink: reads the body, answers 'NAME received N bytes'."""
        try:
            buf = b''
            while b'\r\n\r\n' not in buf:
                d = s.recv(65536)
                if not d:
                    raise OSError('EOF in the request head')
                buf += d
            head, body = buf.split(b'\r\n\r\n', 1)
            clen = 0
            cont = False
            for line in head.split(b'\r\n')[1:]:
                k, _, v = line.partition(b':')
                if k.strip().lower() == b'content-length':
                    clen = int(v.strip())
                if k.strip().lower() == b'expect' and b'100' in v:
                    cont = True
            if cont:
                s.sendall(b'HTTP/1.1 100 Continue\r\n\r\n')
            n = len(body)
            while n < clen:
                d = s.recv(1 << 20)
                if not d:
                    break
                n += len(d)
            msg = b'%s received %d bytes\n' % (name, n)
            s.sendall(b'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: '
                      b'%d\r\nConnection: close\r\n\r\n%s' % (len(msg), msg))
        except (OSError, ValueError):
            pass
        s.close()

    tcp_server(a.stream_port, stream_conn)
    tcp_server(a.sink_port, sink_conn)
    # UDP: one socket per VIP, so that the answer comes from the VIP (direct server return)
    usocks = []
    for vip in a.vips.split(','):
        if not vip:
            continue
        s = socket.socket(family_of(vip), socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # bursts of hundreds of flows: do not drop them at a full receive buffer
        s.setsockopt(socket.SOL_SOCKET, getattr(socket, 'SO_RCVBUFFORCE', 33), 8 << 20)
        s.bind((vip, a.udp_port))
        usocks.append(s)
    if a.www:
        # busybox httpd on a directory of its own: "/" names the backend, "/big" is 1 MiB
        # (its first line names the backend too)
        os.makedirs(a.www, exist_ok=True)
        with open(a.www + '/index.html', 'w') as f:
            f.write('backend ' + a.name)
        with open(a.www + '/big', 'wb') as f:
            head = b'backend ' + name + b'\n'
            f.write(head + b'\0' * (1048576 - len(head)))
        # /cgi-bin/slow?SECS: a long-lived response: the backend's name, then 40 KB/s for
        # SECS seconds, then "end"
        os.makedirs(a.www + '/cgi-bin', exist_ok=True)
        with open(a.www + '/cgi-bin/slow', 'w') as f:
            f.write(SLOW_CGI % (sys.executable, a.name))
        os.chmod(a.www + '/cgi-bin/slow', 0o755)
        os.posix_spawnp('busybox', ['busybox', 'httpd', '-f', '-p', str(a.http_port),
                                    '-h', a.www], os.environ)
        end = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(('127.0.0.1', a.http_port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > end:
                    log('serve: httpd does not answer')
                    return 1
                time.sleep(0.1)
    # rp_filter off on every device, the fallback tunnels too (decapsulated packets come from
    # clients whose route is not the tunnel)
    for dev in os.listdir('/proc/sys/net/ipv4/conf'):
        with open('/proc/sys/net/ipv4/conf/%s/rp_filter' % dev, 'w') as f:
            f.write('0')
    if a.ready:
        with open(a.ready, 'w') as f:
            f.write('ready\n')
    while True:
        r, _, _ = select.select(usocks, [], [])
        for s in r:
            try:
                d, peer = s.recvfrom(65536)
                s.sendto(name, peer)
            except OSError:
                pass

# --- stream client ---------------------------------------------------------------------------


def stream(a):
    """N long-lived connections, each sending a numbered line every interval and checking its
    echo. Exits 0 if every connection lived until --stop appeared (or --duration passed) with
    every echo right and in time; 1 at the first reset, EOF, timeout or wrong echo."""
    fam = family_of(a.addr)
    lps = ports(a.lports) if a.lports else [0] * a.conns
    conns = []
    deadline = time.monotonic() + a.connect_timeout
    for lp in lps:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if lp:
            s.bind(('::' if fam == socket.AF_INET6 else '0.0.0.0', lp))
        s.setblocking(False)
        try:
            s.connect((a.addr, a.port))
        except BlockingIOError:
            pass
        except OSError as e:
            print('stream: connect from port %d: %s' % (lp, e), flush=True)
            return 2
        conns.append({'s': s, 'lport': s.getsockname()[1], 'buf': b'', 'name': None,
                      'seq': 0, 'acked': 0, 'bytes': 0, 'sent_at': None, 'connected': False})
    # connect and read the hello lines
    pending = list(conns)
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            print('stream: %d of %d connections got no hello within %.0fs (first: port %d)'
                  % (len(pending), len(conns), a.connect_timeout, pending[0]['lport']),
                  flush=True)
            return 2
        r, _, _ = select.select([c['s'] for c in pending], [], [], min(left, 0.5))
        for c in [c for c in pending if c['s'] in r]:
            try:
                d = c['s'].recv(4096)
            except OSError as e:
                print('stream: port %d: %s before hello' % (c['lport'], e), flush=True)
                return 2
            if not d:
                print('stream: port %d: closed before hello' % c['lport'], flush=True)
                return 2
            c['buf'] += d
            if b'\n' in c['buf']:
                line, c['buf'] = c['buf'].split(b'\n', 1)
                if not line.startswith(b'hello '):
                    print('stream: port %d: bad hello %r' % (c['lport'], line), flush=True)
                    return 2
                c['name'] = line[6:].decode()
                pending.remove(c)
    if a.info:
        with open(a.info + '.tmp', 'w') as f:
            for c in conns:
                f.write('%d %s\n' % (c['lport'], c['name']))
        os.rename(a.info + '.tmp', a.info)
    # the steady state
    start = time.monotonic()
    next_send = start
    by_sock = {c['s']: c for c in conns}
    rc = 0
    while True:
        now = time.monotonic()
        if a.stop and os.path.exists(a.stop):
            break
        if a.duration and now - start >= a.duration:
            break
        if now >= next_send:
            for c in conns:
                if c['sent_at'] is None:
                    c['seq'] += 1
                    try:
                        c['s'].send(b'%d %s\n' % (c['seq'], b'x' * a.pad))
                    except OSError as e:
                        print('stream: port %d (%s): send: %s' % (c['lport'], c['name'], e),
                              flush=True)
                        rc = 1
                        break
                    c['sent_at'] = now
            next_send = now + a.interval
        if rc:
            break
        late = [c for c in conns if c['sent_at'] is not None and now - c['sent_at'] > a.timeout]
        if late:
            c = late[0]
            print('stream: port %d (%s): no echo of line %d within %.1fs (%d streams late)'
                  % (c['lport'], c['name'], c['seq'], a.timeout, len(late)), flush=True)
            rc = 1
            break
        r, _, _ = select.select(list(by_sock), [], [], max(0.0, min(0.05, next_send - now)))
        for s in r:
            c = by_sock[s]
            try:
                d = s.recv(65536)
            except OSError as e:
                print('stream: port %d (%s): %s after %d lines'
                      % (c['lport'], c['name'], e, c['acked']), flush=True)
                rc = 1
                break
            if not d:
                print('stream: port %d (%s): closed by the peer after %d lines'
                      % (c['lport'], c['name'], c['acked']), flush=True)
                rc = 1
                break
            c['buf'] += d
            while b'\n' in c['buf']:
                line, c['buf'] = c['buf'].split(b'\n', 1)
                want = b'%d %s' % (c['seq'], b'x' * a.pad)
                if line != want or c['sent_at'] is None:
                    print('stream: port %d (%s): bad echo %r, want line %d'
                          % (c['lport'], c['name'], line[:40], c['seq']), flush=True)
                    rc = 1
                    break
                c['acked'] += 1
                c['bytes'] += len(line) + 1
                c['sent_at'] = None
            if rc:
                break
        if rc:
            break
    total = sum(c['acked'] for c in conns)
    nbytes = sum(c['bytes'] for c in conns)
    for c in conns:
        c['s'].close()
    by = {}
    for c in conns:
        by[c['name']] = by.get(c['name'], 0) + 1
    print('stream: %d streams (%s), %d lines (%d bytes) echoed in %.1fs: %s'
          % (len(conns), ' '.join('%s:%d' % kv for kv in sorted(by.items())), total, nbytes,
             time.monotonic() - start, 'ok' if rc == 0 else 'FAILED'), flush=True)
    return rc

# --- request clients -------------------------------------------------------------------------


def one_http(addr, port, lport, timeout, path):
    fam = family_of(addr)
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if lport:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(('::' if fam == socket.AF_INET6 else '0.0.0.0', lport))
        s.connect((addr, port))
        lport = s.getsockname()[1]
        s.sendall(b'GET %s HTTP/1.0\r\nHost: vip\r\n\r\n' % path.encode())
        buf = b''
        while True:
            d = s.recv(65536)
            if not d:
                break
            buf += d
        head, _, body = buf.partition(b'\r\n\r\n')
        if not head.startswith(b'HTTP/1.') or b' 200 ' not in head.split(b'\r\n')[0]:
            return lport, 'ERR bad-response'
        words = body.split()
        return lport, words[1].decode() if len(words) >= 2 and words[0] == b'backend' else \
            'ERR bad-body'
    except socket.timeout:
        return lport, 'ERR timeout'
    except OSError as e:
        return lport, 'ERR ' + (errno.errorcode.get(e.errno, str(e)) if e.errno else str(e))
    finally:
        s.close()


def http(a):
    """GETs from --lports (or --count ephemeral ports), --parallel at a time; gives up after
    --max-fail failures."""
    lps = ports(a.lports) if a.lports else [0] * a.count
    res = [None] * len(lps)
    lock = threading.Lock()
    state = {'next': 0, 'fails': 0}

    def worker():
        while True:
            with lock:
                i = state['next']
                if i >= len(lps) or state['fails'] >= a.max_fail:
                    return
                state['next'] = i + 1
            res[i] = one_http(a.addr, a.port, lps[i], a.timeout, a.path)
            if res[i][1].startswith('ERR'):
                with lock:
                    state['fails'] += 1
    th = [threading.Thread(target=worker) for _ in range(min(a.parallel, len(lps)))]
    for t in th:
        t.start()
    for t in th:
        t.join()
    for r in res:
        if r:
            print(r[0], r[1])
    if state['fails'] >= a.max_fail:
        log('http: gave up after %d failures' % state['fails'])
    return 1 if state['fails'] else 0


def udp(a):
    """One datagram per flow; up to --tries sends each; prints 'LPORT NAME' or 'LPORT -'."""
    fam = family_of(a.addr)
    lps = ports(a.lports) if a.lports else [0] * a.count
    socks = []
    for lp in lps:
        # no SO_REUSEADDR: with it, UDP sockets binding port 0 may share a port (one flow)
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind(('::' if fam == socket.AF_INET6 else '0.0.0.0', lp))
        s.connect((a.addr, a.port))
        s.setblocking(False)
        socks.append(s)
    ans = {}
    payload = a.payload.encode()
    for _ in range(a.tries):
        todo = [s for s in socks if s not in ans]
        if not todo:
            break
        for i, s in enumerate(todo):
            try:
                s.send(payload)
            except OSError:
                pass
            if i % 32 == 31:
                time.sleep(0.01)	# do not overrun the path's queues
        end = time.monotonic() + a.timeout
        while len(ans) < len(socks):
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([s for s in socks if s not in ans], [], [], left)
            for s in r:
                try:
                    ans[s] = s.recv(65536).decode(errors='replace').split()[0]
                except OSError:
                    pass
    missing = 0
    for s in socks:
        name = ans.get(s, '-')
        missing += name == '-'
        print(s.getsockname()[1], name)
        s.close()
    return 1 if missing else 0


def probe(a):
    """--http N GETs then --udp N datagrams (new flows each) in one go: "LPORT NAME" lines.
    If HTTP fails, UDP is not tried (failing fast)."""
    rc = 0
    if a.http:
        rc |= http(Opts([], dict(COMMANDS['http'][1], addr=a.addr, count=a.http,
                                 timeout=a.timeout)))
        if rc:
            log('probe: HTTP failed, UDP not tried')
            return rc
    if a.udp:
        rc |= udp(Opts([], dict(COMMANDS['udp'][1], addr=a.addr, count=a.udp,
                                timeout=a.timeout)))
    return rc


def connect(a):
    """SYNs that open nothing: non-blocking connects, held for --hold seconds. Prints how many
    the server refused (RST: nobody listens on the port)."""
    fam = family_of(a.addr)
    socks = []
    for _ in range(a.count):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect((a.addr, a.port))
        except (BlockingIOError, OSError):
            pass
        socks.append(s)
    time.sleep(a.hold)
    refused = 0
    for s in socks:
        refused += s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNREFUSED
        s.close()
    print('connect: %d SYNs, %d refused' % (len(socks), refused))
    return 0 if refused == len(socks) else 1


# --- crafted packets -------------------------------------------------------------------------


def raw_send(fam, pkts, dst):
    """IP packets, headers included, through the local stack. Returns how many were sent."""
    if fam == socket.AF_INET:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    n = 0
    for p in pkts:
        try:
            s.sendto(p, (dst, 0))
            n += 1
        except OSError as e:
            log('raw send: %s' % e)
        time.sleep(0.002)
    s.close()
    return n


def l2_send(pkts, gw):
    """IPv4 packets the local stack would refuse to send (a bad IHL), as Ethernet frames to the
    gateway GW (its MAC from the neighbour table). Returns how many were sent."""
    mac = dev = None
    with open('/proc/net/arp') as f:
        for line in f.read().splitlines()[1:]:
            w = line.split()
            if w[0] == gw and w[3] != '00:00:00:00:00:00':
                mac, dev = bytes.fromhex(w[3].replace(':', '')), w[5]
    if not mac:
        log('l2 send: no neighbour entry for %s' % gw)
        return 0
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM)
    n = 0
    for p in pkts:
        try:
            s.sendto(p, (dev, 0x0800, 0, 0, mac))
            n += 1
        except OSError as e:
            log('l2 send: %s' % e)
        time.sleep(0.002)
    s.close()
    return n


def icmp_err(a):
    """From a router: 'too big' about the VIP->client packet of flow client:cport <-> vip:vport.
    The outer source is the sender's own address, as from a router on the return path."""
    if family_of(a.vip) == socket.AF_INET:
        inner = ip4(a.vip, a.client, 6, tcp_seg(a.vport, a.cport, seq=a.seq, flags=0x10),
                    tot_len=1500)
        icmp = struct.pack('!BBHHH', 3, 4, 0, 0, a.mtu) + inner
        icmp = icmp[:2] + struct.pack('!H', csum(icmp)) + icmp[4:]
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    else:
        inner = ip6(a.vip, a.client, 6, tcp_seg(a.vport, a.cport, seq=a.seq, flags=0x10),
                    plen=1460)
        icmp = struct.pack('!BBHI', 2, 0, 0, a.mtu) + inner	# checksum: the kernel's
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    for _ in range(a.count):
        s.sendto(icmp, (a.vip, 0))
        time.sleep(0.01)
    print('icmp-err: %d sent' % a.count)
    return 0


def bad(a):
    """Malformed packets from the client to a VIP: every kind of --kinds (comma-separated),
    --count of each, to --port (TCP, ICMP about a TCP flow) or --udp-port. Prints 'KIND N' per
    kind sent."""
    rc = 0
    for k in a.kinds.split(','):
        rc |= bad_kind(a, k)
    return rc


def bad_kind(a, k):
    src, dst, n = a.src, a.vip, a.count
    port = a.udp_port if k in ('udp-trunc', 'ihl-short', 'ihl-long', 'ihl-badopt', 'frag') \
        else a.port
    v6 = family_of(dst) == socket.AF_INET6
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    seq = [0]

    def sp():
        seq[0] += 1
        return 20000 + (seq[0] * 7919) % 40000
    pkts = []
    if k == 'tcp-trunc':		# TCP header cut at 10 bytes (needs 20)
        for _ in range(n):
            seg = tcp_seg(sp(), port)[:10]
            pkts.append(ip6(src, dst, 6, seg) if v6 else ip4(src, dst, 6, seg))
    elif k == 'tcp-doff':		# data offset 15 (60 bytes) in a 20-byte segment
        for _ in range(n):
            seg = bytearray(tcp_seg(sp(), port))
            seg[12] = 15 << 4
            seg = bytes(seg)
            pkts.append(ip6(src, dst, 6, seg) if v6 else ip4(src, dst, 6, seg))
    elif k == 'udp-trunc':		# UDP header cut at 4 bytes (needs 8)
        for _ in range(n):
            seg = udp_seg(sp(), port, b'')[:4]
            pkts.append(ip6(src, dst, 17, seg) if v6 else ip4(src, dst, 17, seg))
    elif k == 'ihl-short':		# IHL 4: dropped by ip_rcv before any hook
        for _ in range(n):
            seg = udp_seg(sp(), port, b'bad')
            pkts.append(ip4(src, dst, 17, seg, ihl=4, tot_len=20 + len(seg)))
    elif k == 'ihl-long':		# IHL 15 (60 bytes) in a 31-byte packet: ip_rcv drops it
        for _ in range(n):
            seg = udp_seg(sp(), port, b'bad')
            pkts.append(ip4(src, dst, 17, seg, ihl=15, tot_len=20 + len(seg)))
    elif k == 'ihl-badopt':		# IHL 6 with a malformed option (length 0): ip_rcv drops it
        for _ in range(n):
            seg = udp_seg(sp(), port, b'bad')
            pkts.append(ip4(src, dst, 17, seg, ihl=6, options=b'\x44\x00\x00\x00'))
    elif k == 'ext-trunc':		# IPv6 destination options claiming 88 bytes, 16 present
        for _ in range(n):
            ext = struct.pack('!BB', 6, 10) + b'\x01\x0c' + b'\0' * 12
            pkts.append(ip6(src, dst, 60, ext))
    elif k == 'ext-chain':		# dstopts -> routing -> TCP, the TCP header cut at 6 bytes
        for _ in range(n):
            d = struct.pack('!BB', 43, 0) + b'\x01\x04' + b'\0' * 4
            r = struct.pack('!BBBB', 6, 0, 0, 0) + b'\0' * 4
            pkts.append(ip6(src, dst, 60, d + r + tcp_seg(sp(), port)[:6]))
    elif k == 'icmp-trunc':		# ICMP error about a VIP flow, inner cut before the ports
        for i in range(n):
            if v6:
                inner = ip6(dst, src, 6, tcp_seg(port, sp()))[:20 if i % 2 else 42]
                icmp = struct.pack('!BBHI', 2, 0, 0, 1280) + inner
                c = l4_csum6(src, dst, 58, icmp)
                icmp = icmp[:2] + struct.pack('!H', c) + icmp[4:]
                pkts.append(ip6(src, dst, 58, icmp))
            else:
                inner = ip4(dst, src, 6, tcp_seg(port, sp()))[:12 if i % 2 else 22]
                icmp = struct.pack('!BBHHH', 3, 4, 0, 0, 1200) + inner
                icmp = icmp[:2] + struct.pack('!H', csum(icmp)) + icmp[4:]
                pkts.append(ip4(src, dst, 1, icmp))
    elif k == 'frag':			# a UDP datagram in two fragments (each one counted)
        for i in range(n):
            data = b'f' * 40
            seg = udp_seg(sp(), port, data, src, dst, v6)
            if v6:
                ident = 0x1000 + i
                f1 = struct.pack('!BBHI', 17, 0, 0x0001, ident) + seg[:24]
                f2 = struct.pack('!BBHI', 17, 0, 24, ident) + seg[24:]	# offset 3 * 8
                pkts.append(ip6(src, dst, 44, f1))
                pkts.append(ip6(src, dst, 44, f2))
            else:
                ident = 0x1000 + i
                pkts.append(ip4(src, dst, 17, seg[:24], frag=0x2000, ident=ident))
                pkts.append(ip4(src, dst, 17, seg[24:], frag=3, ident=ident))
    else:
        log('bad: unknown kind', k)
        return 2
    if k.startswith('ihl-'):
        sent = l2_send(pkts, a.gw)	# the local stack refuses a bad IHL
    else:
        sent = raw_send(fam, pkts, dst)
    print(k, sent)
    return 0

# --- main ------------------------------------------------------------------------------------


class Opts:
    """--key value options over defaults (the default's type converts the value); other words
    are positional (.args)."""

    def __init__(self, argv, defaults):
        self.args = []
        self.__dict__.update(defaults)
        i = 0
        while i < len(argv):
            w = argv[i]
            if not w.startswith('--'):
                self.args.append(w)
                i += 1
                continue
            k = w[2:].replace('-', '_')
            if k not in defaults or i + 1 >= len(argv):
                raise SystemExit('dp_helper: bad option %s' % w)
            d = defaults[k]
            setattr(self, k, argv[i + 1] if d is None else type(d)(argv[i + 1]))
            i += 2


COMMANDS = {
    'serve': (serve, dict(name=None, vips='', stream_port=7000, sink_port=8080, udp_port=5300,
                          http_port=80, www=None, ready=None)),
    'stream': (stream, dict(addr=None, port=7000, conns=1, lports=None, interval=0.1,
                            timeout=15.0, connect_timeout=10.0, pad=16, stop=None, duration=0.0,
                            info=None)),
    'http': (http, dict(addr=None, port=80, path='/', count=1, lports=None, timeout=3.0,
                        parallel=4, max_fail=3)),
    'udp': (udp, dict(addr=None, port=5300, count=1, lports=None, payload='q', timeout=2.0,
                      tries=3)),
    'probe': (probe, dict(addr=None, http=10, udp=10, timeout=3.0)),
    'connect': (connect, dict(addr=None, port=None, count=1, hold=1.0)),
    'icmp-err': (icmp_err, dict(vip=None, client=None, cport=0, vport=7000, mtu=1300,
                                seq=12345, count=1)),
    'bad': (bad, dict(src=None, vip=None, port=80, udp_port=5300, count=5, kinds='',
                      gw=None)),
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    fn, defaults = COMMANDS[sys.argv[1]]
    a = Opts(sys.argv[2:], defaults)
    if fn is connect:
        a.port = int(a.port)
    return fn(a)


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
PYEOF
}

# --- self-check with IPVS as the load balancer -------------------------------------------------
#
# Builds the topology with two LBs and three backends and proves, with IPVS (tunnel mode, mh)
# instead of kmaglev: every decapsulation path works (IPIP, GRE, keyed GRE, 6in6, GRE over IPv6,
# keyed GRE over IPv6, 6in4, 4in6), replies bypass the LB (DSR), a 1:2:3 split is measured
# right, streams survive a move between LBs, PMTU discovery works through a small-MTU link, and
# an ICMP error to the VIP reaches the backend that owns the flow. Keyed GRE, which IPVS does
# not do, is sent by static keyed GRE tunnels on LB 1.

DP_SELFCHECK_PLAN=18

dp_selfcheck_ipvs() {
	local i v out ok r svc port vip fam encap be
	local -A B=() A=()
	DP_STANDIN=ipvs
	ktap_print_msg "building the topology ($SECONDS s)"
	if ! dp_topo 2 3; then
		dp_fail_rest "topology: 2 LBs, 3 backends"
		return
	fi
	ktap_print_msg "topology up ($SECONDS s)"
	out=$(for ((i = 1; i <= DP_NBE; i++)); do
		dp_cl ping -c1 -W2 "$(dp_be4 $i)" >/dev/null || echo "no ping to b$i (IPv4)"
		dp_cl ping -6 -c1 -W2 "$(dp_be6 $i)" >/dev/null || echo "no ping to b$i (IPv6)"
	done
	for ((i = 1; i <= DP_NLB; i++)); do
		dp_cl ping -c1 -W2 "$(dp_lb4 $i)" >/dev/null || echo "no ping to lb$i (IPv4)"
		dp_cl ping -6 -c1 -W2 "$(dp_lb6 $i)" >/dev/null || echo "no ping to lb$i (IPv6)"
	done)
	if [[ -z $out ]]; then
		ktap_test_pass "topology: the client reaches 2 LBs and 3 backends, IPv4 and IPv6"
	else
		sed 's/^/# /' <<<"$out"
		ktap_test_fail "topology: the client reaches 2 LBs and 3 backends, IPv4 and IPv6"
	fi

	# LB 1: VIP .10/::10 ipip (1:2:3) on every port, .11/::11 GRE, ::12 -> IPv4 backends (6in4),
	# .13 -> IPv6 backends (4in6) on ports 80 and 5300/udp. LB 2: .10:7000 as on LB 1.
	ok=1
	for v in "$(dp_vip4 0) 4 ipip" "$(dp_vip6 0) 6 ipip" "$(dp_vip4 1) 4 gre" \
		 "$(dp_vip6 1) 6 gre" "$(dp_vip6 2) 4 ipip" "$(dp_vip4 3) 6 ipip"; do
		read -r vip fam encap <<<"$v"
		be=()
		for ((i = 1; i <= DP_NBE; i++)); do
			be+=(backend "$(dp_be$fam $i)" weight $i encap "$encap")
		done
		for svc in "$DP_HTTP_PORT/tcp" "$DP_UDP_PORT/udp" "$DP_STREAM_PORT/tcp" \
			   "$DP_SINK_PORT/tcp"; do
			if [[ $vip != "$(dp_vip4 0)" && $vip != "$(dp_vip6 0)" &&
			      $svc != "$DP_HTTP_PORT/tcp" && $svc != "$DP_UDP_PORT/udp" ]]; then
				continue
			fi
			dp_km 1 service add "$(dp_hostport "$vip" "${svc%/*}")/${svc#*/}" "${be[@]}" ||
				ok=0
			[[ $svc == "$DP_STREAM_PORT/tcp" && $vip == "$(dp_vip4 0)" ]] &&
				{ dp_km 2 service add "$(dp_hostport "$vip" "${svc%/*}")/tcp" "${be[@]}" || ok=0; }
		done
	done
	# keyed GRE: static tunnels from LB 1 to b1 for .15 and ::15
	ip -n "${DP_LB[1]}" -b - <<-EOF || ok=0
		link add kgtx type gre key $(dp_gre_key 1) local $(dp_lb4 1) remote $(dp_be4 1)
		link set kgtx up
		route add $(dp_vip4 5)/32 dev kgtx
		link add kg6tx type ip6gre key $(dp_gre_key 1) local $(dp_lb6 1) remote $(dp_be6 1)
		link set kg6tx up
		route add $(dp_vip6 5)/128 dev kg6tx
	EOF
	dp_sysctl "${DP_LB[1]}" net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || ok=0
	if [[ $ok -eq 1 ]]; then
		ktap_test_pass "IPVS configured (LB 1: 16 services, LB 2: 1), keyed GRE tunnels on LB 1"
	else
		ktap_test_fail "IPVS configured (LB 1: 16 services, LB 2: 1), keyed GRE tunnels on LB 1"
	fi

	ktap_print_msg "configured ($SECONDS s)"
	dp_check_encap "IPIP (IPv4 VIP, IPv4 backends)" "$(dp_vip4 0)" tunl0
	dp_check_encap "6in6 (IPv6 VIP, IPv6 backends)" "$(dp_vip6 0)" ip6any
	dp_check_encap "GRE (IPv4 VIP, IPv4 backends)" "$(dp_vip4 1)" gre0
	dp_check_encap "GRE over IPv6 (IPv6 VIP, IPv6 backends)" "$(dp_vip6 1)" ip6gre0
	dp_check_encap "6in4 (IPv6 VIP, IPv4 backends)" "$(dp_vip6 2)" sit0
	dp_check_encap "4in6 (IPv4 VIP, IPv6 backends)" "$(dp_vip4 3)" ip6any
	dp_check_encap "keyed GRE (static tunnel to b1)" "$(dp_vip4 5)" kgre
	dp_check_encap "keyed GRE over IPv6 (static tunnel to b1)" "$(dp_vip6 5)" kgre6

	ktap_print_msg "encapsulations checked ($SECONDS s)"
	dp_check_dsr "$(dp_vip4 0)"
	dp_check_dsr "$(dp_vip6 0)"

	ktap_print_msg "DSR checked ($SECONDS s)"
	dp_curl_many "$(dp_vip4 0)" 300 >"$DP_TMP/split" 2>&1
	if dp_all_answered "$DP_TMP/split" 300 &&
	   out=$(dp_check_split "$DP_TMP/split" "b1:1 b2:2 b3:3" 0.09); then
		echo "$out"
		ktap_test_pass "300 curl requests split 1:2:3 (+-0.09)"
	else
		echo "${out:-}"
		ktap_test_fail "300 curl requests split 1:2:3 (+-0.09)"
	fi

	ktap_print_msg "split checked ($SECONDS s)"
	# streams moved from LB 1 to LB 2 mid-stream: IPVS mh (port hash, sloppy TCP) on both
	dp_stream_start move "$(dp_vip4 0)" 12
	ok=1
	dp_stream_wait move || ok=0
	sleep 1
	dp_snap_all B
	dp_vip_route 2
	sleep 3
	dp_snap_all A
	dp_vip_route 1
	dp_stream_stop move || ok=0
	r=$(dp_delta B A lb2/eth0:rx_packets)
	if [[ $ok -eq 1 && $r -ge 100 ]]; then
		ktap_test_pass "12 streams moved from LB 1 to LB 2 and back survive (LB 2 took $r packets)"
	else
		ktap_test_fail "12 streams moved from LB 1 to LB 2 and back survive (LB 2 took $r packets)"
	fi

	# PMTU discovery through a 1400-byte link between LB 1 and the router
	dp_lb_mtu_link 1 1400
	for vip in "$(dp_vip4 0)" "$(dp_vip6 0)"; do
		out=$(head -c 3145728 /dev/zero | dp_cl curl -s --max-time 60 -H 'Expect:' \
			--data-binary @- "http://$(dp_hostport "$vip" $DP_SINK_PORT)/" 2>&1)
		r=$(dp_cl ip route get "$vip" 2>&1)
		if [[ $out == *"received 3145728 bytes"* && $r =~ mtu\ (13[0-9]+) ]]; then
			ktap_test_pass "PMTU discovery through the LB ($vip): 3 MiB uploaded, client's path MTU ${BASH_REMATCH[1]}"
		else
			echo "# $out"
			echo "# $r"
			ktap_test_fail "PMTU discovery through the LB ($vip): 3 MiB uploaded"
		fi
	done

	ktap_print_msg "PMTU checked ($SECONDS s)"
	dp_check_icmp_fwd "$(dp_vip4 0)"
	dp_check_icmp_fwd "$(dp_vip6 0)"
	ktap_print_msg "done ($SECONDS s)"
}

dp_selfcheck_main() {
	kmg_require_root
	kmg_require_cmd ip ipvsadm curl busybox ping
	[[ -x $DP_PY ]] || ktap_skip_all "python3 not installed"
	modprobe -q ip_vs 2>/dev/null
	[[ -e /proc/net/ip_vs ]] || ktap_skip_all "no IPVS in this kernel"
	ktap_print_header
	ktap_set_plan $DP_SELFCHECK_PLAN
	ktap_print_msg "dp_lib.sh self-check: the topology with IPVS as the load balancer"
	dp_selfcheck_ipvs
	ktap_finished
}

if [[ -n ${DP_MAIN:-} ]]; then
	dp_selfcheck_main
fi
