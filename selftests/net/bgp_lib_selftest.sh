#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-check of bgp_lib.sh without kmaglev: gobgpd stands in for our speaker ("spk1", and
# "spk2" for ECMP), announcing 192.0.2.1/32 and 2001:db8::1/128, and each kind of peer (BIRD,
# FRR, GoBGP) runs in the router namespace "rtr":
#
#   spk1 10.99.1.1, fd99:1::1 --- 10.99.1.2, fd99:1::2  rtr  10.99.2.2, fd99:2::2 --- spk2 10.99.2.1, fd99:2::1
#
# Per kind: eBGP with TCP-MD5 and iBGP sessions come up (v4 over IPv4, v6 over IPv6), the
# readers print the announced attributes, an administrative shutdown with a message is the
# peer's last error and takes the session down; BIRD and FRR install both announcers as ECMP
# next hops; a killed announcer's routes are held stale by a graceful-restart peer.
# The three kinds run at once, each in its own three namespaces (gobgpd's first connection
# attempt waits 5-10 s: gobgp<->gobgp alone takes ~30 s); their results are printed in order.
# BGP_KINDS="bird frr" picks kinds; BGP_KEEP=1 keeps the daemons' files.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bgp_lib.sh"

kmg_require_root
kmg_require_cmd ip python3 bird birdc vtysh gobgpd gobgp
[[ -x $BGP_FRR/zebra && -x $BGP_FRR/bgpd ]] || ktap_skip_all "FRR's zebra and bgpd not installed"

KINDS=${BGP_KINDS:-bird frr gobgp}
ktap_print_header
ktap_set_plan $((5 * $(wc -w <<<"$KINDS") + $(wc -w <<<"${KINDS/gobgp/}")))	# (ecmp: 2)

# topo KIND: namespaces SPK1_KIND, SPK2_KIND, RTR_KIND and their links.
topo() {
	local i s k=$1
	kmg_netns_add "SPK1_$k" && kmg_netns_add "SPK2_$k" && kmg_netns_add "RTR_$k" || return 1
	local -n SPK1="SPK1_$k" SPK2="SPK2_$k" RTR="RTR_$k"
	for i in 1 2; do
		s=SPK$i
		ip link add v$i netns "${!s}" type veth peer name s$i netns "$RTR" || return 1
		ip -n "${!s}" addr add "10.99.$i.1/24" dev "v$i"
		ip -n "${!s}" addr add "fd99:$i::1/64" dev "v$i" nodad
		ip -n "$RTR" addr add "10.99.$i.2/24" dev "s$i"
		ip -n "$RTR" addr add "fd99:$i::2/64" dev "s$i" nodad
		ip -n "${!s}" link set "v$i" up
		ip -n "$RTR" link set "s$i" up
	done
}
for k in $KINDS; do
	if ! topo "$k"; then
		ktap_test_fail "topology"
		ktap_finished
	fi
done

# spk I PEER_AS [KEY=VALUE...]: the announcer in SPKI, AS 65000, both prefixes announced.
spk() {
	local i=$1 pas=$2 ns=SPK$1; shift 2
	bgp_peer_start gobgp "${!ns}" spk as=65000 id="10.99.$i.1" peer_as="$pas" \
		neighbor="10.99.$i.2@v4,fd99:$i::2@v6" local="10.99.$i.1,fd99:$i::1" announce=1 "$@" &&
	bgp_peer_announce "${!ns}" spk 192.0.2.1/32 origin igp med 10 community 65000:1 \
		large-community 65000:1:2 local-pref 200 >/dev/null &&
	bgp_peer_announce "${!ns}" spk 2001:db8::1/128 origin incomplete community 65000:7 >/dev/null
}

# rtr KIND AS [KEY=VALUE...]: the peer under test, neighbor of spk1 (and spk2 with "two").
rtr() {
	local kind=$1 as=$2 nb="10.99.1.1@v4,fd99:1::1@v6" l=local=10.99.1.2,fd99:1::2; shift 2
	if [[ ${1:-} == two ]]; then
		nb+=",10.99.2.1@v4,fd99:2::1@v6"
		l=
		shift
	fi
	bgp_peer_start "$kind" "$RTR" rtr as="$as" id=10.99.1.2 peer_as=65000 neighbor="$nb" $l "$@"
}

# expect DESC WANT GOT
expect() {
	if [[ $2 == "$3" ]]; then
		ktap_test_pass "$1"
	else
		echo "# want:"; sed 's/^/#   /' <<<"$2"
		echo "# got:"; sed 's/^/#   /' <<<"$3"
		ktap_test_fail "$1"
	fi
}

ebgp4="192.0.2.1/32 10.99.1.1 as_path=65000 local_pref=- med=10 communities=65000:1 large=65000:1:2 origin=igp stale=0"
ebgp6="2001:db8::1/128 fd99:1::1 as_path=65000 local_pref=- med=- communities=65000:7 large=- origin=incomplete stale=0"
ibgp4="192.0.2.1/32 10.99.1.1 as_path= local_pref=200 med=10 communities=65000:1 large=65000:1:2 origin=igp stale=0"
ibgp6="2001:db8::1/128 fd99:1::1 as_path= local_pref=100 med=- communities=65000:7 large=- origin=incomplete stale=0"

# session KIND MODE: eBGP+MD5 (announcer shut down with a message) or iBGP (announcer stopped).
session() {
	local kind=$1 mode=$2 as=65000 extra=() want got
	if [[ $mode == ebgp ]]; then
		as=65001
		extra=(md5=s3cret)
	fi
	local desc="$kind $mode${extra:+ md5}"
	if ! spk 1 "$as" "${extra[@]}" || ! rtr "$kind" "$as" "${extra[@]}" kernel="$([[ $kind == gobgp ]] && echo 0 || echo 1)"; then
		ktap_test_fail "$desc: start"
		ktap_test_fail "$desc: not run"
		bgp_peers_stop
		return
	fi
	if ! bgp_wait_state 20 "$RTR" rtr Established || ! bgp_wait_state 20 "$RTR" rtr Established fd99:1::1 ||
		! bgp_wait_routes 10 "$RTR" rtr v4 1 || ! bgp_wait_routes 10 "$RTR" rtr v6 1; then
		echo "# state $(bgp_peer_state "$RTR" rtr), $(bgp_peer_state "$RTR" rtr fd99:1::1) (v6)"
		bgp_peer_routes "$RTR" rtr | sed 's/^/# /'
		ktap_test_fail "$desc: sessions up and routes received"
		ktap_test_fail "$desc: not run"
		bgp_peers_stop
		return
	fi
	if [[ $mode == ebgp ]]; then want="$ebgp4"$'\n'"$ebgp6"; else want="$ibgp4"$'\n'"$ibgp6"; fi
	got=$(bgp_peer_routes "$RTR" rtr)
	if [[ $kind != gobgp ]]; then
		# the kernel has both routes, via the announcer
		got+=$'\n'$(ip -n "$RTR" route show 192.0.2.1 | awk '{ for (i = 1; i < NF; i++) if ($i == "via") print "kernel " $(i + 1) }')
		got+=$'\n'$(ip -n "$RTR" -6 route show 2001:db8::1 | awk '{ for (i = 1; i < NF; i++) if ($i == "via") print "kernel " $(i + 1) }')
		want+=$'\n'"kernel 10.99.1.1"$'\n'"kernel fd99:1::1"
	fi
	expect "$desc: both sessions Established, the routes and their attributes read back" "$want" "$got"
	if [[ $mode == ebgp ]]; then
		bgp_peer_shutdown "$SPK1" spk "maintenance 42"
		if bgp_wait 20 __has_error "maintenance 42" && bgp_wait 10 __not_established; then
			ktap_test_pass "$desc: shutdown -> $(bgp_peer_state "$RTR" rtr); last error \"$(bgp_peer_last_error "$RTR" rtr)\""
		else
			ktap_test_fail "$desc: shutdown -> $(bgp_peer_state "$RTR" rtr); last error \"$(bgp_peer_last_error "$RTR" rtr)\""
		fi
	else
		bgp_peer_stop "$SPK1" spk
		if bgp_wait 10 __not_established && bgp_wait 5 __no_routes; then
			ktap_test_pass "$desc: announcer stopped -> $(bgp_peer_state "$RTR" rtr), routes gone"
		else
			ktap_test_fail "$desc: announcer stopped -> $(bgp_peer_state "$RTR" rtr), $(bgp_peer_routes "$RTR" rtr | wc -l) routes"
		fi
	fi
	bgp_peers_stop
}
__not_established() { [[ $(bgp_peer_state "$RTR" rtr) != Established ]]; }
__has_error() { [[ $(bgp_peer_last_error "$RTR" rtr) == *"$1"* ]]; }
__no_routes() { [[ -z $(bgp_peer_routes "$RTR" rtr) ]]; }

# kernel_nexthops NS [-6] PREFIX: the next hops of PREFIX's kernel route, sorted, on one line.
kernel_nexthops() {
	ip -n "$1" ${3:+"$2"} route show "${3:-$2}" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "via") print $(i + 1) }' | sort | tr '\n' ' '
}

# ecmp KIND: spk1 and spk2 (both AS 65000) announce the same prefixes; the peer installs both
# as next hops. Then spk1 is killed: its paths are held stale (graceful restart), and stay in
# the kernel.
ecmp() {
	local kind=$1 n want4="10.99.1.1 10.99.2.1 " want6="fd99:1::1 fd99:2::1 " ok=1
	local desc="$kind ECMP: both announcers are next hops in the kernel"
	if ! spk 1 65001 gr=1 || ! spk 2 65001 || ! rtr "$kind" 65001 two multipath=1 kernel=1 gr=1; then
		ktap_test_fail "$desc: start"
		ktap_test_fail "$kind graceful restart: not run"
		bgp_peers_stop
		return
	fi
	for n in 10.99.1.1 fd99:1::1 10.99.2.1 fd99:2::1; do
		bgp_wait_state 15 "$RTR" rtr Established "$n" || ok=0
	done
	if [[ $ok == 1 ]] && bgp_wait_routes 10 "$RTR" rtr v4 2 && bgp_wait_routes 10 "$RTR" rtr v6 2 &&
		bgp_wait 10 __nexthops_are "$want4" 192.0.2.1 && bgp_wait 10 __nexthops_are "$want6" -6 2001:db8::1; then
		ktap_test_pass "$desc: $(ip -n "$RTR" route show 192.0.2.1 | tr -s '\n\t ' ' ')"
	else
		bgp_peer_routes "$RTR" rtr | sed 's/^/# /'
		ip -n "$RTR" route show 192.0.2.1 | sed 's/^/# /'
		ip -n "$RTR" -6 route show 2001:db8::1 | sed 's/^/# /'
		ktap_test_fail "$desc"
		ok=0
	fi
	desc="$kind graceful restart: a killed announcer's paths are held stale, its next hops stay"
	bgp_peer_stop "$SPK1" spk KILL
	if [[ $ok == 1 ]] && bgp_wait 10 __stale_are "192.0.2.1/32 2001:db8::1/128 " &&
		[[ $(kernel_nexthops "$RTR" 192.0.2.1) == "$want4" ]]; then
		ktap_test_pass "$desc: $(bgp_peer_routes "$RTR" rtr v4 | awk '{ print $2, $NF }' | tr '\n' ' ')(state $(bgp_peer_state "$RTR" rtr))"
	else
		bgp_peer_routes "$RTR" rtr | sed 's/^/# /'
		ip -n "$RTR" route show 192.0.2.1 | sed 's/^/# /'
		ktap_test_fail "$desc (state $(bgp_peer_state "$RTR" rtr))"
	fi
	bgp_peers_stop
}
__nexthops_are() { [[ $(kernel_nexthops "$RTR" "${@:2}") == "$1" ]]; }

# gr KIND: a graceful-restart peer keeps the routes of a killed announcer (that advertised
# graceful restart) as stale.
gr() {
	local kind=$1 desc
	desc="$kind graceful restart: a killed announcer's routes are held stale"
	if ! spk 1 65001 gr=1 || ! rtr "$kind" 65001 gr=1 kernel="$([[ $kind == gobgp ]] && echo 0 || echo 1)"; then
		ktap_test_fail "$desc: start"
		bgp_peers_stop
		return
	fi
	if ! bgp_wait_state 20 "$RTR" rtr Established || ! bgp_wait_state 20 "$RTR" rtr Established fd99:1::1 ||
		! bgp_wait_routes 10 "$RTR" rtr v4 1 || ! bgp_wait_routes 10 "$RTR" rtr v6 1; then
		ktap_test_fail "$desc: sessions up and routes received"
		bgp_peers_stop
		return
	fi
	bgp_peer_stop "$SPK1" spk KILL
	if bgp_wait 10 __stale_are "192.0.2.1/32 2001:db8::1/128 "; then
		ktap_test_pass "$desc: $(bgp_peer_gr_stale "$RTR" rtr | tr '\n' ' ')(state $(bgp_peer_state "$RTR" rtr))"
	else
		bgp_peer_routes "$RTR" rtr | sed 's/^/# /'
		ktap_test_fail "$desc (state $(bgp_peer_state "$RTR" rtr))"
	fi
	bgp_peers_stop
}
__stale_are() { [[ $(bgp_peer_gr_stale "$RTR" rtr | sort | tr '\n' ' ') == "$1" ]]; }

# run_kind KIND: its cases, in a subshell writing to $BGP_TMP/out.KIND, results as "@@ok DESC"
# and "@@not ok DESC" lines.
run_kind() {
	local k=$1
	(
		ktap_test_pass() { echo "@@ok $*"; }
		ktap_test_fail() { echo "@@not ok $*"; }
		SPK1=SPK1_$k SPK1=${!SPK1} SPK2=SPK2_$k SPK2=${!SPK2} RTR=RTR_$k RTR=${!RTR}
		session "$k" ebgp
		session "$k" ibgp
		if [[ $k == gobgp ]]; then gr "$k"; else ecmp "$k"; fi
	) >"$BGP_TMP/out.$k" 2>&1
}
pids=()
for k in $KINDS; do
	run_kind "$k" &
	pids+=($!)
done
for i in "${!pids[@]}"; do
	wait "${pids[i]}"
done
for k in $KINDS; do
	while IFS= read -r line; do
		case $line in
		"@@ok "*) ktap_test_pass "${line#@@ok }" ;;
		"@@not ok "*) ktap_test_fail "${line#@@not ok }" ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <"$BGP_TMP/out.$k"
done
ktap_finished
