#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kmaglev demo, inside the VM (selftests/demo.sh runs it): a client, a router, two load
# balancers and three backends in network namespaces (selftests/net/dp_lib.sh), one VIP, real
# HTTP with curl. Shows the weighted split, drain, the removal of a backend and a connection
# moved between two LBs mid-flow. Exits non-zero if a property it shows does not hold.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../net/lib.sh"
source "$HERE/../net/dp_lib.sh"

VIP=$(dp_vip4 0)
SVC=$VIP:80/tcp
B1=$(dp_be4 1) B2=$(dp_be4 2) B3=$(dp_be4 3)
CONFIG="service add $SVC backend $B1 weight 1 backend $B2 weight 1 backend $B3 weight 2"
PROPS=()
FAILED=0

say() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$@"; }
# run LB CMD...: show the kmaglev command and its output, as typed on LB N
run() {
	local lb=$1
	shift
	printf '  lb%s$ kmaglev %s\n' "$lb" "$*"
	dp_km "$lb" "$@" 2>&1 | sed 's/^/    /'
	return "${PIPESTATUS[0]}"
}
# prop OK DESC: record a demonstrated property
prop() {
	if [[ $1 == 0 ]]; then
		PROPS+=("PASS  $2")
		note "-> PASS: $2"
	else
		PROPS+=("FAIL  $2")
		note "-> FAIL: $2"
		FAILED=1
	fi
}
die() {
	echo "demo: $*" >&2
	exit 1
}

# split FILE "b1:W b2:W ...": the answers per backend against the weights; fails if a share is
# off by more than 0.09 (about 3 standard deviations for a few hundred requests).
split() {
	awk -v weights="$2" -v tol=0.09 '
	BEGIN {
		n = split(weights, w, " ")
		for (i = 1; i <= n; i++) { split(w[i], kv, ":"); name[i] = kv[1]; want[kv[1]] = kv[2]; sum += kv[2] }
	}
	$2 ~ /^b[0-9]+$/ { got[$2]++; total++; next }
	{ errors++ }
	END {
		printf "    %-8s %-10s %6s %9s %9s\n", "backend", "address", "weight", "expected", "answered"
		for (i = 1; i <= n; i++) {
			k = name[i]; exp_ = sum ? want[k] / sum : 0; share = total ? got[k] / total : 0
			printf "    %-8s 10.0.%s.2   %6d %8.1f%% %5d %5.1f%%\n", k, substr(k, 2), want[k],
				100 * exp_, got[k], 100 * share
			if (share - exp_ > tol || exp_ - share > tol) bad = 1
		}
		if (errors) { printf "    %d requests failed\n", errors; bad = 1 }
		exit bad
	}' "$1"
}

# A long-lived HTTP response through the VIP, in the background: /cgi-bin/slow?20 sends the
# backend's name, then 40 KB/s for 20 seconds, then "end".
download_start() {
	rm -f "$DP_TMP/$1.out"
	dp_bg "$1" dp_cl curl -s --max-time 120 -o "$DP_TMP/$1.out" "http://$VIP/cgi-bin/slow?20"
	dp_wait 30 grep -q '^backend b' "$DP_TMP/$1.out"
}
# The backend serving it (from its first line).
download_owner() { head -n 1 "$DP_TMP/$1.out" | awk '{ print $2 }'; }
# download_done NAME: it finished without error, and completely ("end").
download_done() {
	local pid=${DP_BGPID[$1]} rc
	wait "$pid"
	rc=$?
	unset "DP_BGPID[$1]"
	[[ $rc -eq 0 && $(tail -n 1 "$DP_TMP/$1.out") == end ]]
}
# bytes_received NAME: how much of the response has arrived
bytes_received() { stat -c %s "$DP_TMP/$1.out" 2>/dev/null || echo 0; }

cat <<EOF
kmaglev demo: a Maglev load balancer in the kernel, with direct server return

  client 203.0.113.2 --- router --- lb1 198.51.100.2   (the VIP $VIP is routed to lb1)
                           |    \\--- lb2 198.51.100.10   (for part (c))
                           +--- b1 10.0.1.2, b2 10.0.2.2, b3 10.0.3.2

Every namespace is a host. The LBs receive the client's packets, pick a backend with Maglev
hashing and send each packet IPIP-encapsulated to it; the backends own the VIP on lo,
decapsulate, and answer the client directly through the router (direct server return).
Each backend serves HTTP (busybox httpd): "/" says which backend answered, and so does the
first line of /cgi-bin/slow, a response that takes 20 seconds.
EOF

say "Building the namespaces and loading kmaglev.ko ($(uname -r))"
dp_load_kmaglev || die "cannot load kmaglev.ko"
dp_topo 2 3 || die "cannot build the topology"
note "ready (${SECONDS}s)"

# --- 1. one VIP -------------------------------------------------------------------------------
say "1. One VIP, three backends, weights 1:1:2, on lb1"
run 1 $CONFIG || die "service add failed"
run 1 service show
run 1 table show "$SVC"

say "300 curl requests from the client, each on a new connection (new client port)"
declare -A S0=() S1=()
dp_snap_all S0
dp_curl_many "$VIP" 300 >"$DP_TMP/split" 2>&1
dp_snap_all S1
split "$DP_TMP/split" "b1:1 b2:1 b3:2"
prop $? "300 requests split by weight 1:1:2 (each share within 9 points)"
run 1 stats "$SVC"

say "Direct server return: the replies do not pass through the LB"
dp_snap_all S0
got=$(dp_cl curl -s --max-time 30 -o /dev/null -w '%{size_download}' "http://$VIP/big")
dp_snap_all S1
lb=$(($(dp_delta S0 S1 lb1/eth0:rx_bytes) + $(dp_delta S0 S1 lb1/eth0:tx_bytes)))
be=0
for i in 1 2 3; do be=$((be + $(dp_delta S0 S1 "b$i/eth0:tx_bytes"))); done
note "the client downloaded $got bytes (/big) through the VIP: the backends sent $be bytes" \
     "straight to it, lb1 carried $lb bytes in and out (the request and the client's ACKs)"
[[ $got == 1048576 && $lb -lt 262144 ]]
prop $? "the 1 MiB reply bypassed the LB (lb1 carried $lb bytes)"

# --- (a) drain ----------------------------------------------------------------------------------
say "(a) Drain a backend: its established connection lives on, new requests avoid it"
note "a long-lived HTTP response (40 KB/s for 20 seconds) from the VIP..."
download_start dl1 || die "the download did not start"
owner=$(download_owner dl1)
note "...is served by $owner"
addr=$(dp_be4 "${owner#b}")
run 1 backend drain "$SVC" "$addr"
run 1 backend show "$SVC"
dp_curl_many "$VIP" 100 >"$DP_TMP/drain" 2>&1
note "100 new requests while $owner drains (its weight counts as 0 now):"
w="b1:1 b2:1 b3:2"
split "$DP_TMP/drain" "${w/$owner:[0-9]/$owner:0}"
dp_all_answered "$DP_TMP/drain" 100 >/dev/null && ! grep -q " $owner\$" "$DP_TMP/drain"
prop $? "100 new requests answered, none by the drained $owner"
note "the download has $(bytes_received dl1) bytes; waiting for the rest..."
download_done dl1
prop $? "the download from the drained $owner completed ($(bytes_received dl1) bytes, no reset)"
run 1 backend set "$SVC" "$addr" state up

# --- (b) removal -----------------------------------------------------------------------------------
say "(b) Remove a backend: only its share of the flows moves"
note "200 requests from fixed client ports 40000-40199 (the same 5-tuples each time)"
dp_http "$VIP" --lports 40000-40199 >"$DP_TMP/before" 2>&1
dp_tally "$DP_TMP/before" | sed 's/^/      before: /'
note "what would removing b2 move? (kmaglev builds the proposed table in userspace)"
run 1 simulate "$SVC" backend del "$B2" | grep -E 'matches|moved'
run 1 backend del "$SVC" "$B2"
dp_http "$VIP" --lports 40000-40199 >"$DP_TMP/after" 2>&1
dp_tally "$DP_TMP/after" | sed 's/^/      after:  /'
read -r from_b2 moved_b2 others moved_others errors <<<"$(paste -d' ' "$DP_TMP/before" \
	"$DP_TMP/after" | awk '
	$1 != $3 || $2 !~ /^b[0-9]+$/ || $4 !~ /^b[0-9]+$/ { err++; next }
	$2 == "b2" { from++; if ($4 != "b2") moved++; next }
	{ oth++; if ($4 != $2) om++ }
	END { print from + 0, moved + 0, oth + 0, om + 0, err + 0 }')"
note "b2 answered $from_b2 of the 200 before; $moved_b2 of them moved to b1 or b3" \
     "b1 and b3 answered $others; $moved_others of them changed backend"
[[ $errors -eq 0 && $from_b2 -gt 0 && $moved_b2 -eq $from_b2 && $moved_others -le 2 ]]
prop $? "removing b2 moved its $from_b2 flows and only them ($moved_others others moved, at most 2 allowed)"

# --- (c) a second LB -----------------------------------------------------------------------------------
say "(c) A second LB with the same configuration takes over a connection mid-flow"
run 2 service add "$SVC" backend "$B1" weight 1 backend "$B3" weight 2 || die "service add failed on lb2"
# digest N: the digest of LB N's table, read by key from `kmaglev -j table show` (empty if none)
digest() { dp_kmj "$1" .digest table show "$SVC"; }
# packets N: the packets LB N balanced for the service (kmaglev -j stats)
packets() { dp_svc_stat "$1" "$SVC" .stats.packets; }
d1=$(digest 1)
d2=$(digest 2)
note "table digests: lb1 $d1, lb2 $d2 (equal digests: identical tables)"
[[ -n $d1 && $d1 == "$d2" ]]
prop $? "lb1 and lb2 built the same Maglev table"
p2a=$(packets 2)
download_start dl2 || die "the download did not start"
owner=$(download_owner dl2)
note "a long-lived HTTP response through lb1 is served by $owner; it has $(bytes_received dl2) bytes"
dp_sleep 3
note "the router now sends the VIP to lb2:"
printf '  router$ ip route replace 192.0.2.0/24 via %s\n' "$(dp_lb4 2)"
dp_vip_route 2
dp_sleep 3
note "the download has $(bytes_received dl2) bytes; lb2 has seen the flow's packets:"
run 2 stats "$SVC"
download_done dl2
prop $? "the download moved to lb2 mid-flow completed ($(bytes_received dl2) bytes, no reset): lb2 chose $owner too"
p2=$(packets 2)
[[ -n $p2 && $p2 -gt 0 ]]
prop $? "lb2 carried the moved connection ($p2 packets)"
# The two checks above can fail. Before the move lb2 had balanced nothing: the same read gave
# 0 packets then.
[[ $p2a == 0 ]]
prop $? "before the move lb2 had carried nothing (${p2a:-no} packets then): its packet count tells"
# A different table has a different digest: b3 at weight 1 on lb2 (only now: a table change
# gives lb2 a previous table, which for 30 s sends the packets of flows it does not know).
run 2 backend set "$SVC" "$B3" weight 1
dx=$(digest 2)
run 2 backend set "$SVC" "$B3" weight 2
d3=$(digest 2)
note "table digests: lb1 $d1; lb2 with b3 at weight 1 $dx, at weight 2 again $d3"
[[ -n $dx && $dx != "$d1" && $d3 == "$d1" ]]
prop $? "the digests tell tables apart: b3 at weight 1 on lb2 gives another, weight 2 again lb1's"

# --- (d) the daemon ------------------------------------------------------------------------------
say "(d) kmaglev daemon: health checks take a killed backend out and bring it back"
DVIP=$(dp_vip4 1)
DCFG=$DP_TMP/kmaglev.yaml
DSOCK=$DP_TMP/daemon.sock
dp_vip_route 1		# (c) moved the VIPs to lb2
# The example config (Documentation/examples/kmaglev.yaml) cut down to this topology: one VIP,
# three backends, an HTTP check that goes through each backend's tunnel.
cat >"$DCFG" <<EOF
config:
  probe-mark-min: 0x10000        # tunnel checks: mark = probe-mark-min + backend id
  probe-mark-max: 0x1ffff
daemon:
  drain-time: 2s
  socket: $DSOCK
services:
  - vip: $DVIP
    port: 80
    proto: tcp
    checks:
      - kind: http               # GET / through the backend's tunnel, to the VIP
        path: /
        status: ["200-299"]
        body: backend
        interval: 1s
        timeout: 1s
        rise: 2
        fall: 2
    backends:
      - address: $B1
      - address: $B2
      - address: $B3
        weight: 2
EOF
sed 's/^/    /' "$DCFG"
dstatus() {
	printf '  lb1$ kmaglev status\n'
	KMAGLEV_SOCKET=$DSOCK ip netns exec "${DP_LB[1]}" "$KMAGLEV" status 2>&1 | sed 's/^/    /'
}
# be_state ADDR: the state of backend ADDR (kmaglev -j backend show: services, their backends)
be_state() { dp_kmj 1 ".[].backends[] | select(.backend == \"$1\") | .state" backend show "$DVIP:80/tcp"; }
printf '  lb1$ kmaglev daemon --check kmaglev.yaml\n'
dp_km 1 daemon --check "$DCFG" 2>&1 | sed 's/^/    /'
printf '  lb1$ kmaglev daemon -c kmaglev.yaml &\n'
dp_bg daemon ip netns exec "${DP_LB[1]}" "$KMAGLEV" daemon -c "$DCFG"
dp_wait 40 eval '[[ $(be_state '"$B1"') == up && $(be_state '"$B2"') == up && $(be_state '"$B3"') == up ]]'
prop $? "the daemon configured the service and its checks passed on every backend"
dstatus
httpd_pid=$(ip netns pids "${DP_BE[2]}" | while read -r p; do
	[[ $(tr '\0' ' ' 2>/dev/null </proc/"$p"/cmdline) == "busybox httpd"* ]] && echo "$p"; done)
note "killing b2's web server (pid $httpd_pid)"
t0=$(date +%s.%N)
kill $httpd_pid
dp_wait 20 eval '[[ $(be_state '"$B2"') == down ]]'
prop $? "the daemon took b2 out within $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s (interval 1s x fall 2, plus jitter; polled)"
dstatus
dp_curl_many "$DVIP" 30 >"$DP_TMP/d1.txt"
note "30 requests: $(dp_tally "$DP_TMP/d1.txt" | tr '\n' ' ')"
! grep -q ' b2$' "$DP_TMP/d1.txt" && [[ $(wc -l <"$DP_TMP/d1.txt") -eq 30 ]]
prop $? "clients got answers from b1 and b3 only, none failed"
note "starting b2's web server again"
t0=$(date +%s.%N)
ip netns exec "${DP_BE[2]}" busybox httpd -p 80 -h "$DP_TMP/www/b2"
dp_wait 20 eval '[[ $(be_state '"$B2"') == up ]]'
prop $? "the daemon brought b2 back within $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s (rise 2; polled)"
dp_curl_many "$DVIP" 30 >"$DP_TMP/d2.txt"
note "30 requests: $(dp_tally "$DP_TMP/d2.txt" | tr '\n' ' ')"
grep -q ' b2$' "$DP_TMP/d2.txt"
prop $? "b2 answers again"
kill -TERM "${DP_BGPID[daemon]}"
dp_wait 10 eval '! kill -0 '"${DP_BGPID[daemon]}"' 2>/dev/null'
note "the daemon's log:"
sed 's/^/      /' "$DP_TMP/daemon.log"

# --- summary -------------------------------------------------------------------------------------
dp_teardown
dp_unload_kmaglev
prop $? "kmaglev.ko unloads once the namespaces are gone"
say "Summary (${SECONDS}s)"
printf '    %s\n' "${PROPS[@]}"
if [[ $FAILED -ne 0 ]]; then
	echo "demo: some properties did not hold"
	exit 1
fi
echo "demo: every property held"
