#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak, backend churn: for KMAGLEV_SOAK_SECONDS (default 60) of churn backends are added,
# deleted, drained, reweighted and whole sets replaced ("service set"), in batches that change
# four services at once, with a check round after every KMAGLEV_SOAK_CHECK_SECS (20) of churn
# (the rounds' time is not counted: python is slow to start in a loaded VM), while traffic runs
# throughout:
#   - 40 long-lived TCP streams (a line every 0.5 s, every echo checked): 20 opened while the
#     stream service had only the stable backends b1 and b2, 20 after b3-b6 joined (so most of
#     those sit on backends that get drained and deleted: kmaglev keeps a deleted backend's
#     flows, Documentation/dataplane.rst);
#   - a curl loop of new HTTP connections;
#   - 40 UDP flows from fixed ports to a service that keeps flows on deleted backends, and 40 to
#     one with the resched flag, which moves them to a live backend (fail over), checked
#     between churn batches against the set the churn left.
# The churn never deletes or drains b1 and b2 (their weights change). Checks: no stream saw a
# reset or a stall, each is still established on the backend that said hello (its socket there
# kept receiving), new connections were answered in every interval, UDP flows kept their
# backend unless it was deleted (resched: they moved to a live one), and the counters agree
# when traffic has stopped: the per-service sums equal the global ones, and the data path's
# rx/tx/conn counters account for them exactly.
#
#   KMAGLEV_SOAK_SECONDS=20 selftests/vm/run --kernel stock -- selftests/net/run_tests.sh soak_churn
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

SOAK=${KMAGLEV_SOAK_SECONDS:-60}
BATCH=${KMAGLEV_SOAK_BATCH:-8}		# churn steps per "kmaglev -b" (each changes 4 services)
CHECK_SECS=${KMAGLEV_SOAK_CHECK_SECS:-20}	# seconds of churn between two check rounds
dp_standin && ktap_skip_all "the churn soak checks kmaglev's own counters (no stand-in)"

dp_test_start 19 1 6

V=$(dp_vip4 0)
VR=$(dp_vip4 1)
ST="$V:$DP_STREAM_PORT/tcp"
SH="$V:$DP_HTTP_PORT/tcp"
SU="$V:$DP_UDP_PORT/udp"
SR="$VR:$DP_UDP_PORT/udp"
SVCS=("$ST" "$SH" "$SU" "$SR")
STABLE="b1 b2"
CHURN="b3 b4 b5 b6"
ALL="$STABLE $CHURN"
RANDOM=13	# the same churn every run
B() { dp_be4 "${1#b}"; }
# Tables of 1021 slots (the default is 65537): each change rebuilds four tables, which takes
# long in a VM without KVM; the churn is about the changes, not the table size.
TS=1021

# Nothing expires during the soak (so that the entry counters add up exactly).
if ! out=$(dp_km_batch 1 2>&1 <<-EOF
	config set timeout-tcp-syn 2h timeout-tcp-est 2h timeout-tcp-fin 2h timeout-udp 2h
	service add $ST table-size $TS backend $(B b1) backend $(B b2)
	service add $SH table-size $TS $(for b in $ALL; do echo -n "backend $(B $b) "; done)
	service add $SU table-size $TS $(for b in $ALL; do echo -n "backend $(B $b) "; done)
	service add $SR table-size $TS flags resched $(for b in $ALL; do echo -n "backend $(B $b) "; done)
	EOF
); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure 4 services" 1
	dp_test_end
fi
ktap_test_pass "4 services: $ST (b1 b2), $SH, $SU, $SR (resched) (b1-b6)"

# The churn's view of the backend set (the same for the four services).
declare -A PRESENT=() STATE=() WEIGHT=() GONE=() DELETED=() DRAINED=()
for b in $ALL; do PRESENT[$b]=1; STATE[$b]=up; WEIGHT[$b]=1; done

# --- streams: 20 on the stable backends, then 20 over all six ----------------------------------
dp_stream_start A "$V" 20 --interval 0.5
if dp_stream_wait A 180 && ! awk '$2 != "b1" && $2 != "b2" { exit 1 }' "$DP_TMP/A.info"; then
	ktap_test_fail "20 streams on the stable backends: $(dp_tally "$DP_TMP/A.info" | tr '\n' ' ')"
elif [[ -f $DP_TMP/A.info ]]; then
	ktap_test_pass "20 streams on the stable backends: $(dp_tally "$DP_TMP/A.info" | tr '\n' ' ')"
else
	ktap_test_fail "20 streams on the stable backends"
fi
dp_km 1 service set "$ST" $(for b in $ALL; do echo -n "backend $(B $b) "; done)
dp_stream_start B "$V" 20 --interval 0.5
if dp_stream_wait B 180; then
	nb=$(awk '$2 != "b1" && $2 != "b2"' "$DP_TMP/B.info" | wc -l)
	ktap_test_pass "20 more streams, $nb of them on churned backends: $(dp_tally "$DP_TMP/B.info" | tr '\n' ' ')"
else
	ktap_test_fail "20 more streams over b1-b6"
fi
cat "$DP_TMP/A.info" "$DP_TMP/B.info" 2>/dev/null >"$DP_TMP/streams"

# ss_snap FILE: "bN CLIENTPORT BYTES_RECEIVED" for every established stream socket on the backends
ss_snap() {
	local i
	for ((i = 1; i <= DP_NBE; i++)); do
		dp_be "$i" ss -Htni state established "( sport = :$DP_STREAM_PORT )" |
			awk -v b="b$i" '
			/^[0-9]/ { n = split($4, a, ":"); port = a[n]; next }
			port != "" { br = 0
				     for (i = 1; i <= NF; i++) if ($i ~ /^bytes_received:/) { split($i, k, ":"); br = k[2] }
				     print b, port, br; port = "" }'
	done >"$1"
}

# --- UDP flows from fixed ports: their first backends --------------------------------------------
UPORTS=45000-45039
RPORTS=46000-46039
dp_udp "$V" --lports $UPORTS >"$DP_TMP/u0" 2>&1
dp_udp "$VR" --lports $RPORTS >"$DP_TMP/r.last" 2>&1
if dp_all_answered "$DP_TMP/u0" 40 && dp_all_answered "$DP_TMP/r.last" 40; then
	ktap_test_pass "40 UDP flows to each of $V and $VR answered: $(dp_tally "$DP_TMP/u0" | tr '\n' ' ')/ $(dp_tally "$DP_TMP/r.last" | tr '\n' ' ')"
else
	ktap_test_fail "40 UDP flows to each of $V and $VR answered"
fi

# --- the churn ---------------------------------------------------------------------------------
# pick LIST: one word of LIST at random in PK (false, PK empty, if LIST is empty). Not in a
# subshell: RANDOM must advance in this shell for the churn to be the same every run.
pick() { local a=($1); PK=; [[ ${#a[@]} -gt 0 ]] || return 1; PK=${a[RANDOM % ${#a[@]}]}; }
present() { local b o=; for b in $1; do [[ ${PRESENT[$b]} -eq 1 ]] && o+="$b "; done; echo "$o"; }
absent() { local b o=; for b in $1; do [[ ${PRESENT[$b]} -eq 0 ]] && o+="$b "; done; echo "$o"; }
upset() { local b o=; for b in $ALL; do [[ ${PRESENT[$b]} -eq 1 && ${STATE[$b]} == up ]] && o+="$b "; done; echo "$o"; }

declare -A NOPS=([add]=0 [del]=0 [drain]=0 [weight]=0 [replace]=0)
# step: one churn change for the four services, as one batch. Sets OP and CMDS.
step() {
	local b="" w s sv line ups="" x
	pick "add del drain weight replace"
	OP=$PK
	case $OP in
	add) pick "$(absent "$CHURN")" || OP=del ;;
	del) pick "$(present "$CHURN")" || OP=add ;;
	drain)
		for x in $(present "$CHURN"); do [[ ${STATE[$x]} == up ]] && ups+="$x "; done
		pick "$ups" || OP=weight
		;;
	esac
	[[ $OP == add && -z $PK ]] && pick "$(absent "$CHURN")"
	[[ $OP == del && -z $PK ]] && pick "$(present "$CHURN")"
	[[ $OP == weight ]] && pick "$(present "$ALL")"
	b=$PK
	w=$((1 + RANDOM % 4))
	CMDS=
	case $OP in
	add)
		for sv in "${SVCS[@]}"; do CMDS+="backend add $sv $(B $b) weight $w"$'\n'; done
		PRESENT[$b]=1; STATE[$b]=up; WEIGHT[$b]=$w
		;;
	del)
		for sv in "${SVCS[@]}"; do CMDS+="backend del $sv $(B $b)"$'\n'; done
		PRESENT[$b]=0; GONE[$b]=1; DELETED[$b]=1
		;;
	drain)
		for sv in "${SVCS[@]}"; do CMDS+="backend drain $sv $(B $b)"$'\n'; done
		STATE[$b]=drain; DRAINED[$b]=1
		;;
	weight)
		s=
		if [[ ${STATE[$b]} == drain && $((RANDOM % 2)) -eq 0 ]]; then s=" state up"; STATE[$b]=up; fi
		for sv in "${SVCS[@]}"; do CMDS+="backend set $sv $(B $b) weight $w$s"$'\n'; done
		WEIGHT[$b]=$w
		;;
	replace)
		line=
		for b in $ALL; do
			if [[ $b == b1 || $b == b2 || $((RANDOM % 2)) -eq 0 ]]; then
				w=$((1 + RANDOM % 4)); s=up
				[[ $b != b1 && $b != b2 && $((RANDOM % 4)) -eq 0 ]] && s=drain
				[[ $s == drain ]] && DRAINED[$b]=1
				line+=" backend $(B $b) weight $w state $s"
				PRESENT[$b]=1; STATE[$b]=$s; WEIGHT[$b]=$w
			elif [[ ${PRESENT[$b]} -eq 1 ]]; then
				PRESENT[$b]=0; GONE[$b]=1; DELETED[$b]=1
			fi
		done
		for sv in "${SVCS[@]}"; do CMDS+="service set $sv$line"$'\n'; done
		;;
	esac
	NOPS[$OP]=$((NOPS[$OP] + 1))
}

# check_udp ROUND: the UDP flows after the churn so far. To $V: the backends of round 0, always.
# To $VR (resched): a flow keeps its backend unless that was deleted since the last round; then
# it is answered by a backend of the set that is up (it failed over).
UDP_BAD=0 UDP_MOVED=0 UDP_ROUNDS=0
check_udp() {
	local out
	dp_udp "$V" --lports $UPORTS >"$DP_TMP/u" 2>&1
	if ! out=$(diff "$DP_TMP/u0" "$DP_TMP/u"); then
		echo "# round $1: flows to $V changed backend:"
		echo "$out" | head -n 10 | sed 's/^/#   /'
		UDP_BAD=$((UDP_BAD + 1))
	fi
	dp_udp "$VR" --lports $RPORTS >"$DP_TMP/r" 2>&1
	out=$(paste -d' ' "$DP_TMP/r.last" "$DP_TMP/r" | awk -v gone=" ${!GONE[*]} " -v up=" $(upset) " '
		$1 != $3 || $4 !~ /^b[0-9]+$/ { print "port " $1 ": " $2 " -> " $4; bad = 1; next }
		index(gone, " " $2 " ") { if (!index(up, " " $4 " ")) { print "port " $1 ": " $2 " (deleted) -> " $4 " (not up)"; bad = 1 }
					  else if ($4 != $2) moved++
					  next }
		$4 != $2 { print "port " $1 ": " $2 " -> " $4 " (kept, must not move)"; bad = 1 }
		END { print "moved", moved + 0; exit bad }')
	if [[ $? -ne 0 ]]; then
		echo "# round $1: flows to $VR (resched), deleted since the last round: ${!GONE[*]}, up: $(upset)"
		echo "$out" | head -n 10 | sed 's/^/#   /'
		UDP_BAD=$((UDP_BAD + 1))
	fi
	UDP_MOVED=$((UDP_MOVED + $(awk '$1 == "moved" { print $2 }' <<<"$out")))
	UDP_ROUNDS=$((UDP_ROUNDS + 1))
	mv "$DP_TMP/r" "$DP_TMP/r.last"
	GONE=()
}

# counters of the netns: "kmaglev -j stats" whole (a JSON document); g_of FILE: its global
# counters as "NAME VALUE" lines, as dp_gstats prints them
stats_all() { dp_km 1 -j stats; }
g_of() { kmg_jq '.global | to_entries[] | "\(.key) \(.value)"' <"$1"; }

# curl_start: new HTTP connections, 20 per curl, until the file curl.stop appears; the loop
# ends at the first failure. It stops between two curls, never in a request, so every SYN it
# sent is in curl.out with its port (the connection counters' check needs them all).
curl_start() {
	rm -f "$DP_TMP/curl.stop"
	# (line-buffered, so that the rounds see how far it got)
	ip netns exec "$DP_CL" bash -c 'while [[ ! -e $1 ]]; do
			stdbuf -oL curl -s --fail-early --fail --connect-timeout 10 --max-time 30 \
				-w " %{local_port}\n" "$2/?[1-20]" || exit 1
		done' - "$DP_TMP/curl.stop" "http://$V:$DP_HTTP_PORT" \
		>"$DP_TMP/curl.out" 2>"$DP_TMP/curl.err" &
	CURLPID=$!
}
curl_count() { grep -cE '^backend b[0-9]+ [0-9]+$' "$DP_TMP/curl.out"; }

ss_snap "$DP_TMP/ss0"
stats_all >"$DP_TMP/stats.0"
g0=$(g_of "$DP_TMP/stats.0")
curl_start
t0=$SECONDS
next_check=$CHECK_SECS			# in seconds of churn (batch_secs)
steps=0 batches=0 batch_secs=0 batch_fail=0 round=0 stalled=0 last=0 minnew=
: >"$DP_TMP/monotone"
while [[ $batch_secs -lt $SOAK ]]; do
	all=
	for ((k = 0; k < BATCH; k++)); do
		step
		all+=$CMDS
	done
	tb=$SECONDS
	if ! out=$(dp_km_batch 1 2>&1 <<<"$all"); then
		batch_fail=$((batch_fail + 1))
		echo "# churn batch after step $steps failed:"
		echo "$out" | head -n 12 | sed 's/^/#   /'
	fi
	steps=$((steps + BATCH))
	batches=$((batches + 1))
	batch_secs=$((batch_secs + SECONDS - tb))
	if [[ $batch_secs -ge $next_check && $batch_secs -lt $SOAK ]]; then
		next_check=$((batch_secs + CHECK_SECS))
		round=$((round + 1))
		check_udp "$round"
		n=$(curl_count)
		d=$((n - last))
		[[ -z $minnew || $d -lt $minnew ]] && minnew=$d
		[[ $d -gt 0 ]] || { stalled=$((stalled + 1)); echo "# round $round: no new HTTP connection answered since the last round"; }
		last=$n
		stats_all >"$DP_TMP/stats.$round"
		# every counter only grows (no <(...): the stock VM has no /dev/fd)
		g_of "$DP_TMP/stats.$((round - 1))" | sort >"$DP_TMP/g.prev"
		g_of "$DP_TMP/stats.$round" | sort >"$DP_TMP/g.cur"
		join "$DP_TMP/g.prev" "$DP_TMP/g.cur" |
			awk -v r="$round" '$1 != "conns" && $3 < $2 { print "# round " r ": " $1 " went back from " $2 " to " $3 }' \
			>>"$DP_TMP/monotone"
	fi
done
churn_secs=$((SECONDS - t0))
ops=$((steps * ${#SVCS[@]}))
check_udp final
stats_all >"$DP_TMP/stats.mid"
ss_snap "$DP_TMP/ss1"

# --- results -------------------------------------------------------------------------------------
rate() { awk -v o="$1" -v s="$2" 'BEGIN { printf "%.1f", o / (s ? s : 1) }'; }
desc="churn: $steps steps x ${#SVCS[@]} services = $ops ops in $batches batches, ${churn_secs}s with the checks ($(rate $ops $churn_secs) ops/s; $(rate $ops $batch_secs) ops/s in the batches' ${batch_secs}s); add ${NOPS[add]} del ${NOPS[del]} drain ${NOPS[drain]} weight ${NOPS[weight]} replace ${NOPS[replace]})"
if [[ $batch_fail -eq 0 && ${NOPS[add]} -gt 0 && ${NOPS[del]} -gt 0 && ${NOPS[drain]} -gt 0 &&
      ${NOPS[weight]} -gt 0 && ${NOPS[replace]} -gt 0 ]]; then
	ktap_test_pass "$desc"
else
	ktap_test_fail "$desc, $batch_fail batches failed"
fi

# new connections throughout
if kill -0 "$CURLPID" 2>/dev/null; then curl_alive=1; else curl_alive=0; fi
touch "$DP_TMP/curl.stop"
wait "$CURLPID" 2>/dev/null
NHTTP=$(curl_count)
if [[ $curl_alive -eq 1 && $stalled -eq 0 && $NHTTP -gt 0 ]]; then
	ktap_test_pass "new connections answered throughout: $NHTTP HTTP requests, at least ${minnew:-0} in each of $round rounds ($(awk '/^backend/ { print $2 }' "$DP_TMP/curl.out" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }'))"
else
	tail -n 3 "$DP_TMP/curl.out" "$DP_TMP/curl.err" | sed 's/^/# /'
	ktap_test_fail "new connections answered throughout: $NHTTP HTTP requests, curl $([[ $curl_alive -eq 1 ]] && echo running || echo stopped early), $stalled rounds without one"
fi

if [[ $UDP_BAD -eq 0 ]]; then
	ktap_test_pass "$UDP_ROUNDS UDP rounds: 40 flows to $V kept their backends (deleted ones too)"
	ktap_test_pass "$UDP_ROUNDS UDP rounds: 40 flows to $VR (resched) kept live backends, failed over from deleted ones ($UDP_MOVED moves)"
else
	ktap_test_fail "$UDP_ROUNDS UDP rounds: 40 flows to $V kept their backends ($UDP_BAD bad rounds)"
	ktap_test_fail "$UDP_ROUNDS UDP rounds: 40 flows to $VR (resched) kept live backends, failed over from deleted ones ($UDP_BAD bad rounds)"
fi

# each stream established on the backend that said hello, and its socket there kept receiving
out=$(awk 'FILENAME ~ /ss0$/ { b0[$1 " " $2] = $3; next }
	   FILENAME ~ /ss1$/ { b1[$1 " " $2] = $3; next }
	   { k = $2 " " $1
	     if (!(k in b1)) { print "port " $1 ": not established on " $2; bad++ }
	     else if (!(k in b0) || b1[k] <= b0[k]) { print "port " $1 " on " $2 ": received " b0[k] " then " b1[k]; bad++ }
	     else { d = b1[k] - b0[k]; if (min == "" || d < min) min = d; sum += d } }
	   END { print "min", min + 0, "sum", sum + 0; exit bad > 0 }' \
	"$DP_TMP/ss0" "$DP_TMP/ss1" "$DP_TMP/streams")
if [[ $? -eq 0 && $(wc -l <"$DP_TMP/streams") -eq 40 ]]; then
	ndel=$(awk -v d=" ${!DELETED[*]} " 'index(d, " " $2 " ")' "$DP_TMP/streams" | wc -l)
	ndrn=$(awk -v d=" ${!DRAINED[*]} " 'index(d, " " $2 " ")' "$DP_TMP/streams" | wc -l)
	ktap_test_pass "40 streams still on the backend that said hello ($ndel on backends deleted, $ndrn on backends drained during the churn), each received more (min $(awk '$1 == "min" { print $2 }' <<<"$out"), total $(awk '$1 == "min" { print $4 }' <<<"$out") bytes during the churn)"
else
	echo "$out" | head -n 10 | sed 's/^/# /'
	ktap_test_fail "40 streams still on the backend that said hello, each received more"
fi

RESETS=0
for g in A B; do
	if dp_stream_stop $g >"$DP_TMP/$g.out"; then
		ktap_test_pass "streams $g: $(grep -o '[0-9]* streams.*' "$DP_TMP/$g.out" | tail -n 1)"
	else
		RESETS=$((RESETS + $(grep -cE 'reset|closed|no echo|bad echo|Errno' "$DP_TMP/$g.out")))
		cat "$DP_TMP/$g.out"
		ktap_test_fail "streams $g: no reset, no stall, every echo"
	fi
done
SBYTES=$(cat "$DP_TMP/A.out" "$DP_TMP/B.out" | sed -n 's/.*lines (\([0-9]*\) bytes).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
SLINES=$(cat "$DP_TMP/A.out" "$DP_TMP/B.out" | sed -n 's/.* \([0-9]*\) lines (.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')

# --- counters, now that traffic has stopped --------------------------------------------------------
dp_sleep 2
if [[ -s $DP_TMP/monotone ]]; then
	head -n 10 "$DP_TMP/monotone"
	ktap_test_fail "$round samples: no counter ever went back"
else
	ktap_test_pass "$round samples during the churn: no counter ever went back"
fi
stats_all >"$DP_TMP/stats.end"
cfg=$(dp_km 1 -j config show)
g1=$(g_of "$DP_TMP/stats.end")
# gv NAME [G]: counter NAME of the dp_gstats-like output G (default g1)
gv() { awk -v k="$1" '$1 == k { print $2 }' <<<"${2:-$g1}"; }
# "SERVICES PACKETS BYTES NEW-FLOWS CONNS": the count of services and the sums of their counters
sums=$(kmg_jq '[.services[].stats] |
	"\(length) \(map(.packets) | add // 0) \(map(.bytes) | add // 0) \(map(."new-flows") | add // 0) \(map(.conns) | add // 0)"' \
	<"$DP_TMP/stats.end")
read -r nsvc sp sb sn sc <<<"$sums"
MISMATCH=0
msg="services $nsvc: packets $sp bytes $sb new-flows $sn conns $sc; global $(gv packets) $(gv bytes) $(gv new-flows) $(gv conns)"
if [[ $nsvc -eq 4 && $sp -eq $(gv packets) && $sb -eq $(gv bytes) && $sn -eq $(gv new-flows) &&
      $sc -eq $(gv conns) ]]; then
	ktap_test_pass "sums over the services equal the global ones: $msg"
else
	MISMATCH=$((MISMATCH + 1))
	ktap_test_fail "sums over the services equal the global ones: $msg"
fi
# rx-packets = packets + drops after the service lookup; packets = tx-packets + drops on the way
# out; every backend is IPv4 with IPIP, so tx-bytes = bytes + 20 per packet.
P=$(gv packets) RX=$(gv rx-packets) TX=$(gv tx-packets)
DPRE=$(($(gv drop-no-backend) + $(gv drop-client-limit) + $(gv drop-probe-mismatch)))
DTX=$(($(gv drop-no-route) + $(gv drop-too-big) + $(gv drop-nomem)))
msg="rx-packets $RX = packets $P + drops $DPRE; packets = tx-packets $TX + drops $DTX; tx-bytes $(gv tx-bytes) = bytes $(gv bytes) + 20 x $TX"
if [[ $RX -gt 0 && $RX -eq $((P + DPRE)) && $P -eq $((TX + DTX)) &&
      $(gv tx-bytes) -eq $(($(gv bytes) + 20 * TX)) ]]; then
	ktap_test_pass "data path counters account for the services': $msg"
else
	MISMATCH=$((MISMATCH + 1))
	ktap_test_fail "data path counters account for the services': $msg"
fi
# entries: none expired or was evicted (2 h timeouts), so conns = conn-new = the table's count;
# every new flow was tracked (conn-max not reached), so new-flows = conn-new, but for HTTP
# connections from a client port an earlier one used (the client keeps no TIME_WAIT): their
# SYN reuses the closed connection's entry (Documentation/dataplane.rst), a new flow without a
# new entry. curl printed each request's port (it is stopped between requests: killed in one,
# a SYN that reused an entry went uncounted here, new-flows 1,939 = 1,783 + 0 + 155 + 1 once).
# This holds below conn-max, which the soak never reaches.
REUSE=$(awk '/^backend b[0-9]+ [0-9]+$/ { n[$3]++ } END { for (p in n) r += n[p] - 1; print r + 0 }' "$DP_TMP/curl.out")
CN=$(gv conn-new)
tbl=$(kmg_jq .conns <<<"$cfg")
UNTR=$(($(gv conn-table-full) + $(gv conn-flood) + $(gv conn-svc-limit)))
msg="conns $(gv conns), table $tbl, conn-new $CN - conn-expired $(gv conn-expired) - conn-evict-syn $(gv conn-evict-syn); new-flows $(gv new-flows) = conn-new + untracked $UNTR + reused $REUSE"
if [[ $(gv conns) -eq $tbl && $tbl -eq $((CN - $(gv conn-expired) - $(gv conn-evict-syn))) &&
      $(gv new-flows) -eq $((CN + UNTR + REUSE)) && $CN -gt 0 ]]; then
	ktap_test_pass "connection counters add up: $msg"
else
	MISMATCH=$((MISMATCH + 1))
	ktap_test_fail "connection counters add up: $msg"
fi
# The checks above fail on counters from another time: the services' sums at the end against
# the global counters at the start (g0), the table at the end against conn-new at the start
msg="services' packets $sp, bytes $sb against $(gv packets "$g0"), $(gv bytes "$g0") at the start; table $tbl against conn-new $(gv conn-new "$g0") at the start"
if [[ -n $sp && -n $tbl && $sp -ne $(gv packets "$g0") && $sb -ne $(gv bytes "$g0") &&
      $tbl -ne $(gv conn-new "$g0") ]]; then
	ktap_test_pass "the counter checks tell samples apart: $msg"
else
	ktap_test_fail "the counter checks tell samples apart: $msg"
fi
dp_check_hook "every packet of the soak" "$g0" "$g1"

DUR=$SECONDS
if [[ $__ktap_fail -eq 0 ]]; then res=pass; else res=FAIL; fi
echo "# churn: $ops ops, 40 streams, $SLINES lines / $SBYTES bytes echoed, $RESETS resets, $NHTTP HTTP connections, $UDP_ROUNDS UDP rounds ($UDP_MOVED failovers), $MISMATCH counter mismatches"
echo "# reliability: backend churn (hook $DP_HOOK) | $ops config ops in ${churn_secs} s ($(rate $ops $churn_secs)/s with the checks, $(rate $ops $batch_secs)/s in the batches: add ${NOPS[add]} del ${NOPS[del]} drain ${NOPS[drain]} weight ${NOPS[weight]} replace ${NOPS[replace]}, x4 services); 40 TCP streams, 80 UDP flows, $NHTTP new HTTP connections | ${DUR} s | $RESETS resets, $stalled stalled rounds, $UDP_BAD bad UDP rounds, $MISMATCH counter mismatches | $SBYTES stream bytes, $UDP_MOVED UDP failovers, $res"
dp_test_end
