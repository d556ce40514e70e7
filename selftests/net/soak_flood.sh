#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak, SYN flood at 10x conn-max from many sources. With conn-max 2000 (KMAGLEV_FLOOD_CONN_MAX),
# 40 long-lived TCP streams (every echo checked) and 4 slow HTTP downloads are opened through the
# VIP; then selftests/tools/synflood sends 10 x conn-max SYNs from 5000 spoofed sources (4 ports
# each; two senders at once, so both CPUs insert), twice: with flood-rate 0 the table fills and every further SYN evicts a SYN-only entry
# (conn-evict-syn), never an established one; with flood-rate 500 the netns goes into flood mode
# and new flows are forwarded untracked (conn-flood, conn-stateless). Throughout, a sampler reads
# the table's entry count and kmaglev's memory (debugfs objects: live entries, conn_bytes). Checks:
# every stream and download completes intact, the entries never exceed conn-max, the memory
# stays under a bound computed from conn-max, the SYN-only entries age out after the flood
# (timeout-tcp-syn 10s), new flows are tracked again, and the entry counters add up.
# The backends' SYN-ACKs to the spoofed sources die in a blackhole route on the router.
#
#   selftests/vm/run --kernel stock -- selftests/net/run_tests.sh soak_flood soak_flood@ingress
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

CMAX=${KMAGLEV_FLOOD_CONN_MAX:-2000}
NSYN=$((10 * CMAX))
NSRC=$(( NSYN / 4 ))
FRATE=500
SYNTO=10
SLOW=30			# seconds each download lasts
SYNFLOOD=$KMG_TOP/build/tools/synflood
OBJ=/sys/kernel/debug/kmaglev/objects
dp_standin && ktap_skip_all "the flood soak checks kmaglev's own counters (no stand-in)"

dp_test_start 18 1 3

V=$(dp_vip4 0)
ST="$V:$DP_STREAM_PORT/tcp"
bes="backend $(dp_be4 1) backend $(dp_be4 2) backend $(dp_be4 3)"
if [[ ! -x $SYNFLOOD ]]; then
	dp_fail_rest "$SYNFLOOD is not built (make -C selftests/tools)" 1
	dp_test_end
fi
if ! out=$({ dp_km_batch 1 <<-EOF
	config set conn-max $CMAX flood-rate 0 timeout-tcp-syn ${SYNTO}s timeout-tcp-est 2h timeout-tcp-fin 2h
	service add $ST $bes
	service add $V:$DP_HTTP_PORT/tcp $bes
	EOF
	} 2>&1 && ip -n "$DP_RT" route add blackhole 100.64.0.0/10 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "conn-max $CMAX, timeout-tcp-syn ${SYNTO}s, 2 services on b1-b3; the spoofed sources 100.64.0.0/10 blackholed"

# conns: the table's entries (kmaglev -j config show); nothing if not reported
conns() { dp_kmj 1 .conns config show; }
obj() { awk -v k="$1" '$1 == k { print $2 }' "$OBJ"; }

# --- before the flood: streams and downloads ------------------------------------------------------
dp_stream_start s "$V" 40 --interval 0.5
ok=1
dp_stream_wait s 180 || ok=0
DL=()
for i in 1 2 3 4; do
	ip netns exec "$DP_CL" curl -s --max-time $((SLOW + 600)) -o "$DP_TMP/dl$i" \
		"http://$V:$DP_HTTP_PORT/cgi-bin/slow?$SLOW" &
	DL+=($!)
done
# (the backends start a python CGI each: minutes on a loaded debug kernel)
for i in 1 2 3 4; do dp_wait 240 test -s "$DP_TMP/dl$i" || ok=0; done
if [[ $ok -eq 1 ]]; then
	ktap_test_pass "before the flood: 40 streams ($(dp_tally "$DP_TMP/s.info" | tr '\n' ' ')) and 4 ${SLOW}s downloads ($(head -qn1 "$DP_TMP"/dl? | awk '{ printf "%s ", $2 }')) established"
else
	ktap_test_fail "before the flood: 40 streams and 4 downloads established"
fi
c0=$(conns) l0=$(obj conns) b0=$(obj conn_bytes)

# the sampler: "TABLE LIVE CONN_BYTES" every 0.2 s, from one shell in the root netns (debugfs is
# not mounted in "ip netns exec"'s /sys), with kmaglev -n for the LB's table
bash -c '
	exec {fd}<>"$4"
	while [[ ! -e $1 ]]; do
		c=$("$2" -n "$3" -j config show | jq -r ".conns // empty")
		o=$(awk "\$1 == \"conns\" { l = \$2 } \$1 == \"conn_bytes\" { b = \$2 } END { print l, b }" "$5")
		echo "$c $o"
		read -r -t 0.2 -u $fd _
	done' sampler "$DP_TMP/mem.stop" "$KMAGLEV" "${DP_LB[1]}" "$DP_TMP/sleep" "$OBJ" >"$DP_TMP/mem" 2>&1 &
SAMPLER=$!

# flood A.B: NSYN SYNs from NSRC sources, by two senders at once (A.B.0.1 and A.B.128.1 up),
# so that both CPUs insert entries at the same time, as RSS would spread a flood
flood() {
	local rc=0
	ip netns exec "$DP_CL" "$SYNFLOOD" -d "$V" -p "$DP_STREAM_PORT" -s "$1.0.1" \
		-n $((NSRC / 2)) -c $((NSYN / 2)) >"$DP_TMP/flood.1" 2>&1 &
	ip netns exec "$DP_CL" "$SYNFLOOD" -d "$V" -p "$DP_STREAM_PORT" -s "$1.128.1" \
		-n $((NSRC / 2)) -c $((NSYN / 2)) >"$DP_TMP/flood.2" 2>&1 || rc=1
	wait $! || rc=1
	sed 's/^synflood: //' "$DP_TMP/flood.1" "$DP_TMP/flood.2" | paste -sd';' | sed 's/;/; /'
	return $rc
}

# reached G0 G1: the flood's SYNs that reached kmaglev between two dp_gstats outputs: each
# (a 5-tuple of its own) was tracked or not (conn-new, conn-table-full, conn-flood)
reached() {
	echo $(($(dp_gdelta "$1" "$2" conn-new) + $(dp_gdelta "$1" "$2" conn-table-full) +
		$(dp_gdelta "$1" "$2" conn-flood)))
}
# FLOOD_DESC G0 G1: the connection counters' growth
fdesc() {
	local k o=
	for k in conn-new conn-evict-syn conn-table-full conn-stateless conn-flood; do
		o+="$k +$(dp_gdelta "$1" "$2" $k) "
	done
	echo "${o% }"
}
# The SYNs go through client, router, LB and backend on the sending CPU's backlog: let it hold
# them (the VM's CPU may be taken away for a while); restored at the end.
BACKLOG=$(sysctl -n net.core.netdev_max_backlog)
sysctl -qw net.core.netdev_max_backlog=65536

# --- flood 1: flood-rate 0, the table fills; SYN-only entries make room -----------------------------
t0=$SECONDS
g0=$(dp_gstats 1)
out=$(flood 100.64)
rc=$?
dp_sleep 2
g1=$(dp_gstats 1)
R1=$(reached "$g0" "$g1")
F1=$(fdesc "$g0" "$g1")
if [[ $rc -eq 0 && $R1 -ge $((NSYN / 2)) ]]; then
	ktap_test_pass "flood 1 (flood-rate 0): $out; $R1 reached kmaglev"
else
	ktap_test_fail "flood 1 (flood-rate 0): $out; $R1 reached kmaglev (want >= $((NSYN / 2)))"
fi
if [[ $(dp_gdelta "$g0" "$g1" conn-new) -ge $((CMAX - 100)) &&
      $(dp_gdelta "$g0" "$g1" conn-evict-syn) -ge $((R1 / 2)) ]]; then
	ktap_test_pass "flood 1: the table filled, then SYN-only entries were evicted: $F1"
else
	ktap_test_fail "flood 1: the table filled, then SYN-only entries were evicted: $F1"
fi

# --- flood 2: flood-rate 500, flood mode ------------------------------------------------------------
dp_km 1 config set flood-rate $FRATE
g1=$(dp_gstats 1)
out=$(flood 100.65)
rc=$?
dp_sleep 2
g2=$(dp_gstats 1)
R2=$(reached "$g1" "$g2")
F2=$(fdesc "$g1" "$g2")
if [[ $rc -eq 0 && $R2 -ge $((NSYN / 2)) ]]; then
	ktap_test_pass "flood 2 (flood-rate $FRATE): $out; $R2 reached kmaglev"
else
	ktap_test_fail "flood 2 (flood-rate $FRATE): $out; $R2 reached kmaglev (want >= $((NSYN / 2)))"
fi
fl=$(dp_gdelta "$g1" "$g2" conn-flood)
sl=$(dp_gdelta "$g1" "$g2" conn-stateless)
if [[ $fl -ge 1 && $sl -ge $fl ]]; then
	ktap_test_pass "flood 2: flood mode, new flows forwarded untracked: $F2"
else
	ktap_test_fail "flood 2: flood mode, new flows forwarded untracked: $F2"
fi
flood_secs=$((SECONDS - t0))
sysctl -qw net.core.netdev_max_backlog="$BACKLOG"

# --- after: the SYN-only entries age out -------------------------------------------------------------
t1=$SECONDS
# aged [CONNS]: CONNS (default: the table's entries now) is back to what it was before the flood
aged() { local c=${1:-$(conns)}; [[ $c =~ ^[0-9]+$ && $c0 =~ ^[0-9]+$ && $c -le $((c0 + 10)) ]]; }
if dp_wait $((SYNTO + 60)) aged; then aged_ok=1; else aged_ok=0; fi
aged_secs=$((SECONDS - t1))
touch "$DP_TMP/mem.stop"
wait "$SAMPLER"
g3=$(dp_gstats 1)
c3=$(conns)

# entries never above conn-max; memory bounded
read -r nsamp maxc maxl maxb <<<"$(awk 'NF == 3 { n++; if ($1 > c) c = $1; if ($2 > l) l = $2; if ($3 > b) b = $3 }
	END { print n + 0, c + 0, l + 0, b + 0 }' "$DP_TMP/mem")"
if [[ $nsamp -ge 5 && $maxc -le $CMAX && $maxc -ge $((CMAX - 100)) ]]; then
	ktap_test_pass "the table never held more than conn-max: at most $maxc of $CMAX entries in $nsamp samples"
else
	grep -v '^[0-9]* [0-9]* [0-9]*$' "$DP_TMP/mem" | head -n 5 | sed 's/^/# /'
	ktap_test_fail "the table never held more than conn-max: at most $maxc of $CMAX entries in $nsamp samples"
fi
# bound: conn-max entries of 56 bytes, and the bucket arrays of a table sized for them
# (the next power of two above 4/3 of conn-max, 8 bytes a bucket) three times over (an old and a
# new array while it grows, and the IPv6 table's), plus 8 KiB. Live entries: the table's, and
# the evicted and expired ones that wait for an RCU grace period: that backlog depends on the
# eviction rate and the grace period's length (long in a loaded VM), and RCU hurries grace
# periods along once a CPU holds rcutree.qhimark (10000) callbacks: conn-max + 10000 per CPU.
nb=1; while [[ $nb -lt $((CMAX * 4 / 3 + 1)) ]]; do nb=$((nb * 2)); done
BOUND=$((CMAX * 56 + 3 * 8 * nb + 8192))
LBOUND=$((CMAX + 10000 * $(nproc)))
if [[ $nsamp -ge 5 && $maxb -le $BOUND && $maxl -le $LBOUND ]]; then
	ktap_test_pass "memory bounded ($nsamp samples): conn_bytes $b0 before, at most $maxb during (bound $BOUND), live entries $l0 before, at most $maxl during (bound $LBOUND)"
else
	ktap_test_fail "memory bounded ($nsamp samples): conn_bytes $b0 before, at most $maxb during (bound $BOUND), live entries $l0 before, at most $maxl during (bound $LBOUND)"
fi
exp=$(dp_gdelta "$g0" "$g3" conn-expired)
if [[ $aged_ok -eq 1 ]]; then
	ktap_test_pass "after the flood the SYN-only entries aged out within ${aged_secs}s: $c3 entries ($c0 before the flood), conn-expired +$exp"
else
	ktap_test_fail "after the flood the SYN-only entries aged out: $c3 entries after ${aged_secs}s ($c0 before the flood), conn-expired +$exp"
fi
# the aged-out check fails on the most entries the sampler read during the flood
if [[ $nsamp -ge 5 ]] && ! aged "$maxc"; then
	ktap_test_pass "the aged-out check fails on the full table: $maxc entries during the flood ($c0 before)"
else
	ktap_test_fail "the aged-out check fails on the full table: $maxc entries during the flood ($c0 before), $nsamp samples"
fi

# new flows are tracked again
dp_http "$V" --count 30 --parallel 4 >"$DP_TMP/new" 2>&1
dp_sleep 1
g4=$(dp_gstats 1)
# (new-flows, not conn-new: a client port that an earlier connection to the VIP used gets that
# closed connection's entry, Documentation/dataplane.rst)
untr=$(($(dp_gdelta "$g3" "$g4" conn-flood) + $(dp_gdelta "$g3" "$g4" conn-table-full) + $(dp_gdelta "$g3" "$g4" conn-stateless)))
msg="new-flows +$(dp_gdelta "$g3" "$g4" new-flows), conn-new +$(dp_gdelta "$g3" "$g4" conn-new), conn-flood + conn-table-full + conn-stateless +$untr"
if dp_all_answered "$DP_TMP/new" 30 && [[ $(dp_gdelta "$g3" "$g4" new-flows) -ge 30 && $untr -eq 0 ]]; then
	ktap_test_pass "after the flood: 30 new flows answered and tracked: $msg"
else
	ktap_test_fail "after the flood: 30 new flows answered and tracked: $msg"
fi

# --- the streams and downloads opened before the flood -------------------------------------------
RESETS=0
if dp_stream_stop s >"$DP_TMP/s.out"; then
	ktap_test_pass "40 streams lived through the floods: $(grep -o '[0-9]* streams.*' "$DP_TMP/s.out" | tail -n 1)"
else
	RESETS=$((RESETS + 1))
	cat "$DP_TMP/s.out"
	ktap_test_fail "40 streams lived through the floods: no reset, no stall, every echo"
fi
SBYTES=$(sed -n 's/.*lines (\([0-9]*\) bytes).*/\1/p' "$DP_TMP/s.out")
dlok=0 dlbytes=0
for i in 1 2 3 4; do
	wait "${DL[i - 1]}"
	rc=$?
	# "backend bN", then lines of 4095 dots, then "end"
	if [[ $rc -eq 0 ]] && awk 'NR == 1 { if ($0 !~ /^backend b[0-9]+$/) exit 1; next }
		 { last = $0 } last != "end" && length($0) != 4095 { exit 1 }
		 END { exit !(NR > 2 && last == "end") }' "$DP_TMP/dl$i"; then
		dlok=$((dlok + 1))
	else
		RESETS=$((RESETS + 1))
		echo "# download $i: curl exit $rc, $(wc -c <"$DP_TMP/dl$i") bytes, ends with: $(tail -c 20 "$DP_TMP/dl$i" | tr -c '[:print:]' .)"
	fi
	dlbytes=$((dlbytes + $(wc -c <"$DP_TMP/dl$i")))
done
if [[ $dlok -eq 4 ]]; then
	ktap_test_pass "4 downloads complete and intact: $dlbytes bytes"
else
	ktap_test_fail "4 downloads complete and intact: $dlok of 4"
fi

# --- memory and counters after ---------------------------------------------------------------------
for i in 1 2 3 4 5; do
	dp_sleep 1
	c5=$(conns) l5=$(obj conns) b5=$(obj conn_bytes)
	[[ $l5 -eq $c5 ]] && break
done
if [[ $l5 -eq $c5 && $b5 -le $((b0 + c5 * 56 + 8 * nb)) ]]; then
	ktap_test_pass "after: $c5 entries, $l5 live, conn_bytes $b5 (before the flood: $c0, $l0, $b0)"
else
	ktap_test_fail "after: $c5 entries, $l5 live (want equal), conn_bytes $b5 (before the flood: $c0, $l0, $b0)"
fi
g5=$(dp_gstats 1)
# gv NAME: counter NAME of g5 (-1 if it is not there: it adds up to nothing)
gv() { local v; v=$(awk -v k="$1" '$1 == k { print $2 }' <<<"$g5"); echo "${v:--1}"; }
msg="conns $(gv conns), table $c5, conn-new $(gv conn-new) - conn-expired $(gv conn-expired) - conn-evict-syn $(gv conn-evict-syn)"
if [[ $(gv conns) -eq $c5 && $c5 -eq $(($(gv conn-new) - $(gv conn-expired) - $(gv conn-evict-syn))) ]]; then
	ktap_test_pass "entry counters add up: $msg"
else
	ktap_test_fail "entry counters add up: $msg"
fi
dp_check_hook "the floods" "$g0" "$g2"

if [[ $__ktap_fail -eq 0 ]]; then res=pass; else res=FAIL; fi
echo "# flood 1: $F1"
echo "# flood 2: $F2"
echo "# reliability: SYN flood (hook $DP_HOOK) | 2 x $NSYN SYNs (10x conn-max $CMAX) from 2 x $NSRC sources, $R1 + $R2 reached kmaglev; 40 streams, 4 downloads | ${SECONDS} s (floods ${flood_secs} s) | $RESETS resets ($SBYTES stream bytes, $dlbytes download bytes intact), at most $maxc/$CMAX entries, conn_bytes <= $maxb (bound $BOUND), live entries <= $maxl | flood 1: $F1; flood 2: $F2; aged out in ${aged_secs} s; $res"
dp_test_end
