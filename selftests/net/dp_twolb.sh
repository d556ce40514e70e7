#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, two load balancers: two LB namespaces with identical configuration build the
# same Maglev tables and send the same flow (the same 5-tuple, from a fixed client port) to the
# same backend, so long-lived streams survive being moved mid-stream from one LB to the other
# (the router's VIP route is switched) and ECMP over both LBs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

dp_test_start 11 2 3

V4=$(dp_vip4 0)
V6=$(dp_vip6 0)
# weights 1:1:2, the same on both LBs
bes() { echo "backend $(dp_be"$1" 1) backend $(dp_be"$1" 2) backend $(dp_be"$1" 3) weight 2"; }
if ! out=$(dp_km_batch 0 2>&1 <<-EOF
	service add $V4:$DP_HTTP_PORT/tcp $(bes 4)
	service add $V4:$DP_STREAM_PORT/tcp $(bes 4)
	service add [$V6]:$DP_HTTP_PORT/tcp $(bes 6)
	service add [$V6]:$DP_STREAM_PORT/tcp $(bes 6)
	EOF
); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure both LBs" 1
	dp_test_end
fi

# --- the same tables -----------------------------------------------------------------------------
# digests N: "SERVICE DIGEST" for each table of LB N (kmaglev -j table show)
digests() { dp_kmj "$1" '.[] | "\(.table) \(.digest)"' table show; }
# spackets N SERVICE: the packets LB N balanced for SERVICE (kmaglev -j stats)
spackets() { dp_svc_stat "$1" "$2" .stats.packets; }
# LB 2 before it has carried anything
p40=$(spackets 2 "$V4:$DP_STREAM_PORT/tcp")
p60=$(spackets 2 "[$V6]:$DP_STREAM_PORT/tcp")
if dp_need_kmaglev "both LBs built the same 4 tables (digests)"; then
	TD1=$(digests 1)
	TD2=$(digests 2)
	if [[ -n $TD1 && $TD1 == "$TD2" && $(wc -l <<<"$TD1") -eq 4 ]]; then
		ktap_test_pass "both LBs built the same 4 tables ($(tr '\n' ';' <<<"$TD1" | sed 's/;$//; s/;/; /g'))"
	else
		echo "LB 1: $TD1" | sed 's/^/# /'
		echo "LB 2: $TD2" | sed 's/^/# /'
		ktap_test_fail "both LBs built the same 4 tables (digests)"
	fi
fi

# --- the same flow, the same backend, through either LB -------------------------------------------
# curl_ports PORTS: one curl per client port to V4: "LPORT NAME" lines (stops after 2 errors)
curl_ports() {
	local p body err=0
	for p in $1; do
		body=$(dp_cl curl -s --local-port "$p" --connect-timeout 3 --max-time 5 \
			"http://$V4:$DP_HTTP_PORT/")
		if [[ $body == "backend "* ]]; then
			echo "$p ${body#backend }"
		else
			echo "$p ERR"
			err=$((err + 1))
			[[ $err -lt 2 ]] || return 1
		fi
	done
}
# same_backend DESC N FILE1 FILE2 LB2DELTA: both passes answered in full and alike, and LB 2
# carried the second.
same_backend() {
	local desc=$1 n=$2 f1=$3 f2=$4 d=$5
	if ! dp_all_answered "$f1" "$n" || ! dp_all_answered "$f2" "$n"; then
		ktap_test_fail "$desc"
	elif ! cmp -s "$f1" "$f2"; then
		diff "$f1" "$f2" | head -n 10 | sed 's/^/# /'
		ktap_test_fail "$desc: the backends differ"
	elif [[ $d -lt $((3 * n)) ]]; then
		ktap_test_fail "$desc: LB 2 carried only $d packets"
	else
		ktap_test_pass "$desc: $n of $n alike ($(dp_tally "$f1" | tr '\n' ' ' | sed 's/ $//'))"
	fi
}

declare -A B=() A=()
PORTS4=$(seq 41000 41011)
curl_ports "$PORTS4" >"$DP_TMP/c1"
dp_http "$V6" --lports 42000-42039 >"$DP_TMP/h1" 2>&1
dp_vip_route 2
dp_snap_all B
curl_ports "$PORTS4" >"$DP_TMP/c2"
dp_snap_all A
same_backend "12 HTTP flows (curl --local-port) to $V4 reach the same backend through LB 1 and LB 2" \
	12 "$DP_TMP/c1" "$DP_TMP/c2" "$(dp_delta B A lb2/eth0:rx_packets)"
dp_snap_all B
dp_http "$V6" --lports 42000-42039 >"$DP_TMP/h2" 2>&1
dp_snap_all A
same_backend "40 HTTP flows from fixed ports to $V6 reach the same backend through LB 1 and LB 2" \
	40 "$DP_TMP/h1" "$DP_TMP/h2" "$(dp_delta B A lb2/eth0:rx_packets)"
dp_vip_route 1

# --- streams moved mid-stream: LB 1 -> LB 2 -> ECMP -> LB 1 --------------------------------------
dp_stream_start s4 "$V4" 10 --interval 0.2
dp_stream_start s6 "$V6" 10 --interval 0.2
ok=1
dp_stream_wait s4 || ok=0
dp_stream_wait s6 || ok=0
dp_snap_all B
dp_sleep 2
dp_vip_route 2
dp_sleep 4
dp_vip_route ecmp
dp_sleep 4
dp_vip_route 1
dp_sleep 2
dp_snap_all A
moved=$(dp_delta B A lb2/eth0:rx_packets)
for f in 4 6; do
	v=V$f
	if [[ $ok -eq 1 ]] && dp_stream_stop s$f && [[ $moved -ge 200 ]]; then
		ktap_test_pass "10 streams to ${!v} moved LB 1 -> LB 2 -> ECMP -> LB 1 mid-stream: no reset, every echo (LB 2 took $moved packets)"
	else
		ktap_test_fail "10 streams to ${!v} moved LB 1 -> LB 2 -> ECMP -> LB 1 mid-stream (LB 2 took $moved packets)"
	fi
done

# --- ECMP over both LBs: new flows ---------------------------------------------------------------
dp_vip_route ecmp
dp_snap_all B
dp_http "$V4" --count 60 >"$DP_TMP/e" 2>&1
dp_snap_all A
dp_vip_route 1
d1=$(dp_delta B A lb1/eth0:rx_packets)
d2=$(dp_delta B A lb2/eth0:rx_packets)
if dp_all_answered "$DP_TMP/e" 60 && [[ $d1 -gt 0 && $d2 -gt 0 ]]; then
	ktap_test_pass "ECMP over both LBs: 60 new flows answered (LB 1 $d1 packets, LB 2 $d2)"
else
	ktap_test_fail "ECMP over both LBs: 60 new flows answered (LB 1 $d1 packets, LB 2 $d2)"
fi

# --- LB 2 balanced the moved streams ----------------------------------------------------------
if dp_need_kmaglev "LB 2 counted the moved streams"; then
	p4=$(spackets 2 "$V4:$DP_STREAM_PORT/tcp")
	p6=$(spackets 2 "[$V6]:$DP_STREAM_PORT/tcp")
	if [[ -n $p4 && -n $p6 && $p4 -gt 0 && $p6 -gt 0 ]]; then
		ktap_test_pass "LB 2 counted the moved streams: $p4 packets (IPv4), $p6 (IPv6)"
	else
		ktap_test_fail "LB 2 counted the moved streams: ${p4:-no} packets (IPv4), ${p6:-no} (IPv6)"
	fi
fi
# The check above fails where LB 2 carried nothing: the same reads before the moves
if dp_need_kmaglev "before the moves LB 2 had counted nothing"; then
	if [[ $p40 == 0 && $p60 == 0 ]]; then
		ktap_test_pass "before the moves LB 2 had counted nothing: ${p40} packets (IPv4), ${p60} (IPv6)"
	else
		ktap_test_fail "before the moves LB 2 had counted nothing: ${p40:-no} packets (IPv4), ${p60:-no} (IPv6)"
	fi
fi
# The digest comparison sees a different table: b3 at weight 1 in LB 2's IPv4 HTTP service
# (only now: a table change gives LB 2 a previous table, which for 30 s sends the packets of
# flows it does not know), then weight 2 again
if dp_need_kmaglev "the digest comparison sees a changed table"; then
	s="$V4:$DP_HTTP_PORT/tcp"
	dp_km 2 backend set "$s" "$(dp_be4 3)" weight 1
	dx=$(digests 2)
	dp_km 2 backend set "$s" "$(dp_be4 3)" weight 2
	dy=$(digests 2)
	if [[ -n $dx && $dx != "$TD1" && $dy == "$TD1" ]]; then
		ktap_test_pass "the digest comparison sees a changed table: b3 at weight 1 in LB 2 ($(grep -F "$s " <<<"$dx")), then at weight 2 again: LB 1's"
	else
		{ echo "LB 1: $TD1"; echo "LB 2, b3 at weight 1: $dx"; echo "LB 2, weight 2 again: $dy"; } |
			sed 's/^/# /'
		ktap_test_fail "the digest comparison sees a changed table"
	fi
fi

dp_test_end
