#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-source new-flow quotas (config quota-*; kmaglev quota show). One LB, two backends.
#
# - Isolation: 20 sources under quota open new flows (SYNs from selftests/tools/synflood, 20/s
#   each, 5 s) alone, then again while a hostile source opens them at 10x its quota
#   (quota-rate 50: 500/s). The 20 sources' accepted new flows may not move by more than 5%;
#   the hostile source gets its burst and its rate, no more; the counters add up: kmaglev quota
#   show's accepted and rejected, the global quota-drop, the service's new flows.
# - Established flows are never checked: streams opened before a quota of 1 new flow a second
#   keep every echo while the client's further connections are refused.
# - quota-action rst answers a refused SYN with a RST (the client's connect fails at once), at
#   the quota's rate at most (the next SYN is dropped); drop leaves it to time out.
# - Prefixes: two IPv6 clients in one /64 share a bucket; with quota-prefix6 128, one each.
# - quota show sorts the heaviest source first; a settings change empties the table.
# The backends' SYN-ACKs to the spoofed sources die in a blackhole route on the router.
#
#   selftests/vm/run --kernel stock -- selftests/net/run_tests.sh dp_quota dp_quota@ingress
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

SYNFLOOD=$KMG_TOP/build/tools/synflood
RATE=50			# quota-rate: new flows per second per source
SECS=5			# each phase's length
NGOOD=20		# sources under quota, each at GOOD_PPS
GOOD_PPS=20
dp_standin && ktap_skip_all "per-source quotas are kmaglev's own (no stand-in)"

dp_test_start 13 1 2

V=$(dp_vip4 0)
V6=$(dp_vip6 0)
bes="backend $(dp_be4 1) backend $(dp_be4 2)"
if [[ ! -x $SYNFLOOD ]]; then
	dp_fail_rest "$SYNFLOOD is not built (make -C selftests/tools)" 1
	dp_test_end
fi
if ! out=$({ dp_km_batch 1 <<-EOF
	config set quota-rate $RATE quota-burst $RATE quota-prefix4 32 quota-action drop
	service add $V:$DP_HTTP_PORT/tcp $bes
	service add $V:$DP_STREAM_PORT/tcp $bes
	service add $(dp_hostport "$V6" "$DP_HTTP_PORT")/tcp backend $(dp_be6 1)
	EOF
	} 2>&1 && ip -n "$DP_RT" route add blackhole 100.64.0.0/10 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "quota-rate $RATE quota-burst $RATE, services on b1-b2; the spoofed sources 100.64.0.0/10 blackholed"

# qsum SNAPSHOT JQ-SELECT FIELD: the sum of FIELD over the buckets JQ-SELECT picks in a
# "quota show -j" snapshot. Snapshots are taken right after each phase: buckets idle for 10 s
# go (the GC), and a loaded debug kernel takes seconds per CLI call.
qsum() { kmg_jq "[.[] | select($2) | .\"$3\"] | add // 0" <<<"$1"; }
HOST='.prefix == "100.64.9.1/32"'
# good NET SPORT: the sources under quota, NET.1-20, GOOD_PPS new flows a second each, for SECS
# (phase A's from 100.64.1.0/24, phase B's from 100.64.2.0/24: each phase's buckets its own)
good() {
	ip netns exec "$DP_CL" "$SYNFLOOD" -d "$V" -p "$DP_HTTP_PORT" -s "$1.1" -n $NGOOD \
		-c $((NGOOD * GOOD_PPS * SECS)) -r $((NGOOD * GOOD_PPS)) -P "$2"
}
hostile() {
	ip netns exec "$DP_CL" "$SYNFLOOD" -d "$V" -p "$DP_HTTP_PORT" -s 100.64.9.1 -n 1 \
		-c $((10 * RATE * SECS)) -r $((10 * RATE)) -P 2000
}
BACKLOG=$(sysctl -n net.core.netdev_max_backlog)
sysctl -qw net.core.netdev_max_backlog=65536

# --- isolation ---------------------------------------------------------------------------------
g0=$(dp_gstats 1)
nf0=$(dp_svc_stat 1 "$V:$DP_HTTP_PORT/tcp" '.stats."new-flows"')
out=$(good 100.64.1 10000 2>&1)
snap=$(dp_km 1 -j quota show)
A=$(qsum "$snap" '.prefix | startswith("100.64.1.")' accepted)
AR=$(qsum "$snap" '.prefix | startswith("100.64.1.")' rejected)
SENT=$((NGOOD * GOOD_PPS * SECS))
if [[ $A -ge $((SENT * 95 / 100)) && $AR -eq 0 ]]; then
	ktap_test_pass "alone: $NGOOD sources at $GOOD_PPS/s: $A of $SENT new flows accepted, $AR rejected (${out#synflood: })"
else
	ktap_test_fail "alone: $NGOOD sources at $GOOD_PPS/s: $A of $SENT new flows accepted (want >= 95%), $AR rejected (want 0) (${out#synflood: })"
fi
g1=$(dp_gstats 1)
t0=$SECONDS
hostile >"$DP_TMP/hostile" 2>&1 &
hpid=$!
out=$(good 100.64.2 20000 2>&1)
wait $hpid
hdur=$((SECONDS - t0))
snap=$(dp_km 1 -j quota show)
top3=$(dp_km 1 -j quota show top 3)
B=$(qsum "$snap" '.prefix | startswith("100.64.2.")' accepted)
BR=$(qsum "$snap" '.prefix | startswith("100.64.2.")' rejected)
HA=$(qsum "$snap" "$HOST" accepted) HR=$(qsum "$snap" "$HOST" rejected)
g2=$(dp_gstats 1)
nf2=$(dp_svc_stat 1 "$V:$DP_HTTP_PORT/tcp" '.stats."new-flows"')
d="with a source at 10x quota: the $NGOOD sources' accepted new flows $A alone, $B now"
if [[ $B -ge $((A * 95 / 100)) && $B -le $((A * 105 / 100)) && $BR -eq 0 ]]; then
	ktap_test_pass "$d ($((B * 1000 / A - 1000)) per mille), $BR rejected"
else
	ktap_test_fail "$d (want within 5%), $BR rejected (want 0)"
fi
# the hostile source: the burst, then RATE a second for the flood's length (at most hdur)
HMAX=$((RATE + RATE * (hdur + 1)))
d="the hostile source: $HA accepted, $HR rejected of $((10 * RATE * SECS)) in ${hdur}s ($(sed 's/^synflood: //' "$DP_TMP/hostile"))"
if [[ $HA -ge $RATE && $HA -le $HMAX && $HR -ge $((10 * RATE * SECS / 2)) ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d: want $RATE..$HMAX accepted and most rejected"
fi
qd=$(dp_gdelta "$g1" "$g2" quota-drop)
d="counters: quota-drop +$qd, the service's new flows +$((nf2 - nf0)), quota show: $((A + B + HA)) accepted, $HR rejected"
if [[ $qd -eq $HR && $((nf2 - nf0)) -eq $((A + B + HA)) &&
      $(dp_gdelta "$g0" "$g2" quota-untracked) -eq 0 ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d: want quota-drop = rejected, new flows = accepted, quota-untracked 0"
fi
top=$(kmg_jq '.[0].prefix' <<<"$top3")
n=$(kmg_jq 'length' <<<"$top3")
if [[ $top == 100.64.9.1/32 && $n -eq 3 ]]; then
	ktap_test_pass "quota show: the hostile source first, top 3 lists 3"
else
	ktap_test_fail "quota show: the hostile source first ($top), top 3 lists 3 ($n)"
	echo "$top3" | sed 's/^/# /'
fi
sysctl -qw net.core.netdev_max_backlog="$BACKLOG"

# --- established flows, rst and drop -----------------------------------------------------------
# connects N: N connections to the VIP at once from the client (bash's /dev/tcp, no process
# per connection), held open; prints "ok" or the error of each
connects() {
	ip netns exec "$DP_CL" bash -c '
		for ((i = 0; i < $1; i++)); do
			if exec {fd}<>"/dev/tcp/$2/$3"; then echo ok; else echo refused; fi
		done 2>/dev/null' - "$1" "$V" "$DP_HTTP_PORT"
}
dp_stream_start s "$V" 5 --interval 0.5
dp_stream_wait s 120 || ktap_print_msg "the streams did not start"
# (quota-rate 0 first: only a new prefix, scope or quota-rate 0 empties the table; the client
# opened the streams from its bucket)
dp_km 1 config set quota-rate 0
if ! out=$(dp_km 1 config set quota-rate 1 quota-burst 1 quota-action rst 2>&1) &&
	[[ $out == *CONFIG_NF_REJECT* ]]; then
	# (the debug kernel's config has no nf_reject: the extack error says so)
	dp_km 1 config set quota-rate 1 quota-burst 1
	ktap_test_skip "quota-action rst: this kernel has no nf_reject ($(head -n1 <<<"$out"))"
elif [[ -z $out && $(dp_kmj 1 .quotas config show) -eq 0 ]]; then
	g0=$(dp_gstats 1)
	t0=$SECONDS
	# the first over quota gets a RST, the next (RSTs come at the quota's rate too) none
	r=$({ connects 2; ip netns exec "$DP_CL" timeout 0.9 bash -c \
		'exec {b}<>"/dev/tcp/$1/$2" && echo connected' - "$V" "$DP_HTTP_PORT" 2>/dev/null ||
		echo "timed out"; } | tr '\n' ' ')
	g1=$(dp_gstats 1)
	d="quota-action rst, 1/s: 3 connects at once: $r in $((SECONDS - t0))s, quota-rst +$(dp_gdelta "$g0" "$g1" quota-rst), quota-drop +$(dp_gdelta "$g0" "$g1" quota-drop)"
	if [[ $r == "ok refused timed out " && $(dp_gdelta "$g0" "$g1" quota-rst) -eq 1 &&
	      $(dp_gdelta "$g0" "$g1" quota-drop) -ge 1 ]]; then
		ktap_test_pass "$d"
	else
		ktap_test_fail "$d (want ok refused timed out, +1, +1)"
	fi
else
	echo "$out" | sed 's/^/# /'
	ktap_test_fail "quota-rate 1 quota-action rst (the table emptied)"
fi
dp_km 1 config set quota-rate 0 && dp_km 1 config set quota-rate 1 quota-burst 1 quota-action drop
g0=$(dp_gstats 1)
r=$(ip netns exec "$DP_CL" bash -c '
	exec {a}<>"/dev/tcp/$1/$2" && echo ok
	timeout 0.9 bash -c "exec {b}<>/dev/tcp/$1/$2" && echo connected || echo "timed out"' - "$V" "$DP_HTTP_PORT" |
	tr '\n' ' ')
g1=$(dp_gstats 1)
d="quota-action drop: 2 connects: $r, quota-drop +$(dp_gdelta "$g0" "$g1" quota-drop)"
if [[ $r == "ok timed out " && $(dp_gdelta "$g0" "$g1" quota-drop) -ge 1 ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d (want ok, timed out)"
fi
# the streams' client is over quota all this while: its established flows never were checked
if dp_stream_alive s && dp_stream_stop s; then
	ktap_test_pass "5 streams established before the quota kept every echo"
else
	ktap_test_fail "5 streams established before the quota kept every echo"
fi

# --- IPv6 prefixes ------------------------------------------------------------------------------
# v6buckets PREFIXLEN: two clients of 2001:db8:c::/64 fetch once each; the buckets quota show has
v6buckets() {
	dp_km 1 config set quota-rate 100 quota-prefix6 "$1" >/dev/null || return 1
	for a in "$DP_CL6" 2001:db8:c::3; do
		ip netns exec "$DP_CL" curl -s -g --max-time 10 --interface "$a" \
			"http://[$V6]:$DP_HTTP_PORT/" >/dev/null || return 1
	done
	dp_kmj 1 '[.[] | select(.prefix | contains(":")) | "\(.prefix)=\(.accepted)"] | join(" ")' quota show
}
ip -n "$DP_CL" addr add 2001:db8:c::3/64 dev eth0 nodad 2>/dev/null
b64=$(v6buckets 64) b128=$(v6buckets 128)
d="IPv6: quota-prefix6 64: $b64; 128: $b128"
if [[ $b64 == "2001:db8:c::/64=2" && $b128 == *"2001:db8:c::2/128=1"* &&
      $b128 == *"2001:db8:c::3/128=1"* && $(wc -w <<<"$b128") -eq 2 ]]; then
	ktap_test_pass "$d"
else
	ktap_test_fail "$d (want one /64 bucket with 2, then one /128 bucket each)"
fi

# --- off -----------------------------------------------------------------------------------------
g0=$(dp_gstats 1)
if dp_km 1 config set quota-rate 0 && [[ $(dp_kmj 1 .quotas config show) -eq 0 ]] &&
	[[ $(connects 5 | tr '\n' ' ') == "ok ok ok ok ok " ]]; then
	g1=$(dp_gstats 1)
	n=$(dp_kmj 1 .quotas config show) qd=$(dp_gdelta "$g0" "$g1" quota-drop)
	if [[ $n -eq 0 && $qd -eq 0 ]]; then
		ktap_test_pass "quota-rate 0: the table empty, 5 connects at once all accepted, no bucket made"
	else
		ktap_test_fail "quota-rate 0: 5 connects accepted, but $n buckets, quota-drop +$qd"
	fi
else
	ktap_test_fail "quota-rate 0: the table empty, 5 connects at once all accepted"
fi

dp_test_end
