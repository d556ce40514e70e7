#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Criticality-aware load shedding (config dscp-map, shed-*; service criticality, overload). One
# LB, two backends; SYNs from spoofed sources (selftests/tools/synflood, with a TOS byte: EF
# critical-plus, CS1 sheddable, unmarked the service's class, critical) and 5 long-lived
# streams opened first.
# - Connection table over shed-conn-fill: every CS1 SYN is shed (shed-conn-fill), every EF and
#   unmarked one is let through; the streams keep every echo (established flows never shed).
# - A service overloaded (overload on, as the daemon sets it from utilization): CS1 shed
#   (shed-util), EF not; with criticality sheddable, unmarked flows are shed too; IPv6 too,
#   the class from the traffic class.
# - shed-new-rate: CS1 SYNs over the rate are shed while EF ones at the same time all pass.
# - The load signal: a pktgen flood raises the host's softirq load; with levels set between
#   the idle and the flooded load, shedding starts during the flood and stops after it: two
#   transitions, no flapping, and CS1 SYNs shed meanwhile (shed-load).
# The backends' SYN-ACKs to the spoofed sources die in a blackhole route on the router.
#
#   selftests/vm/run --kernel stock -- selftests/net/run_tests.sh dp_shed dp_shed@ingress
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

SYNFLOOD=$KMG_TOP/build/tools/synflood
CMAX=1000
EF=0xb8 CS1=0x20
dp_standin && ktap_skip_all "load shedding is kmaglev's own (no stand-in)"

dp_test_start 15 1 2

V=$(dp_vip4 0)
SVC="$V:$DP_HTTP_PORT/tcp"
bes="backend $(dp_be4 1) backend $(dp_be4 2)"
if [[ ! -x $SYNFLOOD ]]; then
	dp_fail_rest "$SYNFLOOD is not built (make -C selftests/tools)" 1
	dp_test_end
fi
if ! out=$({ dp_km_batch 1 <<-EOF
	config set conn-max $CMAX timeout-tcp-syn 2m dscp-map ef=critical-plus,cs1=sheddable shed-class sheddable
	service add $SVC $bes
	service add $V:$DP_STREAM_PORT/tcp $bes
	EOF
	} 2>&1 && ip -n "$DP_RT" route add blackhole 100.64.0.0/10 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "dscp-map ef=critical-plus,cs1=sheddable, shed-class sheddable, conn-max $CMAX; the spoofed sources 100.64.0.0/10 blackholed"

# syns TOS NET N [PPS]: N SYNs to the service from NET.1-50, each a new 5-tuple
SPORT=1024
syns() {
	local out
	out=$(ip netns exec "$DP_CL" "$SYNFLOOD" -d "$V" -p "$DP_HTTP_PORT" -s "$2.1" -n 50 \
		-c "$3" -P $SPORT -t "$1" ${4:+-r "$4"} 2>&1) || echo "# $out" >&2
	SPORT=$((SPORT + $3 / 50 + 1))
}
newflows() { dp_svc_stat 1 "$SVC" '.stats."new-flows"'; }
shedding() { dp_kmj 1 '.shedding | if type == "array" then join(",") else . end' config show; }
# check DESC G0 G1 NF0 NF1 COUNTER SHED PASSED: COUNTER grew by SHED, new flows by PASSED
check() {
	local d="$1: $6 +$(dp_gdelta "$2" "$3" "$6"), new flows +$(($5 - $4))"
	if [[ $(dp_gdelta "$2" "$3" "$6") -eq $7 && $(($5 - $4)) -eq $8 ]]; then
		ktap_test_pass "$d"
	else
		ktap_test_fail "$d (want +$7, +$8)"
	fi
}

dp_stream_start s "$V" 5 --interval 0.5
dp_stream_wait s 120 || ktap_print_msg "the streams did not start"

# --- the connection table over shed-conn-fill ---------------------------------------------------
g0=$(dp_gstats 1) nf0=$(newflows)
syns $CS1 100.64.5 100
g1=$(dp_gstats 1) nf1=$(newflows)
check "under shed-conn-fill 50 (not set yet), 100 CS1 SYNs" "$g0" "$g1" "$nf0" "$nf1" shed-conn-fill 0 100
dp_km 1 config set shed-conn-fill 50
syns 0 100.64.1 500
n=$(dp_kmj 1 .conns config show) sh=$(shedding)
ktap_test_result "shed-conn-fill 50: $n entries of $CMAX, shedding: $sh" \
	eval '[[ $n -gt $((CMAX / 2)) && $sh == *conn-fill* ]]'
g0=$(dp_gstats 1) nf0=$(newflows)
syns $CS1 100.64.6 200
g1=$(dp_gstats 1) nf1=$(newflows)
check "table over 50%: 200 CS1 (sheddable) SYNs" "$g0" "$g1" "$nf0" "$nf1" shed-conn-fill 200 0
syns $EF 100.64.7 200
syns 0 100.64.8 200
g2=$(dp_gstats 1) nf2=$(newflows)
check "table over 50%: 200 EF (critical-plus) and 200 unmarked (critical) SYNs" "$g1" "$g2" "$nf1" "$nf2" shed-conn-fill 0 400
if dp_stream_alive s; then
	ktap_test_pass "the 5 streams established before kept going"
else
	ktap_test_fail "the 5 streams established before kept going"
fi
dp_km 1 config set shed-conn-fill 0

# --- the service overloaded -----------------------------------------------------------------------
dp_km 1 service set "$SVC" overload on
g0=$(dp_gstats 1) nf0=$(newflows)
syns $CS1 100.64.9 100
syns $EF 100.64.10 100
g1=$(dp_gstats 1) nf1=$(newflows)
check "overload on: 100 CS1 and 100 EF SYNs" "$g0" "$g1" "$nf0" "$nf1" shed-util 100 100
dp_km 1 service set "$SVC" criticality sheddable
syns 0 100.64.11 100
g2=$(dp_gstats 1) nf2=$(newflows)
check "overload on, criticality sheddable: 100 unmarked SYNs" "$g1" "$g2" "$nf1" "$nf2" shed-util 100 0
dp_km 1 service set "$SVC" overload off criticality critical

# IPv6: the class from the traffic class (a client's TCP connects with IPV6_TCLASS set)
V6=$(dp_vip6 0)
SVC6="$(dp_hostport "$V6" "$DP_HTTP_PORT")/tcp"
# connect6 TCLASS: "connected" or "timed out" (2 s: a shed SYN gets no answer)
connect6() {
	ip netns exec "$DP_CL" "$DP_PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, int(sys.argv[2], 0))
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[3])))
    print("connected")
except OSError:
    print("timed out")' "$V6" "$1" "$DP_HTTP_PORT"
}
if dp_km 1 service add "$SVC6" overload on backend "$(dp_be6 1)" >/dev/null; then
	g0=$(dp_gstats 1)
	r="CS1 $(connect6 $CS1), EF $(connect6 $EF)"
	g1=$(dp_gstats 1)
	d="IPv6, overload on: $r, shed-util +$(dp_gdelta "$g0" "$g1" shed-util)"
	if [[ $r == "CS1 timed out, EF connected" && $(dp_gdelta "$g0" "$g1" shed-util) -ge 1 ]]; then
		ktap_test_pass "$d"
	else
		ktap_test_fail "$d (want CS1 shed, EF through)"
	fi
	dp_km 1 service del "$SVC6"
else
	ktap_test_fail "IPv6, overload on: add $SVC6"
fi

# --- new flows over shed-new-rate -------------------------------------------------------------------
dp_km 1 config set shed-new-rate 100
g0=$(dp_gstats 1) nf0=$(newflows)
syns $CS1 100.64.12 800 400 &
pid=$!
syns $EF 100.64.13 200 100
wait $pid
g1=$(dp_gstats 1) nf1=$(newflows)
# EF alone, still over the rate: none shed
syns $EF 100.64.16 300 300
g2=$(dp_gstats 1) nf2=$(newflows)
s=$(dp_gdelta "$g0" "$g1" shed-new-rate) s2=$(dp_gdelta "$g1" "$g2" shed-new-rate)
d="shed-new-rate 100: 800 CS1 SYNs at 400/s with 200 EF at 100/s: shed-new-rate +$s, new flows +$((nf1 - nf0)); then 300 EF at 300/s: +$s2, new flows +$((nf2 - nf1))"
if [[ $s -ge 400 && $s -le 800 && $((nf1 - nf0 + s)) -eq 1000 && $s2 -eq 0 && $((nf2 - nf1)) -eq 300 ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d (want 400-800 shed, then none: EF is never shed)"
fi
dp_km 1 config set shed-new-rate 0

# --- the load signal --------------------------------------------------------------------------------
# pktgen in the client's netns, one thread per CPU (the load is an average over the CPUs, and
# veth keeps a sender's softirq work on its CPU): 64-byte UDP to the VIP's port 9 (no service:
# passed to the LB's stack), as fast as it goes; every packet crosses the router and the LB
PG=/proc/net/pktgen
pg_start() {
	local mac
	ip netns exec "$DP_CL" ping -c1 -W2 "$DP_RT_CL4" >/dev/null 2>&1
	mac=$(ip -n "$DP_CL" neigh show "$DP_RT_CL4" | awk '{ print $5; exit }')
	ip netns exec "$DP_CL" bash -c '
		PG=/proc/net/pktgen
		for t in $PG/kpktgend_*; do
			i=${t##*_}
			echo rem_device_all >$t && echo "add_device eth0@$i" >$t || exit 1
			for c in "count 0" "pkt_size 64" "dst $1" "dst_mac $2" "udp_dst_min 9" \
				"udp_dst_max 9"; do echo "$c" >"$PG/eth0@$i" || exit 1; done
		done' - "$V" "$mac" || return 1
	ip netns exec "$DP_CL" bash -c 'echo start >/proc/net/pktgen/pgctrl' &
	PGPID=$!
}
pg_stop() {
	ip netns exec "$DP_CL" bash -c 'echo stop >/proc/net/pktgen/pgctrl' 2>/dev/null
	wait "$PGPID" 2>/dev/null
}
load() { dp_kmj 1 .load config show; }
# loadmed N: the median of N reads of the load, 0.3 s apart
loadmed() {
	local i
	for ((i = 0; i < $1; i++)); do load; dp_sleep 0.3; done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
trans() { dp_kmj 1 '."shed-transitions"' config show; }
load_case() {
# measure with levels nothing reaches, idle and then flooded (medians: single reads jump
# when the emulated CPU stalls)
dp_km 1 config set shed-load-high 1000 shed-load-low 999
dp_sleep 3
L0=$(loadmed 5)
pg_start || ktap_print_msg "pktgen did not start"
dp_sleep 4
L1=$(loadmed 5)
t0=$(trans)
ktap_test_result "the load signal: $L0 per mille idle, $L1 under a pktgen flood on every CPU" \
	eval '[[ $L0 =~ ^[0-9]+$ && $L1 =~ ^[0-9]+$ && $L1 -ge $((L0 + 150)) ]]'
# levels between the two: on at half way up, off at a fifth (a wide band: no flapping)
HIGH=$((L0 + (L1 - L0) / 2)) LOW=$((L0 + (L1 - L0) / 5))
dp_km 1 config set shed-load-high $HIGH shed-load-low $LOW
on=0
for ((i = 0; i < 20; i++)); do
	[[ $(shedding) == *load* ]] && { on=1; break; }
	dp_sleep 0.5
done
# settled G0 NF0 N: wait (10 s at most) until N SYNs sent since G0/NF0 are counted, shed or
# new flows: under the flood they wait in the backlog for a while (some may be lost)
settled() {
	local i g
	for ((i = 0; i < 20; i++)); do
		g=$(dp_gstats 1)
		(($(dp_gdelta "$1" "$g" shed-load) + $(newflows) - $2 >= $3)) && break
		dp_sleep 0.5
	done
}
g0=$(dp_gstats 1) nf0=$(newflows)
syns $CS1 100.64.14 50
settled "$g0" "$nf0" 50
g1=$(dp_gstats 1) nf1=$(newflows)
syns $EF 100.64.15 50
settled "$g1" "$nf1" 50
g2=$(dp_gstats 1) nf2=$(newflows)
pg_stop
off=0
for ((i = 0; i < 30; i++)); do
	[[ $(shedding) != *load* ]] && { off=1; break; }
	dp_sleep 0.5
done
dp_sleep 2
L2=$(load) t1=$(trans)
s1=$(dp_gdelta "$g0" "$g1" shed-load) s2=$(dp_gdelta "$g1" "$g2" shed-load)
d="levels $HIGH/$LOW per mille: shedding by load $( ((on)) && echo started || echo "did not start"); 50 CS1 SYNs: shed-load +$s1, new flows +$((nf1 - nf0)); 50 EF: shed-load +$s2, new flows +$((nf2 - nf1)); after the flood $( ((off)) && echo stopped || echo "did not stop") (load $L2); transitions +$((t1 - t0))"
if ((on && off)) && [[ $s1 -ge 10 && $((nf1 - nf0)) -eq 0 && $s2 -eq 0 && $((nf2 - nf1)) -ge 10 &&
			 $((t1 - t0)) -eq 2 ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d (want: started, CS1 shed and EF through, stopped, 2 transitions)"
fi
dp_km 1 config set shed-load-high 0 shed-load-low 0
}
# the streams end before the flood: on a guest whose one CPU pktgen saturates (the router,
# LB, backends and client all share it), echoes wait on the CPU, not on kmaglev
if dp_stream_stop s; then
	ktap_test_pass "5 streams: every echo through every signal but the load"
else
	ktap_test_fail "5 streams: every echo through every signal but the load"
fi
# (the kernel's default backlog: a SYN waits behind at most that many flood packets; some
# are dropped, and each that arrives counts)
if [[ -d $PG ]] || modprobe pktgen 2>/dev/null; then
	load_case
else
	ktap_test_skip "the load signal: no pktgen"
	ktap_test_skip "shedding by load: no pktgen"
fi
dp_test_end
