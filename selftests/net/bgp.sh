#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The daemon's built-in BGP speaker against real BGP daemons: BIRD 2, FRR and GoBGP (each
# skipped when it is not installed), one after the other on one topology:
#
#   lb (kmaglev services, `kmaglev daemon`) --veth-- rtr (the peer daemon)
#      10.0.0.1/24 2001:db8::1/64                  10.0.0.2/24 2001:db8::2/64
#   lb --veth-- be (socat on port 80: the backend of both services)
#      10.1.0.1/24                                 10.1.0.2/24
#
# The daemon has two neighbors, one per family (v4 hold time 3 s, v6 9 s), and two VIPs:
# 192.0.2.1 (tcp check on the backend; communities 65001:7, MED 10) and 2001:db8:f::1 (no
# check: always up); large community 65001:1:2 on both. Per peer kind:
#   1. both sessions Established, at the peer and in `kmaglev bgp show -j` (and metrics)
#   2. v4 and v6 routes with their attributes at the peer
#   3. the backend dies: the route is withdrawn at the peer within 1 s of the daemon's
#      verdict (the kernel's backend-change/service-change event); back when it recovers
#   4. the peer frozen (SIGSTOP): the hold timer expires within hold + 2 s; back after SIGCONT
#   5. graceful restart: `kmaglev graceful-restart`, a new daemon: the routes never leave
#      the peer, the sessions come back
#   6. SIGTERM: GRACEFUL_SHUTDOWN (65535:0), withdrawal, then Cease/Administrative Shutdown
#      with "kmaglev daemon shutting down"
# and, for BIRD, the daemon's v4 neighbor is passive (BIRD connects; `listen` set); for FRR,
# both sessions use TCP-MD5.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip socat jq curl

KINDS=()
command -v bird >/dev/null && command -v birdc >/dev/null && KINDS+=(bird)
[[ -x /usr/lib/frr/bgpd && -x /usr/lib/frr/zebra ]] && command -v vtysh >/dev/null && KINDS+=(frr)
command -v gobgpd >/dev/null && command -v gobgp >/dev/null && KINDS+=(gobgp)
[[ ${#KINDS[@]} -gt 0 ]] || ktap_skip_all "none of bird, frr, gobgp is installed"

source "$(dirname "$0")/bgp_lib.sh"

ALL_KINDS=(bird frr gobgp)
# results per kind: 6, plus bird's passive and frr's MD5
nres() { case $1 in bird|frr) echo 7 ;; *) echo 6 ;; esac; }

ktap_print_header
ktap_set_plan 20

T=$BGP_TMP
SOCK=$T/d.sock
CFG=$T/k.yaml
DLOG=$T/d.log
DPID=
BEPID=
METRICS=127.0.0.1:9742
VIP4=192.0.2.1
VIP6=2001:db8:f::1
PFX4=$VIP4/32
PFX6=$VIP6/128
LB4=10.0.0.1 LB6=2001:db8::1 RT4=10.0.0.2 RT6=2001:db8::2
HOLD4=3
WANT4="$PFX4 $LB4 as_path=65001 local_pref=- med=10 communities=65001:7 large=65001:1:2 origin=igp stale=0"
WANT6="$PFX6 $LB6 as_path=65001 local_pref=- med=- communities=- large=65001:1:2 origin=igp stale=0"

now() { date +%s.%N; }
fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
fle() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# --- topology --------------------------------------------------------------------------------
setup() {
	kmg_load_module || return 1
	kmg_netns_add LB && kmg_netns_add RTR && kmg_netns_add BE || return 1
	ip link add r0 netns "$LB" type veth peer name l0 netns "$RTR" || return 1
	ip link add b0 netns "$LB" type veth peer name l0 netns "$BE" || return 1
	ip -n "$LB" addr add $LB4/24 dev r0
	ip -n "$LB" addr add $LB6/64 dev r0 nodad
	ip -n "$RTR" addr add $RT4/24 dev l0
	ip -n "$RTR" addr add $RT6/64 dev l0 nodad
	ip -n "$LB" addr add 10.1.0.1/24 dev b0
	ip -n "$BE" addr add 10.1.0.2/24 dev l0
	ip -n "$LB" link set r0 up && ip -n "$LB" link set b0 up &&
		ip -n "$RTR" link set l0 up && ip -n "$BE" link set l0 up || return 1
	# (the v6 link-local addresses, for the next hop the speaker adds)
	bgp_wait 10 eval '[[ -n $(ip -n "$LB" -6 addr show dev r0 scope link -tentative) ]]'
	backend_start
	ip netns exec "$LB" timeout 1800 "$KMAGLEV" -t monitor >"$T/mon.log" 2>&1 &
	MONPID=$!
	disown $MONPID
}

backend_start() {
	ip netns exec "$BE" socat TCP-LISTEN:80,fork,reuseaddr SYSTEM:'echo hi' >/dev/null 2>&1 &
	BEPID=$!
	disown $BEPID
	bgp_wait 10 ip netns exec "$BE" bash -c 'ss -Hltn "sport = :80" | grep -q .'
}
backend_stop() { kill "$BEPID" 2>/dev/null; bgp_wait 10 eval '! kill -0 $BEPID'; }

# --- the daemon ------------------------------------------------------------------------------
KS() { KMAGLEV_SOCKET=$SOCK ip netns exec "$LB" "$KMAGLEV" "$@"; }

# write_config KIND: BIRD: the v4 neighbor passive (listen set); FRR: TCP-MD5.
write_config() {
	local o4='' o6='' listen=''
	case $1 in
	bird) o4=', passive: true'; listen="  listen: $LB4" ;;
	frr) o4=', password: s3cret'; o6=', password: s3cret' ;;
	esac
	cat >"$CFG" <<EOF
daemon: { socket: $SOCK, metrics: "$METRICS", drain-time: 4s }
services:
  - vip: $VIP4
    port: 80
    checks: [ { kind: tcp, via: direct, interval: 500ms, timeout: 300ms, rise: 1, fall: 1 } ]
    backends: [ { address: 10.1.0.2 } ]
    bgp: { communities: ["65001:7"], med: 10 }
  - vip: "$VIP6"
    port: 80
    backends: [ { address: 10.1.0.2 } ]
bgp:
  asn: 65001
  router-id: $LB4
  large-communities: ["65001:1:2"]
  graceful-restart-time: 120s
  shutdown-time: 2s
$listen
  neighbors:
    - { address: $RT4, asn: 65000, hold-time: ${HOLD4}s$o4 }
    - { address: "$RT6", asn: 65000, hold-time: 9s$o6 }
EOF
}

daemon_start() {
	rm -f "$SOCK"
	echo "=== daemon start $(now)" >>"$DLOG"
	KMAGLEV_SOCKET=$SOCK ip netns exec "$LB" "$KMAGLEV" daemon -c "$CFG" >>"$DLOG" 2>&1 &
	DPID=$!
	bgp_wait 30 KS bgp show -j
}
daemon_alive() { [[ -n $DPID ]] && kill -0 "$DPID" 2>/dev/null; }
daemon_stop() {
	daemon_alive || return 0
	kill -INT "$DPID" 2>/dev/null
	bgp_wait 10 eval '! daemon_alive' || kill -KILL "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}

# our view of a neighbor: its field in `kmaglev bgp show -j`
dfield() { KS bgp show -j 2>/dev/null | jq -r --arg a "$1" ".peers[] | select(.address == \$a) | .[\"$2\"]"; }
d_est() { [[ $(dfield "$RT4" state) == Established && $(dfield "$RT6" state) == Established ]]; }
p_est() { [[ $(bgp_peer_state "$RTR" "$KIND" $LB4) == Established &&
	$(bgp_peer_state "$RTR" "$KIND" $LB6) == Established ]]; }
metric_up() {
	local m
	m=$(ip netns exec "$LB" curl -sf "http://$METRICS/metrics") || return 1
	[[ $(grep -E '^kmaglev_bgp_session_up\{' <<<"$m" | awk '$2 == 1' | wc -l) -eq 2 ]]
}

diag() {
	echo "# --- $KIND: $*"
	KS bgp show 2>&1 | sed 's/^/#   show: /'
	echo "#   peer state v4 $(bgp_peer_state "$RTR" "$KIND" $LB4 2>&1) v6 $(bgp_peer_state "$RTR" "$KIND" $LB6 2>&1)"
	bgp_peer_routes "$RTR" "$KIND" 2>&1 | sed 's/^/#   peer route: /'
	echo "#   peer last error: $(bgp_peer_last_error "$RTR" "$KIND" $LB4 2>&1)"
	tail -n 12 "$DLOG" | sed 's/^/#   log: /'
}

# has PFX: the peer holds a route to PFX (its own CLI, no reader: fast enough to poll).
has() {
	local p=$1 af=4
	[[ $p == *:* ]] && af=6
	case $KIND in
	bird) bgp_peer_cmd "$RTR" "$KIND" show route "$p" table "master$af" 2>/dev/null |
		grep -q "^${p}[[:space:]]" ;;
	frr) bgp_peer_cmd "$RTR" "$KIND" show bgp ipv$af unicast "$p" json 2>/dev/null |
		grep -q '"paths"' ;;
	gobgp) bgp_peer_cmd "$RTR" "$KIND" global rib -a ipv$af "$p" 2>/dev/null |
		grep -qF "$p" ;;
	esac
}

# the time of the first backend-change or service-change event after TS
event_after() {
	local iso s
	awk '$3 == "event" && ($4 == "backend-change" || $4 == "service-change") { print $2 }' \
		"$T/mon.log" | while read -r iso; do
		s=$(date -d "$iso" +%s.%N)
		fle "$s" "$1" && continue
		echo "$s"
		break
	done
}

REMAIN=0
res_pass() { REMAIN=$((REMAIN - 1)); ktap_test_pass "$KIND: $*"; }
res_fail() { REMAIN=$((REMAIN - 1)); ktap_test_fail "$KIND: $*"; }
fail_rest() {
	while [[ $REMAIN -gt 0 ]]; do res_fail "not run ($*)"; done
}

# --- the cases -------------------------------------------------------------------------------
c_established() {
	if bgp_wait 40 p_est && bgp_wait 20 d_est; then
		metric_up || { diag "metrics"; res_fail "kmaglev_bgp_session_up is not 1 for both"; return 1; }
		res_pass "both sessions Established, at the peer and in bgp show (metrics agree), $((SECONDS - $1))s after the peer started"
		return 0
	fi
	diag "not Established"
	res_fail "both sessions Established"
	return 1
}

c_option() {
	case $KIND in
	bird)
		# BIRD's session to our passive neighbor is its own connection
		if [[ $(dfield "$RT4" passive) == true ]] && d_est; then
			res_pass "the daemon's passive v4 neighbor: BIRD connected, Established"
		else
			diag "passive"
			res_fail "the daemon's passive v4 neighbor"
		fi ;;
	frr)
		if [[ $(dfield "$RT4" md5) == true && $(dfield "$RT6" md5) == true ]] && d_est; then
			res_pass "TCP-MD5 on both sessions, Established"
		else
			diag "md5"
			res_fail "TCP-MD5 on both sessions"
		fi ;;
	esac
}

routes_ok() {
	[[ $(bgp_peer_routes "$RTR" "$KIND" v4) == "$WANT4" && $(bgp_peer_routes "$RTR" "$KIND" v6) == "$WANT6" ]]
}

c_routes() {
	if bgp_wait 20 routes_ok; then
		res_pass "v4 and v6 routes with next hop, AS path, origin, MED, communities"
	else
		echo "# want: $WANT4"
		echo "# want: $WANT6"
		diag "routes"
		res_fail "v4 and v6 routes with their attributes"
	fi
}

c_withdraw() {
	local ts tg te lat ok=1 desc
	ts=$(now)
	backend_stop
	tg=''
	local end=$((SECONDS + 20))
	while [[ $SECONDS -lt $end ]]; do
		if ! has "$PFX4"; then
			tg=$(now)
			break
		fi
		bgp_sleep 0.1
	done
	te=$(event_after "$ts")
	if [[ -z $tg || -z $te ]]; then
		diag "withdrawal (route gone: ${tg:-no}, event: ${te:-none})"
		tail -n 4 "$T/mon.log" | sed 's/^/#   mon: /'
		ok=0
		desc="the backend went down: the v4 route was not withdrawn (or no kernel event)"
	else
		lat=$(fsub "$tg" "$te")
		desc="withdrawn ${lat}s after the backend went down (kernel event $(fsub "$te" "$ts")s after the kill)"
		fle "$lat" 1.0 || ok=0
	fi
	has "$PFX6" || { echo "# the v6 route went too"; ok=0; }
	backend_start
	if ! bgp_wait 20 routes_ok; then
		diag "re-announce"
		desc+="; not re-announced after the backend came back"
		ok=0
	else
		desc+="; re-announced"
	fi
	if [[ $ok == 1 ]]; then res_pass "$desc"; else res_fail "$desc (bound 1s)"; fi
}

# the neighbor's pids: __bgp_pids is bgp_lib.sh's
peer_pids() { __bgp_pids "$RTR/$KIND"; }

c_hold() {
	local ts t1 t ok=0 p
	ts=$(now)
	for p in $(peer_pids); do kill -STOP "$p"; done
	local end=$((SECONDS + HOLD4 + 15))
	while [[ $SECONDS -lt $end ]]; do
		if [[ $(dfield "$RT4" state) != Established && $(dfield "$RT4" last-error) == *"Hold Timer"* ]]; then
			t1=$(now)
			break
		fi
		bgp_sleep 0.1
	done
	local err
	err=$(dfield "$RT4" last-error)
	for p in $(peer_pids); do kill -CONT "$p"; done
	if [[ -n $t1 ]]; then
		t=$(fsub "$t1" "$ts")
		fle "$t" $((HOLD4 + 2)) && ok=1
	else
		grep "Hold Timer" "$DLOG" | tail -n 2 | sed 's/^/#   log: /'
	fi
	if [[ $ok == 1 ]] && bgp_wait 30 p_est && bgp_wait 10 d_est && bgp_wait 20 routes_ok; then
		res_pass "peer frozen: session down ${t}s after SIGSTOP (hold ${HOLD4}s, last-error \"$err\"); Established again after SIGCONT"
	else
		diag "hold"
		res_fail "peer frozen: hold timer expiry (${t:-not seen}s, last-error \"$err\", bound $((HOLD4 + 2))s), back after SIGCONT"
	fi
}

# poll_gr FILE STOPFILE: "TIME V4 V6" (1 present, 0 gone) every ~0.15 s until STOPFILE exists.
poll_gr() {
	local a b
	while [[ ! -e $2 ]]; do
		has "$PFX4" && a=1 || a=0
		has "$PFX6" && b=1 || b=0
		echo "$(now) $a $b" >>"$1"
		bgp_sleep 0.15
	done
}

c_gr() {
	local f=$T/gr.$KIND stop=$T/gr.$KIND.stop gone n ok=1 desc
	poll_gr "$f" "$stop" &
	local ppid=$!
	bgp_wait 5 test -s "$f"
	if ! KS graceful-restart >"$T/gr.out" 2>&1; then
		sed 's/^/#   /' "$T/gr.out"
		ok=0
	fi
	bgp_wait 10 eval '! daemon_alive' || ok=0
	wait "$DPID" 2>/dev/null
	# the peers see the sessions go (or find out with the new connection)
	bgp_sleep 1
	local t0=$SECONDS
	daemon_start || ok=0
	if ! bgp_wait 40 p_est || ! bgp_wait 20 d_est; then
		diag "GR: not Established again"
		ok=0
	fi
	# End-of-RIB: nothing stale any more
	if ! bgp_wait 20 eval '[[ -z $(bgp_peer_gr_stale "$RTR" "$KIND") ]] && routes_ok'; then
		diag "GR: stale routes stay"
		ok=0
	fi
	touch "$stop"
	wait "$ppid"
	n=$(wc -l <"$f")
	gone=$(awk '$2 == 0 || $3 == 0' "$f" | head -n 3)
	if [[ -n $gone ]]; then
		echo "$gone" | sed 's/^/#   missing at: /'
		ok=0
	fi
	desc="graceful restart: routes stayed through the daemon's restart ($n polls), Established again in $((SECONDS - t0))s"
	if [[ $ok == 1 ]]; then res_pass "$desc"; else res_fail "$desc"; fi
}

c_sigterm() {
	local f=$T/term.$KIND stop=$T/term.$KIND.stop ts tx ok=1 gs tw err desc
	(
		while [[ ! -e $stop ]]; do
			echo "@ $(now) $(bgp_peer_routes "$RTR" "$KIND" v4 | tr '\n' ' ')"
			bgp_sleep 0.1
		done
	) >"$f" &
	local ppid=$!
	bgp_wait 5 test -s "$f"
	ts=$(now)
	kill -TERM "$DPID"
	bgp_wait 30 eval '! daemon_alive' || ok=0
	tx=$(now)
	wait "$DPID" 2>/dev/null
	bgp_sleep 0.5
	touch "$stop"
	wait "$ppid"
	# first poll with 65535:0, first poll with no route
	gs=$(awk -v t="$ts" '$2 > t && /65535:0/ { print $2; exit }' "$f")
	tw=$(awk -v t="$ts" '$2 > t && !/192\.0\.2\.1/ { print $2; exit }' "$f")
	bgp_wait 10 eval '[[ -n $(bgp_peer_last_error "$RTR" "$KIND" $LB4) ]]'
	err=$(bgp_peer_last_error "$RTR" "$KIND" $LB4)
	if [[ -n $gs ]]; then
		desc="SIGTERM: GRACEFUL_SHUTDOWN 65535:0 at $(fsub "$gs" "$ts")s"
	else
		desc="SIGTERM: (GRACEFUL_SHUTDOWN not seen by the poller)"
	fi
	if [[ -z $tw ]]; then
		desc+=", never withdrawn"
		ok=0
	else
		desc+=", withdrawn at $(fsub "$tw" "$ts")s"
		# withdrawn before the session ends (with the drain time between)
		fle "$tw" "$(awk -v a="$tx" 'BEGIN { printf "%.3f", a - 0.5 }')" || ok=0
		[[ -z $gs ]] || fle "$gs" "$tw" || ok=0
	fi
	desc+=", daemon gone at $(fsub "$tx" "$ts")s, peer's last error \"$err\""
	[[ $err == *6/2* && ${err,,} == *"administrative shutdown"* && $err == *"kmaglev daemon shutting down"* ]] || ok=0
	if [[ $ok == 1 ]]; then
		res_pass "$desc"
	else
		awk '{ $2 = sprintf("%.1f", $2 - '"$ts"'); print "#   poll: " $0 }' "$f" | tail -n 20
		diag "SIGTERM"
		res_fail "$desc"
	fi
}

run_kind() {
	KIND=$1
	REMAIN=$(nres "$KIND")
	local t0=$SECONDS md5=()
	[[ $KIND == frr ]] && md5=(md5=s3cret)
	write_config "$KIND"
	if ! bgp_peer_start "$KIND" "$RTR" "$KIND" as=65000 id=$RT4 peer_as=65001 \
		neighbor=$LB4@v4,$LB6@v6 local=$RT4,$RT6 gr=1 gr_time=120 "${md5[@]}" 2>"$T/start.err"; then
		sed 's/^/# /' "$T/start.err"
		fail_rest "$KIND did not start"
		return
	fi
	if ! daemon_start; then
		tail -n 20 "$DLOG" | sed 's/^/# /'
		fail_rest "the daemon did not start"
		bgp_peer_stop "$RTR" "$KIND"
		return
	fi
	if c_established "$t0"; then
		[[ $KIND == bird || $KIND == frr ]] && c_option
		c_routes
		c_withdraw
		c_hold
		c_gr
		if daemon_alive; then c_sigterm; else res_fail "SIGTERM: no daemon running"; fi
	fi
	fail_rest "no session"
	daemon_stop
	bgp_peer_stop "$RTR" "$KIND"
	echo "# $KIND: $((SECONDS - t0))s"
}

if ! setup; then
	for KIND in "${ALL_KINDS[@]}"; do REMAIN=$(nres "$KIND"); fail_rest "setup failed"; done
	ktap_finished
fi

for k in "${ALL_KINDS[@]}"; do
	if [[ " ${KINDS[*]} " == *" $k "* ]]; then
		run_kind "$k"
	else
		for ((i = 0; i < $(nres "$k"); i++)); do ktap_test_skip "$k: not installed"; done
	fi
done
daemon_stop
ktap_finished
