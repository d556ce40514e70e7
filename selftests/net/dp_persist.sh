#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, persistence: 30 long-lived TCP streams (a line every 200 ms, every echo checked)
# live through a backend being added, one drained and one deleted, with no reset and no lost
# echo, while new flows follow the new backend set. A deleted backend keeps its flows by
# default and loses them to other backends with the service's resched flag (UDP flows from
# fixed client ports, so that the backend that answers each flow can be compared).
#
# Chances: with 3 equal backends, 30 streams leave one without a stream with probability
# 3 * (2/3)^30 (2e-5); 60 UDP flows leave b3 without one with probability (2/3)^60; 60 new
# flows miss an added fourth backend with probability (3/4)^60.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

dp_test_start 12 1 4

V=$(dp_vip4 0)
VR=$(dp_vip4 1)		# the UDP service with flags resched
B() { dp_be4 "$1"; }
S7000="$V:$DP_STREAM_PORT/tcp"
S80="$V:$DP_HTTP_PORT/tcp"
bes="backend $(B 1) backend $(B 2) backend $(B 3)"
if ! out=$(dp_km_batch 1 2>&1 <<-EOF
	config set timeout-udp 1h
	service add $S7000 $bes
	service add $S80 $bes
	service add $V:$DP_UDP_PORT/udp $bes
	service add $VR:$DP_UDP_PORT/udp flags resched $bes
	EOF
); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure the services" 1
	dp_test_end
fi

# every stream still running: "ok", else why not
streams_ok() {
	if dp_stream_alive s; then
		return 0
	fi
	echo "# the streams failed:"
	sed 's/^/#   /' "$DP_TMP/s.log"
	return 1
}

# newflows DESC RULE: 60 new HTTP flows to $V, all answered, while the streams run; RULE is
# "with bN" (bN answers some) or "without bN" (bN answers none).
newflows() {
	local desc=$1 rule=$2 who=${2#* } n
	dp_http "$V" --count 60 >"$DP_TMP/new" 2>&1
	n=$(awk -v b="$who" '$2 == b' "$DP_TMP/new" | wc -l)
	if ! dp_all_answered "$DP_TMP/new" 60; then
		ktap_test_fail "$desc: 60 new flows answered"
	elif ! streams_ok; then
		ktap_test_fail "$desc: the streams run on"
	elif [[ $rule == without* && $n -ne 0 ]] || [[ $rule == "with "* && $n -eq 0 ]]; then
		echo "# $(dp_tally "$DP_TMP/new" | tr '\n' ' ')"
		ktap_test_fail "$desc: 60 new flows, $n to $who"
	else
		ktap_test_pass "$desc: 60 new flows answered, $n to $who ($(dp_tally "$DP_TMP/new" | tr '\n' ' '| sed 's/ $//'))"
	fi
}

# b1conns: the connection entries of b1 in the stream service (kmaglev -j stats); nothing if
# they cannot be read
b1conns() { dp_svc_stat 1 "$S7000" ".backends[] | select(.backend == \"$(B 1)\") | .stats.conns"; }
# (before any stream)
c10=$(b1conns)

# --- 30 streams over b1..b3 ----------------------------------------------------------------
dp_stream_start s "$V" 30 --interval 0.2
if dp_stream_wait s && [[ $(awk '{ print $2 }' "$DP_TMP/s.info" | sort -u | wc -l) -eq 3 ]]; then
	ktap_test_pass "30 streams connected: $(dp_tally "$DP_TMP/s.info" | tr '\n' ' ')"
else
	ktap_test_fail "30 streams connected, on each of b1, b2, b3"
fi
n1=$(awk '$2 == "b1"' "$DP_TMP/s.info" | wc -l)
n2=$(awk '$2 == "b2"' "$DP_TMP/s.info" | wc -l)

# --- UDP flows from fixed ports, to the default and the resched service ---------------------
PORTS=45000-45059
dp_udp "$V" --lports $PORTS >"$DP_TMP/u0" 2>&1
dp_udp "$VR" --lports $PORTS >"$DP_TMP/r0" 2>&1
if dp_all_answered "$DP_TMP/u0" 60 && dp_all_answered "$DP_TMP/r0" 60 &&
   grep -q ' b3$' "$DP_TMP/u0" && grep -q ' b3$' "$DP_TMP/r0"; then
	ktap_test_pass "60 UDP flows to each of $VR and $V answered, some by b3"
else
	ktap_test_fail "60 UDP flows to each of $VR and $V answered, some by b3"
fi

# --- add, drain, delete -------------------------------------------------------------------------
# change DESC RULE CMD...: CMD for the stream and the HTTP service, then newflows
change() {
	local desc=$1 rule=$2 out
	shift 2
	if ! out=$(dp_km 1 "${@:1:2}" "$S7000" "${@:3}" 2>&1 &&
		   dp_km 1 "${@:1:2}" "$S80" "${@:3}" 2>&1); then
		echo "$out" | sed 's/^/# /'
		ktap_test_fail "$desc: kmaglev $*"
		return
	fi
	newflows "$desc" "$rule"
}
change "backend b4 added" "with b4" backend add "$(B 4)"
change "backend b1 drained" "without b1" backend drain "$(B 1)"
if dp_need_kmaglev "the drained b1 keeps its connection entries"; then
	c1=$(b1conns)
	if [[ $n1 -gt 0 && -n $c1 && $c1 -ge $n1 ]]; then
		ktap_test_pass "the drained b1 keeps its connection entries: $c1 for its $n1 streams"
	else
		dp_km 1 stats "$S7000" | sed 's/^/# /'
		ktap_test_fail "the drained b1 keeps its connection entries: ${c1:-none} for its $n1 streams"
	fi
fi
# the check above fails where b1 has no entries: before the streams
if dp_need_kmaglev "before the streams b1 had no entry"; then
	if [[ $c10 == 0 && $n1 -gt 0 ]]; then
		ktap_test_pass "before the streams b1 had no entry: $c10 (the check of $n1 fails on it)"
	else
		ktap_test_fail "before the streams b1 had no entry: ${c10:-none}, want 0 (and b1 with streams: $n1)"
	fi
fi
change "backend b2 deleted" "without b2" backend del "$(B 2)"
dp_sleep 2
if dp_stream_stop s; then
	ktap_test_pass "30 streams ($n1 on the drained b1, $n2 on the deleted b2) lived through add, drain and delete: no reset, every echo"
else
	ktap_test_fail "30 streams ($n1 on the drained b1, $n2 on the deleted b2) lived through add, drain and delete"
fi

# --- a deleted backend's flows: kept by default, moved with resched --------------------------
dp_km 1 backend del "$V:$DP_UDP_PORT/udp" "$(B 3)"
dp_km 1 backend del "$VR:$DP_UDP_PORT/udp" "$(B 3)"
dp_udp "$V" --lports $PORTS >"$DP_TMP/u1" 2>&1
dp_udp "$VR" --lports $PORTS >"$DP_TMP/r1" 2>&1
if ! dp_all_answered "$DP_TMP/u0" 60 || ! dp_all_answered "$DP_TMP/u1" 60; then
	ktap_test_fail "b3 deleted: every flow to $V keeps its backend"
elif ! out=$(diff "$DP_TMP/u0" "$DP_TMP/u1"); then
	echo "$out" | head -n 20 | sed 's/^/# /'
	ktap_test_fail "b3 deleted: every flow to $V keeps its backend"
elif ! grep -q ' b3$' "$DP_TMP/u1"; then
	ktap_test_fail "b3 deleted: every flow to $V keeps its backend (none was on b3)"
else
	ktap_test_pass "b3 deleted: its flows to $V stay on b3 ($(grep -c ' b3$' "$DP_TMP/u1") flows), all 60 flows keep their backend"
fi
if dp_need_kmaglev "b3 deleted: with resched, its flows to $VR move, the others stay"; then
	out=$(paste -d' ' "$DP_TMP/r0" "$DP_TMP/r1" | awk '
	$1 != $3 || $2 !~ /^b[0-9]+$/ { print "bad line:", $0; bad = 1; next }
	$2 == "b3" { moved++; if ($4 == "b3" || $4 !~ /^b[0-9]+$/) { print $1, $2, "->", $4; bad = 1 } ; next }
	$2 != $4 { print $1, $2, "->", $4; bad = 1 }
	END { print moved + 0, "moved"; exit bad || NR != 60 || !moved }')
	if [[ $? -eq 0 ]]; then
		ktap_test_pass "b3 deleted: with resched, its flows to $VR move ($(tail -n 1 <<<"$out")), the others stay"
	else
		echo "$out" | head -n 20 | sed 's/^/# /'
		ktap_test_fail "b3 deleted: with resched, its flows to $VR move, the others stay"
	fi
fi

dp_test_end
