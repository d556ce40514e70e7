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
#   3. the backend dies: the withdrawal reaches the peer within 1 s of the daemon's verdict
#      (the kernel's backend-change/service-change event to the UPDATE captured on the peer's
#      link), the peer drops the route, and has it again when the backend recovers
#   4. the peer frozen (SIGSTOP): the hold timer expires within hold + 2 s; back after SIGCONT
#   5. graceful restart: `kmaglev graceful-restart`, a new daemon: the routes never leave
#      the peer, the sessions come back
#   6. SIGTERM: GRACEFUL_SHUTDOWN (65535:0), withdrawal, then Cease/Administrative Shutdown
#      with "kmaglev daemon shutting down"
# and, for BIRD and FRR, the v6 session runs with GTSM (RFC 5082) on both ends, and then GTSM
# on our end alone of the v4 session keeps it down (the peer's packets come with TTL 1:
# TCPMinTTLDrop), and an IPv6 session alone carries the IPv4 VIP with the IPv6 next hop
# (RFC 8950, the peer's extended next hop); FRR installs that route in its namespace's FIB
# (`via inet6`). For BIRD the daemon's v4 neighbor is passive (BIRD connects; `listen` set);
# for FRR, both sessions also use TCP-MD5.
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip socat jq curl tcpdump

KINDS=()
command -v bird >/dev/null && command -v birdc >/dev/null && KINDS+=(bird)
[[ -x /usr/lib/frr/bgpd && -x /usr/lib/frr/zebra ]] && command -v vtysh >/dev/null && KINDS+=(frr)
command -v gobgpd >/dev/null && command -v gobgp >/dev/null && KINDS+=(gobgp)
[[ ${#KINDS[@]} -gt 0 ]] || ktap_skip_all "none of bird, frr, gobgp is installed"

source "$(dirname "$0")/bgp_lib.sh"

# KMAGLEV_BGP_PEERS: the peer kinds to run, of these (make check: bird alone; the others are
# make check-full's).
ALL_KINDS=(${KMAGLEV_BGP_PEERS:-bird frr gobgp})
for k in "${ALL_KINDS[@]}"; do
	[[ $k == bird || $k == frr || $k == gobgp ]] || ktap_skip_all "KMAGLEV_BGP_PEERS: unknown peer kind '$k' (bird, frr, gobgp)"
done
# results per kind: 6, plus GTSM (2) and extended next hop for bird and frr, and bird's
# passive, frr's MD5
nres() { case $1 in bird|frr) echo 10 ;; *) echo 6 ;; esac; }

ktap_print_header
plan=0
for k in "${ALL_KINDS[@]}"; do plan=$((plan + $(nres "$k"))); done
ktap_set_plan $plan

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

now() { echo "$EPOCHREALTIME"; }
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
	# No SLAAC address on the LB's link: FRR's zebra sends router advertisements for
	# 2001:db8::/64 once a neighbor has "capability extended-nexthop" (FRR 8.4, checked in
	# two namespaces: with it the other end had a SLAAC address in 12 s, without it none in
	# 15 s), and the kernel (longest match capped at the prefix length: a tie) then gave the
	# daemon's next IPv6 connections the new address as their source, which no peer knows
	# (seen: FRR's listener, keyed for 2001:db8::1 only, dropped the signed SYNs,
	# TCPMD5Unexpected; GoBGP "Can't find configuration for a new passive connection" from
	# 2001:db8::303c:23ff:fe62:95f4). An LB host keeps its source with accept_ra 0, or with
	# bgp's listen: (bgp.rst).
	ip netns exec "$LB" sysctl -qw net.ipv6.conf.r0.accept_ra=0
	ip -n "$RTR" addr add $RT4/24 dev l0
	ip -n "$RTR" addr add $RT6/64 dev l0 nodad
	ip -n "$LB" addr add 10.1.0.1/24 dev b0
	ip -n "$BE" addr add 10.1.0.2/24 dev l0
	ip -n "$LB" link set r0 up && ip -n "$LB" link set b0 up &&
		ip -n "$RTR" link set l0 up && ip -n "$BE" link set l0 up || return 1
	# (the v6 link-local addresses, for the next hop the speaker adds)
	bgp_wait 10 eval '[[ -n $(ip -n "$LB" -6 addr show dev r0 scope link -tentative) ]]'
	backend_start
	ip netns exec "$LB" timeout 1800 "$KMAGLEV" -j -t monitor >"$T/mon.log" 2>&1 &
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
# (the control socket is a path: no need to enter the namespace)
KS() { KMAGLEV_SOCKET=$SOCK "$KMAGLEV" "$@"; }

# write_config KIND [gtsm4|extnh]: BIRD and FRR: GTSM on v6 (and on v4 with gtsm4; extnh: the
# v6 neighbor alone, IPv4 with IPv6 next hops, no GTSM); BIRD: the v4 neighbor passive
# (listen set); FRR: TCP-MD5.
write_config() {
	local o4='' o6='' listen='' n4
	case $1 in
	bird) o4=', passive: true'; listen="  listen: $LB4" ;;
	frr) o4=', password: s3cret'; o6=', password: s3cret' ;;
	esac
	case $1/${2:-} in
	bird/extnh|frr/extnh) o6+=', extended-next-hop: true' ;;
	bird/*|frr/*) o6+=', ttl-security: true' ;;
	esac
	[[ ${2:-} == gtsm4 ]] && o4+=', ttl-security: true'
	n4="    - { address: $RT4, asn: 65000, hold-time: ${HOLD4}s$o4 }"$'\n'
	[[ ${2:-} == extnh ]] && n4=''
	cat >"$CFG" <<EOF
daemon: { socket: $SOCK, metrics: "$METRICS", drain-time: 4s }
services:
  - vip: $VIP4
    port: 80
    # A stopped backend refuses at once and goes in 3 checks (under 6 s); a loaded host's
    # guest can stall a connect for seconds, and 2 such (1 s timeouts) are the likely reason
    # the v4 route went in the graceful-restart case once (make check-full, load 9 on 2 cores).
    checks: [ { kind: tcp, via: direct, interval: 2s, timeout: 2s, rise: 1, fall: 3 } ]
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
$n4    - { address: "$RT6", asn: 65000, hold-time: 9s$o6 }
EOF
}

daemon_start() {
	rm -f "$SOCK"
	echo "=== daemon start $(now)" >>"$DLOG"
	# each line of the log with the time it was written (through a FIFO: the VM has no
	# /dev/fd for a process substitution)
	[[ -p $T/dlog.fifo ]] || mkfifo "$T/dlog.fifo"
	(while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done <"$T/dlog.fifo" >>"$DLOG") &
	KMAGLEV_SOCKET=$SOCK ip netns exec "$LB" "$KMAGLEV" daemon -c "$CFG" >"$T/dlog.fifo" 2>&1 &
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
d_est() {
	[[ $(KS bgp show -j 2>/dev/null | jq -r '[.peers[] | select(.state == "Established")] | length') == 2 ]]
}
# both sessions Established and each announcing its VIP
d_routes() {
	[[ $(KS bgp show -j 2>/dev/null | jq -r '[.peers[] | select(.state == "Established" and ."prefixes-announced" == 1)] | length') == 2 ]]
}
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
	# who holds port 179 at the peer's end, and what its kernel dropped
	ip netns exec "$RTR" ss -Htanp 'sport = :179 or dport = :179' 2>&1 | sed 's/^/#   peer socket: /'
	ip netns exec "$RTR" nstat -az 2>/dev/null | awk '/MD5|MinTTL|ListenDrops|ListenOverflows/ && $2 { print "#   peer counter: " $1, $2 }'
}

# watch_start FILE AFIS: a loop in the peer's namespace appends "START END V4 V6 G" (1: the
# peer has the VIP's route, 0: not, "-": not asked; G: the v4 route is tagged 65535:0) to
# FILE every 0.1 s until watch_stop.
# One process per query and no `ip netns exec` each time: polls stay short under TCG.
cat >"$T/watch.sh" <<'EOF'
out=$1 afis=$2 kind=$3 q4=$4 q6=$5 p4=$6 p6=$7
# (G: the v4 route carries GRACEFUL_SHUTDOWN, however the daemon spells 65535:0)
has() {
	o=$(eval "$1" 2>/dev/null)
	case $kind in
	bird) [[ $o == *$'\n'"$2 "* ]] ;;
	frr) [[ $o == *'"paths"'* ]] ;;
	gobgp) [[ $o == *"$2"* ]] ;;
	esac
}
mkfifo "$out.fifo"
exec {fd}<>"$out.fifo"
# GoBGP's CLI takes seconds to start under TCG: `gobgp monitor global rib` instead, one
# per family, which prints each change of the prefix as it happens (after the current
# routes, --current); a row per line.
if [[ $kind == gobgp ]]; then
	pids=()
	for f in 4 6; do
		[[ $afis == *$f* ]] || continue
		[[ $f == 4 ]] && q=$q4 p=$p4 || q=$q6 p=$p6
		mkfifo "$out.mon$f"
		$q >"$out.mon$f" 2>/dev/null &
		pids+=($!)
		while IFS= read -r l; do
			[[ $l == *"\"$p\""* ]] || continue
			[[ $l == *'"withdrawal":true'* ]] && a=0 || a=1
			[[ $l == *4294901760* ]] && g=1 || g=0	# 65535:0
			if [[ $f == 4 ]]; then
				echo "$EPOCHREALTIME $EPOCHREALTIME $a - $g"
			else
				echo "$EPOCHREALTIME $EPOCHREALTIME - $a -"
			fi >>"$out"
		done <"$out.mon$f" &
		pids+=($!)
	done
	until [[ -e $out.stop ]]; do read -r -t 0.1 -u "$fd" _; done
	kill "${pids[@]}" 2>/dev/null
	exit 0
fi
while [[ ! -e $out.stop ]]; do
	t=$EPOCHREALTIME a=- b=- g=-
	if [[ $afis == *4* ]]; then
		has "$q4" "$p4" && a=1 || a=0
		shopt -s nocasematch
		[[ $o == *65535:0* || $o == *"(65535,0)"* || $o == *gshut* || $o == *graceful?shutdown* ]] &&
			g=1 || g=0
		shopt -u nocasematch
	fi
	if [[ $afis == *6* ]]; then has "$q6" "$p6" && b=1 || b=0; fi
	echo "$t $EPOCHREALTIME $a $b $g" >>"$out"
	read -r -t 0.1 -u "$fd" _
done
EOF
watch_start() {
	local dir=${__bgp_dir[$RTR/$KIND]} q4 q6
	case $KIND in
	bird) q4="birdc -s $dir/bird.ctl show route $PFX4 table master4 all"
		q6="birdc -s $dir/bird.ctl show route $PFX6 table master6" ;;
	# (bgpd's vty socket: see __bgp_vtysh_bgpd)
	frr) q4="printf 'show bgp ipv4 unicast $PFX4 json\\0' | socat - UNIX-CONNECT:$dir/bgpd.vty | tr -d '\\0'"
		q6="printf 'show bgp ipv6 unicast $PFX6 json\\0' | socat - UNIX-CONNECT:$dir/bgpd.vty | tr -d '\\0'" ;;
	gobgp) q4="gobgp -u 127.0.0.1 -p $(cat "$dir/api.port") monitor global rib -a ipv4 -j --current"
		q6="gobgp -u 127.0.0.1 -p $(cat "$dir/api.port") monitor global rib -a ipv6 -j --current" ;;
	esac
	rm -f "$1" "$1.stop" "$1.fifo"
	ip netns exec "$RTR" bash "$T/watch.sh" "$1" "$2" "$KIND" "$q4" "$q6" "$PFX4" "$PFX6" &
	WATCHPID=$!
	# (its first poll: seconds for a peer's CLI on a loaded host)
	bgp_wait 40 test -s "$1"
}
watch_stop() { touch "$1.stop"; wait "$WATCHPID"; }

# the time of the first backend-change or service-change event after TS (the monitor's JSON
# lines, one by one: a line it is still writing is left for the next call)
event_after() {
	local iso s
	jq -rR 'fromjson? | select(.event == "backend-change" or .event == "service-change") | .time' \
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
	if bgp_wait 40 d_est && bgp_wait 20 p_est; then
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
		fi
		;;
	frr)
		if [[ $(dfield "$RT4" md5) == true && $(dfield "$RT6" md5) == true ]] && d_est; then
			res_pass "TCP-MD5 on both sessions, Established"
		else
			diag "md5"
			res_fail "TCP-MD5 on both sessions"
		fi ;;
	esac
	# GTSM on both ends of the v6 session: each sends hop limit 255 and takes nothing
	# below it; neither BIRD nor FRR would talk to a speaker that sent less
	if [[ $(dfield "$RT6" ttl-security) == true && $(dfield "$RT4" ttl-security) == false ]] &&
		d_est; then
		res_pass "GTSM (RFC 5082) on the v6 session, both ends: Established"
	else
		diag "ttl-security"
		res_fail "GTSM on the v6 session"
	fi
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

# logged PATTERN TS: the time of the first line of the daemon's log after TS matching PATTERN
logged() { awk -v t="$2" -v re="$1" '$1 > t && $0 ~ re { print $1; exit }' "$DLOG"; }

# capture_start FILE: tcpdump on the peer's link, the daemon's BGP packets decoded (-v), a
# line-buffered timestamp per packet; capture_stop FILE.
capture_start() {
	rm -f "$1" "$1.err"
	ip netns exec "$RTR" tcpdump -i l0 -tt -n -v -l -U "src host $LB4 and tcp port 179" \
		>"$1" 2>"$1.err" &
	CAPPID=$!
	bgp_wait 20 grep -q "listening on" "$1.err"
}
capture_stop() { kill "$CAPPID" 2>/dev/null; wait "$CAPPID" 2>/dev/null; }

# wire_withdrawn FILE TS PREFIX: the capture time of the first packet after TS whose UPDATE
# lists PREFIX among its withdrawn routes
wire_withdrawn() {
	awk -v t="$2" -v p="$3" '
		/^[0-9]+\.[0-9]+ / { ts = $1; w = 0; next }
		/Update Message/ { w = 0 }
		/Withdrawn routes:/ { w = 1; next }
		w && $1 == p && ts > t { print ts; exit }' "$1"
}

# The latency the daemon answers for: its verdict (the kernel's event) to the UPDATE on the
# peer's link. The peer's own RIB is polled too, but a poll under TCG can take over a second,
# so it only shows that the route went, not when.
c_withdraw() {
	local f=$T/wd.$KIND c=$T/cap.$KIND ts tg tw te tl lat ok=1 desc
	capture_start "$c" || { diag "tcpdump"; res_fail "withdrawal: the capture did not start"; return; }
	watch_start "$f" 4 || { capture_stop; diag "watcher"; res_fail "withdrawal: the watcher did not start"; return; }
	ts=$(now)
	backend_stop
	bgp_wait 20 eval '[[ -n $(awk -v t="$ts" '"'"'$1 > t && $3 == 0'"'"' "$f") ]]'
	bgp_wait 10 eval '[[ -n $(wire_withdrawn "$c" "$ts" "$PFX4") ]]'
	# the end of the first poll that found the route gone: the latest it can have gone
	tg=$(awk -v t="$ts" '$1 > t && $3 == 0 { print $2; exit }' "$f")
	tw=$(wire_withdrawn "$c" "$ts" "$PFX4")
	te=$(event_after "$ts")
	tl=$(logged "192.0.2.1/32 withdrawn" "$ts")
	if [[ -z $tg || -z $tw || -z $te ]]; then
		diag "withdrawal (route gone: ${tg:-no}, UPDATE: ${tw:-none}, event: ${te:-none})"
		tail -n 4 "$T/mon.log" | sed 's/^/#   mon: /'
		ok=0
		desc="the backend went down: the v4 route was not withdrawn (or no kernel event)"
	else
		lat=$(fsub "$tw" "$te")
		desc="withdrawal at the peer $(awk -v a="$tw" -v b="$te" 'BEGIN { printf "%.0f", (a - b) * 1000 }') ms after the backend went down (kernel event $(fsub "$te" "$ts")s after the kill, daemon's log +$(fsub "${tl:-$te}" "$te")s, route gone from the peer's RIB by +$(fsub "$tg" "$te")s with polls of $(awk -v t="$ts" '$1 > t && $3 == 0 { printf "%.2f", $2 - $1; exit }' "$f")s)"
		fle "$lat" 1.0 || ok=0
	fi
	capture_stop
	if [[ $(bgp_peer_routes "$RTR" "$KIND" v6) != "$WANT6" ]]; then
		echo "# the v6 route went too"
		ok=0
	fi
	ts=$(now)
	backend_start
	if ! bgp_wait 20 eval '[[ -n $(awk -v t="$ts" '"'"'$1 > t && $3 == 1'"'"' "$f") ]]' ||
		! bgp_wait 10 routes_ok; then
		diag "re-announce"
		desc+="; not re-announced after the backend came back"
		ok=0
	else
		desc+="; re-announced"
	fi
	watch_stop "$f"
	if [[ $ok == 1 ]]; then res_pass "$desc"; else res_fail "$desc (bound 1s)"; fi
}

# the neighbor's pids: __bgp_pids is bgp_lib.sh's
peer_pids() { __bgp_pids "$RTR/$KIND"; }

c_hold() {
	local ts tl t ok=0 p err
	bgp_wait 20 d_routes
	ts=$(now)
	for p in $(peer_pids); do kill -STOP "$p"; done
	bgp_wait $((HOLD4 + 15)) eval '[[ -n $(logged "bgp: $RT4: session down: .*Hold Timer" "$ts") ]]'
	tl=$(logged "bgp: $RT4: session down: .*Hold Timer" "$ts")
	err=$(dfield "$RT4" last-error)
	for p in $(peer_pids); do kill -CONT "$p"; done
	if [[ -n $tl ]]; then
		t=$(fsub "$tl" "$ts")
		fle "$t" $((HOLD4 + 2)) && [[ $err == *"Hold Timer"* ]] && ok=1
	fi
	if [[ $ok == 1 ]] && bgp_wait 30 d_routes && bgp_wait 10 p_est; then
		res_pass "peer frozen: session down ${t}s after SIGSTOP (hold ${HOLD4}s, last-error \"$err\"); Established again after SIGCONT"
	else
		diag "hold"
		res_fail "peer frozen: hold timer expiry (${t:+${t}s}${t:-not seen}, last-error \"$err\", bound $((HOLD4 + 2))s), back after SIGCONT"
	fi
}

c_gr() {
	local f=$T/gr.$KIND gone n ok=1 desc t0
	watch_start "$f" 46 || { diag "watcher"; res_fail "graceful restart: the watcher did not start"; return; }
	if ! KS graceful-restart >"$T/gr.out" 2>&1; then
		sed 's/^/#   /' "$T/gr.out"
		ok=0
	fi
	bgp_wait 10 eval '! daemon_alive' || ok=0
	wait "$DPID" 2>/dev/null
	t0=$SECONDS
	daemon_start || ok=0
	if ! bgp_wait 40 d_routes || ! bgp_wait 20 p_est; then
		diag "GR: not Established again"
		ok=0
	fi
	local t1=$SECONDS
	# End-of-RIB: nothing stale any more
	if ! bgp_wait 20 eval '[[ -z $(bgp_peer_gr_stale "$RTR" "$KIND") ]] && routes_ok'; then
		diag "GR: stale routes stay"
		ok=0
	fi
	watch_stop "$f"
	n=$(wc -l <"$f")
	gone=$(awk '$3 == 0 || $4 == 0' "$f" | head -n 3)
	if [[ -n $gone ]]; then
		echo "$gone" | sed 's/^/#   missing at: /'
		ok=0
	fi
	desc="graceful restart: routes stayed through the daemon's restart ($n polls), Established again in $((t1 - t0))s"
	if [[ $ok == 1 ]]; then res_pass "$desc"; else res_fail "$desc"; fi
}

c_sigterm() {
	local f=$T/term.$KIND ts tx ok=1 gs tw err desc
	watch_start "$f" 4 || { diag "watcher"; res_fail "SIGTERM: the watcher did not start"; return; }
	ts=$(now)
	kill -TERM "$DPID"
	bgp_wait 30 eval '! daemon_alive' || ok=0
	tx=$(now)
	wait "$DPID" 2>/dev/null
	bgp_sleep 0.5
	watch_stop "$f"
	# the first poll that saw 65535:0 (its end), the first that saw no route
	gs=$(awk -v t="$ts" '$1 > t && $5 == 1 { print $2; exit }' "$f")
	tw=$(awk -v t="$ts" '$1 > t && $3 == 0 { print $2; exit }' "$f")
	bgp_wait 10 eval '[[ -n $(bgp_peer_last_error "$RTR" "$KIND" $LB4) ]]'
	err=$(bgp_peer_last_error "$RTR" "$KIND" $LB4)
	if [[ -n $gs ]]; then
		desc="SIGTERM: GRACEFUL_SHUTDOWN 65535:0 at $(fsub "$gs" "$ts")s"
	else
		desc="SIGTERM: (GRACEFUL_SHUTDOWN not seen at the peer)"
	fi
	if [[ -z $tw ]]; then
		desc+=", never withdrawn"
		ok=0
	else
		desc+=", withdrawn at $(fsub "$tw" "$ts")s"
		[[ -z $gs ]] || fle "$gs" "$tw" || ok=0
		# withdrawn while the session still ran (the drain time between): the poll that
		# saw it gone ended before the Cease; if a starved poll took too long to tell, the
		# daemon's log must show the withdrawal before the Cease
		local tc lw
		tc=$(logged "bgp: $RT4: session down: sent Cease" "$ts")
		lw=$(logged "$PFX4 withdrawn" "$ts")
		if [[ -z $tc ]] || ! fle "$tw" "$tc"; then
			if [[ -n $tc && -n $lw ]] && fle "$lw" "$tc"; then
				desc+=" (the peer's poll too slow to order it before the Cease; the daemon withdrew $(fsub "$tc" "$lw")s before)"
			else
				ok=0
			fi
		fi
	fi
	desc+=", daemon gone at $(fsub "$tx" "$ts")s, peer's last error \"$err\""
	[[ $err == *6/2* && ${err,,} == *"administrative shutdown"* && $err == *"kmaglev daemon shutting down"* ]] || ok=0
	if [[ $ok == 1 ]]; then
		res_pass "$desc"
	else
		awk -v t="$ts" '{ printf "#   poll: %.2f..%.2f %s %s\n", $1 - t, $2 - t, $3, $5 }' "$f" | tail -n 30
		diag "SIGTERM"
		res_fail "$desc"
	fi
}

# GTSM on our end alone of the v4 session: the peer sends TTL 1 (a direct eBGP session), and the
# kernel drops all of it (IP_MINTTL 255; every v4 neighbour has GTSM, so the listener too): no
# session, TCPMinTTLDrop grows, and the peer does not see it Established either. BIRD connects
# (our v4 neighbor is passive) with TTL 1 and its SYN goes: we stay in Active. FRR (no listener
# of ours to connect to here) answers our SYN from its listener, which sends with TTL 255 (FRR
# sets it there for ttl-security), so the handshake completes and our OPEN goes out, but its
# OPEN comes with TTL 1 and goes: we stay in OpenSent (OpenConfirm would mean it came through).
# The v6 session, GTSM on both ends, comes up all the same.
c_gtsm_alone() {
	local d0 d1 ours theirs
	daemon_stop
	write_config "$KIND" gtsm4
	d0=$(ip netns exec "$LB" nstat -az TcpExtTCPMinTTLDrop | awk '/TCPMinTTLDrop/ { print $2 }')
	if ! daemon_start; then
		res_fail "GTSM on our end alone: the daemon did not start"
		return
	fi
	# long enough for the peer to connect (connect retry 1 s) a few times
	if bgp_wait 30 eval '[[ $(dfield "$RT6" state) == Established ]]'; then
		bgp_sleep 6
	fi
	d1=$(ip netns exec "$LB" nstat -az TcpExtTCPMinTTLDrop | awk '/TCPMinTTLDrop/ { print $2 }')
	ours=$(dfield "$RT4" state)
	theirs=$(bgp_peer_state "$RTR" "$KIND" $LB4)
	echo "# v4 $ours (the peer: $theirs), v6 $(dfield "$RT6" state); TCPMinTTLDrop ${d0:-?} -> ${d1:-?}"
	if [[ $ours == @(Idle|Connect|Active|OpenSent) && $theirs != Established &&
		$(dfield "$RT6" state) == Established && ${d1:-0} -gt ${d0:-0} ]]; then
		res_pass "GTSM on our end alone of the v4 session: the peer's TTL-1 packets dropped ($((d1 - d0))), no session (ours $ours, the peer's $theirs); v6 up"
	else
		diag "gtsm alone"
		res_fail "GTSM on our end alone of the v4 session: no session"
	fi
}

# RFC 8950: the peer with one IPv6 session that takes IPv4 too (extended next hop); the daemon's
# IPv6 neighbor with extended-next-hop: the IPv4 VIP reaches the peer over it, next hop our IPv6
# address, with its attributes; the session's families are both. FRR also installs the route
# in its namespace's FIB (zebra), as an IPv4 route via an IPv6 gateway.
fib4() { ip -n "$RTR" route show "$VIP4" 2>&1; }
fib4_v6() { [[ $(fib4) == "$VIP4 "*" via inet6 "@($LB6|fe80:*)" dev l0"* ]]; }
c_ext_nh() {
	local want4="$PFX4 $LB6 as_path=65001 local_pref=- med=10 communities=65001:7 large=65001:1:2 origin=igp stale=0"
	local opts=() fib=0 desc
	[[ $KIND == frr ]] && opts=(md5=s3cret kernel=1) fib=1
	daemon_stop
	bgp_peer_stop "$RTR" "$KIND"
	write_config "$KIND" extnh
	if ! bgp_peer_start "$KIND" "$RTR" "$KIND" as=65000 id=$RT4 peer_as=65001 \
		neighbor=$LB6 afi=v4,v6 local=$RT6 "${opts[@]}" 2>"$T/start.err" || ! daemon_start; then
		sed 's/^/# /' "$T/start.err"
		res_fail "extended next hop: $KIND or the daemon did not start"
		return
	fi
	desc="extended next hop (RFC 8950): the IPv6 session alone carries the IPv4 VIP, next hop $LB6"
	if bgp_wait 40 eval '[[ $(dfield "$RT6" state) == Established ]]' &&
		bgp_wait 20 eval '[[ $(bgp_peer_routes "$RTR" "$KIND" v4) == "$want4" ]]' &&
		[[ $(bgp_peer_routes "$RTR" "$KIND" v6) == "$WANT6" &&
		   $(KS bgp show -j | jq -c --arg a "$RT6" '.peers[] | select(.address == $a) | .families') == '["ipv4","ipv6"]' ]] &&
		{ [[ $fib == 0 ]] || bgp_wait 20 fib4_v6; }; then
		[[ $fib == 1 ]] && desc+="; in the FIB: $(fib4 | tr -s ' \n' ' ')"
		res_pass "$desc"
	else
		echo "# v4 routes: $(bgp_peer_routes "$RTR" "$KIND" v4 2>&1)"
		[[ $fib == 1 ]] && echo "# FIB: $(fib4 | tr -s ' \n' ' ')"
		diag "extended next hop"
		res_fail "extended next hop: the IPv4 VIP over the IPv6 session"
	fi
}

run_kind() {
	KIND=$1
	REMAIN=$(nres "$KIND")
	local t0=$SECONDS md5=()
	[[ $KIND == frr ]] && md5=(md5=s3cret ttl_security=v6)
	[[ $KIND == bird ]] && md5=(ttl_security=v6)	# (not MD5: the kind's own options)
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
		if [[ $KIND == bird || $KIND == frr ]]; then c_gtsm_alone; c_ext_nh; fi
	fi
	fail_rest "no session"
	daemon_stop
	bgp_peer_stop "$RTR" "$KIND"
	echo "# $KIND: $((SECONDS - t0))s"
	# (regular files only: the checkout is on 9p, which refuses FIFOs and sockets)
	[[ -n ${BGP_SAVE:-} ]] && mkdir -p "$BGP_SAVE" &&
		(cd "$T" && find . -type f -exec cp --parents {} "$BGP_SAVE"/ \;)
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
