#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmaglev daemon, end to end: health checks drive the kernel, against a backend farm of three
# real backends (dp_lib.sh's topology: busybox httpd on port 80, an echo stream on 7000, and a
# socat agent-check responder on 7777 per backend).
#
#   - save --yaml of a hand-made config, flush, the daemon on the saved file: equal tables
#   - backends that die (httpd killed: refused), recover, hang (accept, never answer), answer
#     with a wrong status or body: each detected within its bound, the kernel's state checked
#     with `kmaglev backend show` and client traffic through the VIP with real curl
#   - agent-check replies drain, 50% and down (socat serves a file per backend), and util:N
#     lowering the weight of a hot backend under the service's utilization block, and putting
#     the service in overload when every backend is hot (shed-above)
#   - a tunnel check marks a backend with a broken tunnel (tunl0 down) down while a direct
#     check of the same backend keeps it up
#   - http checks through the tunnel on keep-alive servers (python3's http.server, answering
#     with the backend's name): each probe keeps a connection of its own to its backend (the
#     body names the backend), reused run after run; a broken tunnel fails it too
#   - reload under live streams: weights change, a backend is added and removed: no stream
#     resets; an invalid reload changes nothing
#   - kill -9 and restart under traffic: no backend event (no flap), streams live
#   - a hand change of an owned service is reverted; services made by hand are left alone
#   - /metrics passes promtool and agrees with `kmaglev stats`
#   - SIGTERM: lame duck (status says draining), exit after drain-time, forwarding goes on
#   - daemon --flush deletes exactly what the daemon owns
#
# Detection is timed from the fault to the kernel's change event and must be within
# interval x fall + jitter + timeout, plus slack for a loaded TCG guest (BOUND below).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

kmg_require_cmd socat
kmg_require_cmd python3

dp_test_start 41 1 3

LB=1
V0=$(dp_vip4 0)		# port 0 (every port): http checks via the tunnel; streams on 7000
V1=$(dp_vip4 1)		# agent checks, direct
V2=$(dp_vip4 2)		# tcp check via the tunnel, b1 and b2
V3=$(dp_vip4 3)		# tcp check direct, b1 and b2
V4=$(dp_vip4 4)		# http checks via the tunnel on keep-alive servers, b1 and b2
V5=$(dp_vip4 5)		# made by hand: never the daemon's
V6=$(dp_vip4 6)		# save --yaml round trip
CFG=$DP_TMP/kmaglev.yaml
SOCK=$DP_TMP/daemon.sock
DLOG=$DP_TMP/daemon.log
DPID=
AGENT_PORT=7777
KA_PORT=8081		# the keep-alive servers
# Detection bound in seconds: interval 2 s x fall 2 + jitter 0.2 s + timeout 2 s, plus 4 s for a
# loaded TCG guest (reconcile and the kernel's table build included). The time is measured
# from the fault to the kernel's service-change event (`kmaglev -t monitor`), not by polling.
# (Checks time out after 2 s, not less: five VMs share two cores in `make check`.)
BOUND=10	# (dp_detected reads it)
# Polling the kernel's state is slower under emulation: how long to wait for it at most.
WAIT=30

K() { dp_km $LB "$@"; }
# the CLI's commands that talk to the daemon
KS() { KMAGLEV_SOCKET=$SOCK ip netns exec "${DP_LB[LB]}" "$KMAGLEV" "$@"; }

# be_field SVC BACKEND FIELD, wait_be SECS SVC BACKEND FIELD VALUE: dp_lib.sh's, on our LB
be_field() { dp_be_field $LB "$@"; }
wait_be() { dp_wait_be $LB "$DLOG" "$@"; }
# now: a timestamp comparable with the monitor's
now() { date +%s.%N; }
# detected DESC TS SVC BACKEND STATE: dp_lib.sh's dp_detected
detected() { dp_detected "$@"; }
# curl through the VIP from the client: "NAME COUNT" lines for N new connections.
tally() { dp_curl_many "$1" "$2" | dp_tally; }
# only VIP N BACKENDS...: N new connections to VIP are answered by exactly BACKENDS. A request
# that fails (curl stops at the first) is retried in a new batch, twice at most: under
# emulation an accept can take longer than curl's timeouts; a wrong backend is never retried.
only() {
	local vip=$1 n=$2 got want try; shift 2
	want=$(printf '%s ' "$@")
	for try in 1 2 3; do
		got=$(tally "$vip" "$n" | awk '{ print $1 }' | tr '\n' ' ')
		[[ $got == "$want" ]] && return 0
		[[ $got == *ERR* ]] || break
		echo "# try $try: answers from $got(a request failed)"
	done
	echo "# answers from: $got; expected: $want"
	return 1
}

be_ns() { echo "${DP_BE[$1]}"; }
# httpd of backend N: stop, start (on its own web root)
httpd_pids() { ip netns pids "$(be_ns "$1")" | while read -r p; do
	[[ $(cat /proc/$p/comm 2>/dev/null) == httpd || $(tr '\0' ' ' 2>/dev/null </proc/$p/cmdline) == "busybox httpd"* ]] && echo "$p"; done; }
httpd_stop() { local p; for p in $(httpd_pids "$1"); do kill "$p"; done; dp_wait 10 eval '[[ -z $(httpd_pids '"$1"') ]]'; }
httpd_start() { ip netns exec "$(be_ns "$1")" busybox httpd -p "$DP_HTTP_PORT" -h "$DP_TMP/www/b$1"; }

agent_start() {
	local i=$1
	echo up >"$DP_TMP/agent.b$i"
	dp_bg "agent.b$i" ip netns exec "$(be_ns "$i")" socat \
		TCP-LISTEN:$AGENT_PORT,fork,reuseaddr OPEN:"$DP_TMP/agent.b$i",rdonly
}

# ka_start N: backend N's keep-alive HTTP/1.1 server on KA_PORT, answering "bN"; it logs
# "conn" for each connection and "req" for each request in ka.bN.count
ka_start() {
	local i=$1
	cat >"$DP_TMP/ka.py" <<'PY'
import http.server, sys
name, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def note(what):
    with open(log, "a") as f:
        f.write(what + "\n")
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        note("conn")
    def do_GET(self):
        note("req")
        body = (name + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
class S(http.server.ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True
S(("", port), H).serve_forever()
PY
	dp_bg "ka.b$i" ip netns exec "$(be_ns "$i")" python3 "$DP_TMP/ka.py" "b$i" "$KA_PORT" \
		"$DP_TMP/ka.b$i.count"
}
# ka_count N WHAT: how many "conn" or "req" backend N's server logged
ka_count() { grep -cx "$2" "$DP_TMP/ka.b$1.count" 2>/dev/null || true; }

daemon_start() {
	[[ -f $DLOG ]] && cat "$DLOG" >>"$DLOG.old"
	dp_bg daemon ip netns exec "${DP_LB[LB]}" "$KMAGLEV" daemon -c "${1:-$CFG}"
	DPID=${DP_BGPID[daemon]}
	dp_wait 30 test -S "$SOCK"
}
daemon_alive() { kill -0 "$DPID" 2>/dev/null; }

write_config() {
	local v0_backends=$1 w1=${2:-1}
	cat >"$CFG" <<EOF
# kmaglev daemon selftest
config:
  probe-mark-min: 0x10000
  probe-mark-max: 0x1ffff
daemon:
  owner: kmaglev-selftest
  enforce: enforce
  drain-time: 8s
  metrics: 127.0.0.1:9742
  socket: $SOCK
services:
  - vip: $V0
    port: 0
    proto: tcp
    checks:
      - kind: http
        port: $DP_HTTP_PORT
        path: /health
        body: ok
        interval: 2s
        timeout: 2s
        fast-interval: 500ms
        jitter: 200ms
        rise: 2
        fall: 2
    backends:
$(for b in $v0_backends; do
	echo "      - address: $(dp_be4 "$b")"
	[[ $b == 1 ]] && echo "        weight: $w1"
done)
  - vip: $V1
    port: $DP_HTTP_PORT
    checks:
      - { kind: agent, via: direct, port: $AGENT_PORT, interval: 2s, timeout: 2s, rise: 1, fall: 2 }
    utilization: { target: 50, min-weight: 20, shed-above: 90 }
    backends:
      - { address: $(dp_be4 1), weight: 100 }
      - { address: $(dp_be4 2), weight: 100 }
  - vip: $V2
    port: $DP_HTTP_PORT
    checks:
      - { kind: tcp, via: tunnel, interval: 2s, timeout: 2s, rise: 2, fall: 2 }
    backends:
      - { address: $(dp_be4 1) }
      - { address: $(dp_be4 2) }
  - vip: $V3
    port: $DP_HTTP_PORT
    checks:
      - { kind: tcp, via: direct, interval: 2s, timeout: 2s, rise: 2, fall: 2 }
    backends:
      - { address: $(dp_be4 1) }
      - { address: $(dp_be4 2) }
  - vip: $V4
    port: $KA_PORT
    backends:
$(for b in 1 2; do
	echo "      - address: $(dp_be4 $b)"
	echo "        checks: [{ kind: http, body: b$b, interval: 2s, timeout: 2s, rise: 2, fall: 2, reuse: 30s }]"
done)
EOF
}

for i in 1 2 3; do
	echo ok >"$DP_TMP/www/b$i/health"
	agent_start "$i"
done
ka_start 1
ka_start 2

# --- 2: save --yaml round trip ---------------------------------------------------------------
# digest SVC: the digest of SVC's table (kmaglev -j table show SVC); nothing if there is none
digest() { K -j table show "$1" | kmg_jq .digest; }
round_trip() {
	local d1 d2
	K service add "$V6:$DP_HTTP_PORT/tcp" table-size 251 window 10s backend "$(dp_be4 1)" \
		weight 3 backend "$(dp_be4 2)" weight 1 encap gre backend "$(dp_be4 3)" \
		state drain || return 1
	K save --yaml >"$DP_TMP/saved.yaml" || return 1
	d1=$(digest "$V6:$DP_HTTP_PORT/tcp")
	echo "$d1" >"$DP_TMP/rt.d1"	# (ktap_test_result runs this in a subshell)
	K service flush || return 1
	cat >>"$DP_TMP/saved.yaml" <<EOF
daemon:
  socket: $SOCK
  metrics: off
EOF
	K daemon --check "$DP_TMP/saved.yaml" || return 1
	daemon_start "$DP_TMP/saved.yaml" || { cat "$DLOG"; return 1; }
	dp_wait 20 eval '[[ -n $(K table show '"$V6:$DP_HTTP_PORT/tcp"' 2>/dev/null) ]]'
	d2=$(digest "$V6:$DP_HTTP_PORT/tcp")
	kill -9 "$DPID"
	wait "$DPID" 2>/dev/null
	rm -f "$SOCK"
	echo "# digest before $d1, after $d2"
	[[ -n $d1 && $d1 == "$d2" ]] || { sed 's/^/# /' "$DP_TMP/saved.yaml"; return 1; }
}
ktap_test_result "save --yaml, flush, daemon on the saved file: equal table digest" round_trip
# The comparison sees a different table: the drained backend up
RT_D1=$(cat "$DP_TMP/rt.d1" 2>/dev/null)
d3=$(K backend set "$V6:$DP_HTTP_PORT/tcp" "$(dp_be4 3)" state up && digest "$V6:$DP_HTTP_PORT/tcp")
ktap_test_result "the digest comparison sees a changed table (the drained b3 up: ${d3:-no digest}, not ${RT_D1:-none})" \
	test -n "$d3" -a -n "$RT_D1" -a "$d3" != "$RT_D1"
K service del "$V6:$DP_HTTP_PORT/tcp" >/dev/null

# --- start -----------------------------------------------------------------------------------
K service add "$V5:$DP_HTTP_PORT/tcp" backend "$(dp_be4 3)"
write_config "1 2 3"
ktap_test_result "daemon --check accepts the test config" K daemon --check "$CFG"
if daemon_start && dp_wait 40 eval '[[ $(be_field '"$V0 $(dp_be4 3)"' state) == up &&
	$(be_field '"$V0 $(dp_be4 1)"' state) == up ]]'; then
	ktap_test_pass "daemon up: all backends pass their checks (${SECONDS}s)"
else
	sed 's/^/# /' "$DLOG"
	dp_fail_rest "daemon start" 1
	dp_test_end
fi
dp_bg mon ip netns exec "${DP_LB[LB]}" "$KMAGLEV" -j -t monitor
ktap_test_result "traffic through the VIP reaches every backend" only "$V0" 20 b1 b2 b3
# (the hand-made service is there, without an owner, with its one backend; V0 is the daemon's)
hand_made() {
	K -j service show "$V5:$DP_HTTP_PORT/tcp" |
		kmg_jq_test '.[0] | (has("owner") | not) and ([.backends[].backend] == [$b])' \
			--arg b "$(dp_be4 3)" &&
		K -j service show "$V0/tcp" | kmg_jq_test '.[0].owner == "kmaglev-selftest"'
}
ktap_test_result "hand-made service untouched: no owner, same backend" hand_made

# --- failures --------------------------------------------------------------------------------
ts=$(now)
httpd_stop 2
detected "backend dies (refused): down" "$ts" "$V0/tcp" "$(dp_be4 2)" down
ktap_test_result "clients avoid the dead backend" only "$V0" 20 b1 b3
ts=$(now)
httpd_start 2
detected "backend recovers: up" "$ts" "$V0/tcp" "$(dp_be4 2)" up
ts=$(now)
echo sick >"$DP_TMP/www/b3/health"
detected "wrong body: down" "$ts" "$V0/tcp" "$(dp_be4 3)" down
ktap_test_result "status names the body mismatch" eval 'KS status | grep -E "$(dp_be4 3).*body"'
echo ok >"$DP_TMP/www/b3/health"
wait_be $WAIT "$V0/tcp" "$(dp_be4 3)" state up >/dev/null
ts=$(now)
rm -f "$DP_TMP/www/b1/health"
detected "wrong status (404): down" "$ts" "$V0/tcp" "$(dp_be4 1)" down
ktap_test_result "status names the status" eval 'KS status | grep -E "$(dp_be4 1).*status 404"'
echo ok >"$DP_TMP/www/b1/health"
# hang: something accepts on port 80 and never answers (httpd stopped first: timed from then)
ts=$(now)
httpd_stop 3
dp_bg hang.b3 ip netns exec "$(be_ns 3)" socat TCP-LISTEN:$DP_HTTP_PORT,fork,reuseaddr \
	SYSTEM:"sleep 60"
detected "backend hangs: the probe times out, down" "$ts" "$V0/tcp" "$(dp_be4 3)" down
# (the refusal before socat listened may have been the verdict: wait for a timed-out run)
ktap_test_result "status says timeout" dp_wait $WAIT eval 'KS status | grep -E "$(dp_be4 3).*timeout"'
kill "${DP_BGPID[hang.b3]}" 2>/dev/null
wait "${DP_BGPID[hang.b3]}" 2>/dev/null
httpd_start 3
all_up() {
	wait_be $WAIT "$V0/tcp" "$(dp_be4 1)" state up >/dev/null &&
		wait_be $WAIT "$V0/tcp" "$(dp_be4 3)" state up >/dev/null &&
		only "$V0" 20 b1 b2 b3
}
ktap_test_result "all up again; traffic to every backend" all_up

# --- agent -----------------------------------------------------------------------------------
echo drain >"$DP_TMP/agent.b1"
ktap_test_result "agent says drain: state drain" wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" \
	"$(dp_be4 1)" state drain
echo "up 50%" >"$DP_TMP/agent.b1"
half() {
	wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" weight 50 >/dev/null &&
		wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" state up
}
ktap_test_result "agent says 50%: weight 100 -> 50, state up" half
echo down >"$DP_TMP/agent.b2"
ktap_test_result "agent says down: state down" wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" \
	"$(dp_be4 2)" state down
echo up >"$DP_TMP/agent.b2"
echo "up 100%" >"$DP_TMP/agent.b1"

# utilization (target 50, min-weight 20): a hot backend gives new flows away, and takes them
# back over a few reports once it cools down (each report counts for 0.3 of the average)
echo "up util:100" >"$DP_TMP/agent.b1"
hot() {
	wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" weight 20 >/dev/null &&
		[[ $(be_field "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 2)" weight) == 100 ]]
}
ktap_test_result "agent says util:100: weight 100 -> 20 (min-weight), b2 keeps 100" hot
echo "up util:0" >"$DP_TMP/agent.b1"
ktap_test_result "agent says util:0: b1 ramps back to weight 100" wait_be $WAIT \
	"$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" weight 100

# overload (shed-above 90): every backend's average at 90 or more puts the service in overload
# in the kernel (its sheddable new flows are shed: dp_shed.sh), off again below 85; one hot
# backend is not enough
svc_overload() { K -j service show "$V1:$DP_HTTP_PORT/tcp" | kmg_jq '.[0].overload'; }
overload() {
	local t0=$SECONDS
	echo "up util:100" >"$DP_TMP/agent.b1"
	sleep 8		# four reports: b1 alone hot
	[[ $(svc_overload) == off ]] || { echo "# overload $(svc_overload) with b1 alone hot"; return 1; }
	echo "up util:100" >"$DP_TMP/agent.b2"
	dp_wait 40 eval '[[ $(svc_overload) == on ]]' ||
		{ echo "# overload $(svc_overload) after $((SECONDS - t0))s"; return 1; }
	echo "# on after $((SECONDS - t0))s"
	grep -q "overloaded: every backend" "$DLOG" || { echo "# the log does not say it"; return 1; }
	echo "up util:0" >"$DP_TMP/agent.b1"
	echo "up util:0" >"$DP_TMP/agent.b2"
	dp_wait $WAIT eval '[[ $(svc_overload) == off ]]' ||
		{ echo "# overload $(svc_overload) after the agents cooled"; return 1; }
	wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" weight 100 >/dev/null &&
		wait_be $WAIT "$V1:$DP_HTTP_PORT/tcp" "$(dp_be4 2)" weight 100 >/dev/null
}
ktap_test_result "agents say util:100 on every backend: the daemon sets overload on; util:0: off" \
	overload
echo up >"$DP_TMP/agent.b1"
echo up >"$DP_TMP/agent.b2"

# --- keep-alive ------------------------------------------------------------------------------
# Both tunnel probes of V4 connect to V4:KA_PORT; each must keep its own connection (a shared
# one would give one probe the other backend's body: down), and use it again: at least 3
# requests a connection (reuse 30s, interval 2s: about 15).
keep_alive() {
	local i c r
	for i in 1 2; do
		wait_be $WAIT "$V4:$KA_PORT/tcp" "$(dp_be4 $i)" state up >/dev/null || return 1
	done
	dp_wait $WAIT eval '[[ $(ka_count 1 req) -ge 8 && $(ka_count 2 req) -ge 8 ]]'
	for i in 1 2; do
		c=$(ka_count $i conn) r=$(ka_count $i req)
		echo "# b$i: $r requests on $c connections"
		[[ $c -ge 1 && $r -ge $((3 * c)) ]] || return 1
	done
}
ktap_test_result "keep-alive servers via the tunnel: b1 and b2 up on their own bodies, connections reused" \
	keep_alive

# --- tunnel vs direct ------------------------------------------------------------------------
ip -n "$(be_ns 1)" link set tunl0 down
if wait_be $WAIT "$V2:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" state down >/dev/null &&
	[[ $(be_field "$V3:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" state) == up ]]; then
	ktap_test_pass "tunl0 down on b1: the tunnel check marks it down, the direct check keeps it up"
	# the keep-alive probe's connection goes through the tunnel too
	ktap_test_result "tunl0 down on b1: the keep-alive http check fails too" \
		wait_be $WAIT "$V4:$KA_PORT/tcp" "$(dp_be4 1)" state down
else
	K backend show | sed 's/^/# /'
	ktap_test_fail "tunl0 down on b1: tunnel check down, direct check up"
	ktap_test_fail "tunl0 down on b1: the keep-alive http check fails too"
fi
ip -n "$(be_ns 1)" link set tunl0 up
tunnel_back() {
	wait_be $WAIT "$V2:$DP_HTTP_PORT/tcp" "$(dp_be4 1)" state up >/dev/null &&
		wait_be $WAIT "$V4:$KA_PORT/tcp" "$(dp_be4 1)" state up
}
ktap_test_result "tunl0 up: the tunnel checks bring b1 back" tunnel_back

# --- reload under live traffic ---------------------------------------------------------------
# Streams on b1 and b2 only (b3 out of the config first); then one reload adds b3 and changes
# b1's weight, a SIGHUP removes b3 again. No stream may see a reset.
write_config "1 2"
KS reload >"$DP_TMP/reload.out" 2>&1
dp_wait 10 eval '[[ -z $(be_field '"$V0/tcp $(dp_be4 3)"' state) ]]'
dp_stream_start s1 "$V0" 12
if dp_stream_wait s1 60; then
	write_config "1 2 3" 5
	KS reload >>"$DP_TMP/reload.out" 2>&1
	r1=$?
	dp_wait 10 eval '[[ $(be_field '"$V0/tcp $(dp_be4 1)"' weight) == 5 ]]'
	w=$(be_field "$V0/tcp" "$(dp_be4 1)" weight)
	n3=$(be_field "$V0/tcp" "$(dp_be4 3)" weight)
	write_config "1 2" 5
	kill -HUP "$DPID"
	dp_wait 10 eval '[[ -z $(be_field '"$V0/tcp $(dp_be4 3)"' state) ]]'
	gone=$(be_field "$V0/tcp" "$(dp_be4 3)" state)
	if [[ $r1 -eq 0 && $w == 5 && $n3 == 1 && -z $gone ]] && dp_stream_alive s1; then
		ktap_test_pass "reloads under traffic: b3 added and b1's weight 1 -> 5, then b3 removed (SIGHUP)"
	else
		sed 's/^/# /' "$DP_TMP/reload.out"
		echo "# reload rc $r1, b1 weight $w, b3 weight $n3, b3 after removal: ${gone:-gone}"
		ktap_test_fail "reloads under traffic"
	fi
	# (in this shell, not in ktap_test_result's subshell: it waits for its child)
	if dp_stream_stop s1; then
		ktap_test_pass "no stream was reset by the reloads"
	else
		ktap_test_fail "no stream was reset by the reloads"
	fi
else
	ktap_test_fail "reloads under traffic: streams did not start"
	ktap_test_fail "no stream was reset by the reloads"
fi
write_config "1 2 3"
KS reload >/dev/null 2>&1
# settled first: b3, added back by the reload above, passes its checks
wait_be $WAIT "$V0/tcp" "$(dp_be4 3)" state up >/dev/null
dp_sleep 1
K save >"$DP_TMP/before-bad.txt"
cp "$CFG" "$DP_TMP/good.yaml"
sed -i '0,/weight: 100/s//weight: 70000/' "$CFG"
out=$(KS reload 2>&1)
rc=$?
K save >"$DP_TMP/after-bad.txt"
if [[ $rc -ne 0 && $out == *"weight: 70000 is out of range"* ]] &&
	cmp -s "$DP_TMP/before-bad.txt" "$DP_TMP/after-bad.txt" && daemon_alive; then
	ktap_test_pass "invalid reload refused with the field named; kernel and daemon unchanged"
else
	echo "$out" | sed 's/^/# /'
	diff "$DP_TMP/before-bad.txt" "$DP_TMP/after-bad.txt" | sed 's/^/# /'
	ktap_test_fail "invalid reload refused; nothing changed"
fi
cp "$DP_TMP/good.yaml" "$CFG"

# --- enforce ---------------------------------------------------------------------------------
K backend set "$V3:$DP_HTTP_PORT/tcp" "$(dp_be4 2)" weight 9
ktap_test_result "a hand change of an owned service is reverted (enforce)" \
	wait_be 10 "$V3:$DP_HTTP_PORT/tcp" "$(dp_be4 2)" weight 1

# --- restart ---------------------------------------------------------------------------------
dp_stream_start s2 "$V0" 8
dp_stream_wait s2 60
marker=$(wc -l <"$DP_TMP/mon.log")
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
rm -f "$SOCK"
daemon_start
dp_sleep 8
# events caused by a request (the kernel's own, port id 0, such as a previous table retired
# when its window ends, are not the daemon's)
# (a line that is no JSON event counts as a change: it is shown)
changes=$(tail -n +"$((marker + 1))" "$DP_TMP/mon.log" |
	jq -cR '. as $l | (fromjson? // {line: $l}) | select(.portid != 0)')
if [[ -z $changes ]] && daemon_alive; then
	ktap_test_pass "kill -9 and restart: no request changed anything in the kernel (no flap)"
else
	echo "$changes" | sed 's/^/# /'
	ktap_test_fail "kill -9 and restart: no flap"
fi
if dp_stream_stop s2; then
	ktap_test_pass "streams live through the restart"
else
	ktap_test_fail "streams live through the restart"
fi

# --- metrics ---------------------------------------------------------------------------------
metrics() { ip netns exec "${DP_LB[LB]}" curl -sf http://127.0.0.1:9742/metrics; }
if metrics >"$DP_TMP/metrics.txt"; then
	if command -v promtool >/dev/null; then
		ktap_test_result "/metrics passes promtool check metrics" \
			bash -c "promtool check metrics <$DP_TMP/metrics.txt"
	else
		ktap_test_skip "/metrics passes promtool (promtool not installed)"
	fi
else
	ktap_test_fail "/metrics answers"
fi
# With no traffic, the packet counter of V3 is what `kmaglev stats` says.
# metric VIP: kmaglev_service_packets_total of VIP in the metrics in $DP_TMP/m.txt
metric() { awk -v v="$1" '/^kmaglev_service_packets_total\{/ && index($0, "vip=\"" v "\"") { print $2 }' "$DP_TMP/m.txt"; }
# (both read here, not in ktap_test_result's subshell: the next check uses them too)
metrics >"$DP_TMP/m.txt"
STATS3=$(dp_svc_stat $LB "$V3:$DP_HTTP_PORT/tcp" .stats.packets)
check_metric() {
	local got
	got=$(metric "$V3")
	echo "# stats $STATS3, metrics $got"
	[[ -n $STATS3 && $STATS3 == "$got" ]]
}
ktap_test_result "metrics agree with kmaglev stats" check_metric
# ... and the comparison tells services apart: V0's packets (the clients' requests) are not V3's
m0=$(metric "$V0")
ktap_test_result "the comparison sees another service's metric: V0's ${m0:-none} is not V3's stats ${STATS3:-none}" \
	test -n "$m0" -a -n "$STATS3" -a "$m0" != "$STATS3"
gauges() {
	metrics | awk -v v="vip=\"$V0\"" '/^kmaglev_backend_up\{/ && index($0, v) { n++; if ($2 != 1) bad++ }
		END { print "# " n " gauges, " bad + 0 " not 1"; exit !(n == 3 && !bad) }'
}
ktap_test_result "health gauges: every backend of V0 up" gauges

# --- SIGTERM -----------------------------------------------------------------------------------
# The status is asked for until it says draining: on a loaded guest a second's sleep and a
# program start outlasted the 4 s of drain-time it had (CI saw the daemon gone by then).
kill -TERM "$DPID"
for ((i = 0; i < 20; i++)); do
	st=$(KS -j status 2>&1)
	[[ $st == *'"draining": true'* || $st == *'"draining":true'* ]] && break
	daemon_alive || break
	dp_sleep 0.2
done
dp_wait 20 eval '! daemon_alive'
if [[ $st == *'"draining": true'* || $st == *'"draining":true'* ]] && ! daemon_alive &&
	grep -q "lame duck" "$DLOG"; then
	ktap_test_pass "SIGTERM: lame duck (draining), then exit"
else
	echo "$st" | head -n 3 | sed 's/^/# /'
	tail -n 5 "$DLOG" | sed 's/^/# /'
	ktap_test_fail "SIGTERM: lame duck, then exit"
fi
ktap_test_result "the kernel forwards after the daemon is gone" only "$V0" 15 b1 b2 b3

# --- flush -----------------------------------------------------------------------------------
flushed() {
	K daemon --flush -c "$CFG" || return 1
	K service show | grep -q "$V5" || { echo "# the hand-made service is gone"; return 1; }
	! K service show | grep -qE "$V0|$V1|$V2|$V3"
}
ktap_test_result "daemon --flush deletes exactly the owned services" flushed

dp_test_end
