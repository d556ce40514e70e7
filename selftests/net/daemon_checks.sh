#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmaglev daemon: every check kind but tcp, http and agent (daemon.sh's) against real servers
# on dp_lib.sh's three backends, each taking a backend out and bringing it back:
#
#   - https: a TLS server on each backend (python3's http.server in ssl, port 8443, answering
#     "bN sni=NAME host=NAME"), its certificate from a CA made here with openssl, with the
#     subject alternative names www.kmaglev.test and api.kmaglev.test; the SNI name
#     other.kmaglev.test gets a certificate of a second CA. Checks with host: (SNI and Host),
#     verify-tls on with ca: the test CA (both names pass, a wrong name fails, the other CA's
#     certificate fails, each saying why in `kmaglev status`), verify-tls on with the system's
#     CAs (fails), verify-tls off with a wrong name (passes, also while the server shows the
#     other CA's certificate for every name). A server killed: down; back: up. A server that
#     switches to the other CA's certificate: down; back: up.
#   - udp: socat on each backend answering "pong" from the VIP; stopped: down; started: up.
#   - dns: dnsmasq on each backend, answering ok.kmaglev.test from a hosts file; its name
#     taken out (SIGHUP), the query goes upstream to a second dnsmasq that the first one
#     cannot validate (DNSSEC with a made-up root trust anchor): a real SERVFAIL ("rcode
#     SERVFAIL"): down; the name back: up; the resolver stopped (SIGSTOP, silence): timeout,
#     down; SIGCONT: up.
#   - exec: /usr/bin/curl -sf to the backend's httpd (argv, no shell); its "weight N" body sets
#     the weight; a 404 (exit 22): down; back with another weight: up with it.
#
# Detection is timed from the fault to the kernel's change event (`kmaglev -t monitor`) and
# must be within BOUND, as in daemon.sh. The faults of one step are made together, one kind
# per service, and each service's event is timed from them.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

kmg_require_cmd socat openssl jq
kmg_require_cmd python3
DNSMASQ=$(command -v dnsmasq || echo /usr/sbin/dnsmasq)
[[ -x $DNSMASQ ]] || ktap_skip_all "dnsmasq not installed (package dnsmasq-base)"
[[ -x /usr/bin/curl ]] || ktap_skip_all "/usr/bin/curl not installed"

dp_test_start 37 1 3

LB=1
V0=$(dp_vip4 0)		# https, verify-tls on with ca: (www, api, a wrong name)
V1=$(dp_vip4 1)		# https: the other CA; verify-tls off; the system's CAs
V2=$(dp_vip4 2)		# udp
V3=$(dp_vip4 3)		# dns
V4=$(dp_vip4 4)		# exec
TLS_PORT=8443
UDP_PORT=5301
S0=$V0:$TLS_PORT/tcp
S1=$V1:$TLS_PORT/tcp
S2=$V2:$UDP_PORT/udp
S3=$V3:53/udp
S4=$V4:$DP_HTTP_PORT/tcp
CFG=$DP_TMP/kmaglev.yaml
SOCK=$DP_TMP/daemon.sock
DLOG=$DP_TMP/daemon.log
PKI=$DP_TMP/pki
DPID=
# Detection bound in seconds, as daemon.sh's: interval 2 s x fall 2 + jitter 0.2 s + timeout
# 2 s, plus 4 s for a loaded TCG guest.
BOUND=10	# (dp_detected reads it)
WAIT=30

K() { dp_km $LB "$@"; }
KS() { KMAGLEV_SOCKET=$SOCK ip netns exec "${DP_LB[LB]}" "$KMAGLEV" "$@"; }
be() { dp_be4 "$1"; }
be_ns() { echo "${DP_BE[$1]}"; }

# be_field SVC BACKEND FIELD, wait_be SECS SVC BACKEND FIELD VALUE: dp_lib.sh's, on our LB
be_field() { dp_be_field $LB "$@"; }
wait_be() { dp_wait_be $LB "$DLOG" "$@"; }
# result SVC BACKEND: the last result of the backend's (first) check, from `kmaglev status`
result() {
	KS -j status | kmg_jq '.services[] | select(.service == $s) | .backends[] |
		select(.address == $b) | .checks[0].result' --arg s "$1" --arg b "$2"
}
# result_is SVC BACKEND TEXT: the result is TEXT (waits for it: the run that took the backend
# down may be followed by another that fails otherwise, e.g. refused while a server restarts)
result_is() {
	local end=$((SECONDS + WAIT)) r
	while r=$(result "$1" "$2"); [[ $r != "$3" ]]; do
		if [[ $SECONDS -ge $end ]]; then
			echo "# result of $1 $2: \"$r\", not \"$3\""
			return 1
		fi
		dp_sleep 0.3
	done
}
now() { date +%s.%N; }
# detected DESC TS SVC BACKEND STATE: dp_lib.sh's dp_detected
detected() { dp_detected "$@"; }

# --- certificates ----------------------------------------------------------------------------
# ca NAME CN: a self-signed CA, PKI/NAME.pem and .key; cert NAME CA SANS: a server certificate
# signed by CA for the DNS names SANS (comma-separated).
EC=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
ca() {
	openssl req -x509 "${EC[@]}" -keyout "$PKI/$1.key" -out "$PKI/$1.pem" -days 2 \
		-subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign
}
cert() {
	local n=$1 ca=$2 sans
	sans=$(sed 's/\([^,]*\)/DNS:\1/g' <<<"$3")
	# (a file, not <(...): the guest has no /dev/fd)
	printf '%s\n' "subjectAltName=$sans" "basicConstraints=CA:FALSE" \
		"keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$PKI/$n.ext"
	openssl req "${EC[@]}" -keyout "$PKI/$n.key" -out "$PKI/$n.csr" -subj "/CN=${3%%,*}" &&
		openssl x509 -req -in "$PKI/$n.csr" -CA "$PKI/$ca.pem" -CAkey "$PKI/$ca.key" \
			-set_serial "0x$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" -days 2 \
			-out "$PKI/$n.pem" -extfile "$PKI/$n.ext"
}
pki() {
	mkdir -p "$PKI" &&
		ca ca "kmaglev selftest CA" && cert srv ca www.kmaglev.test,api.kmaglev.test &&
		ca other "another CA" && cert othersrv other other.kmaglev.test
} >"$DP_TMP/pki.log" 2>&1

# --- servers ---------------------------------------------------------------------------------
# tls_start N: backend N's TLS server on TLS_PORT (every address: the VIPs too). The SNI name
# other.kmaglev.test, or any name while tls.bN.mode says "other", gets the other CA's
# certificate. The handshake is made in the connection's thread (a client that stalls holds
# up no other), and each request answered "bN sni=SNI host=HOST", keep-alive. Each handshake
# is logged in tls.bN.log: "handshake sni=NAME cert=main|other resumed=True|False" (the server
# sends session tickets, as OpenSSL does by default).
cat >"$DP_TMP/tls.py" <<'PY'
import http.server, os, ssl, sys, time
name, port, pki, modef, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
gate = sys.argv[6] if len(sys.argv) > 6 else None
def ctx(cert):
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(pki + "/" + cert + ".pem", pki + "/" + cert + ".key")
    c.num_tickets = 1
    return c
main, other = ctx("srv"), ctx("othersrv")
def sni(sock, server_name, c):
    sock.sni = server_name or "-"
    sock.cert = "main"
    try:
        with open(modef) as f:
            mode = f.read().strip()
    except OSError:
        mode = ""
    if server_name == "other.kmaglev.test" or mode == "other":
        sock.context = other
        sock.cert = "other"
main.sni_callback = sni
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = "%s sni=%s host=%s\n" % (name, getattr(self.request, "sni", "-"),
                                        (self.headers.get("Host") or "-").split(":")[0])
        body = body.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
class S(http.server.ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True
    def finish_request(self, request, client_address):
        request.settimeout(10)
        try:
            tls = main.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        # (a resumed session shows the client no certificate)
        print("handshake sni=%s cert=%s resumed=%s" % (getattr(tls, "sni", "-"),
              getattr(tls, "cert", "main"), tls.session_reused), flush=True)
        try:
            self.RequestHandlerClass(tls, client_address, self)
        finally:
            tls.close()
while gate and not os.path.exists(gate):
    time.sleep(0.1)
s = S(("", port), H)
open(ready, "w").close()
s.serve_forever()
PY
# tls_start N [GATE]: with GATE, the server listens once the file GATE exists (python takes
# seconds to start in the guest: a server can be made ready beforehand)
tls_start() {
	rm -f "$DP_TMP/tls.b$1.ready"
	dp_bg "tls.b$1" ip netns exec "$(be_ns "$1")" python3 "$DP_TMP/tls.py" "b$1" "$TLS_PORT" \
		"$PKI" "$DP_TMP/tls.b$1.mode" "$DP_TMP/tls.b$1.ready" ${2:+"$2"}
}
tls_ready() { dp_wait 60 test -f "$DP_TMP/tls.b$1.ready"; }
# stop NAME: stop a server started with dp_bg, and wait for it
stop() {
	kill "${DP_BGPID[$1]}" 2>/dev/null
	wait "${DP_BGPID[$1]}" 2>/dev/null
}
# udp_start N: backend N's UDP service on V2:UDP_PORT: "pong" to every datagram, from the VIP
udp_start() {
	dp_bg "udp.b$1" ip netns exec "$(be_ns "$1")" socat -T 2 \
		"UDP4-RECVFROM:$UDP_PORT,bind=$V2,reuseaddr,fork" SYSTEM:"echo pong"
}
# dns_start N: backend N's resolver on V3:53: ok.kmaglev.test from dns.bN.hosts; what it does
# not know itself it forwards upstream, to 127.0.0.1:5353, and validates with DNSSEC against a
# made-up root trust anchor. That upstream, a plain dnsmasq, answers ok.kmaglev.test too (so
# the SERVFAIL is not a missing name's) but refuses the DS query the validation needs: the
# resolver abandons the validation and answers SERVFAIL ("validation ok.kmaglev.test is
# ABANDONED" in its log, dns.bN.log).
dns_start() {
	local i=$1 ns common
	ns=$(be_ns "$i")
	common=(-k --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces --user=root
		--group=root --pid-file= --log-facility=- --log-queries)
	echo "10.9.9.$i ok.kmaglev.test" >"$DP_TMP/dns.b$i.hosts"
	echo "10.9.8.$i ok.kmaglev.test" >"$DP_TMP/dns.b$i.up.hosts"
	dp_bg "dnsup.b$i" ip netns exec "$ns" "$DNSMASQ" "${common[@]}" \
		--listen-address=127.0.0.1 --port=5353 --addn-hosts="$DP_TMP/dns.b$i.up.hosts"
	dp_bg "dns.b$i" ip netns exec "$ns" "$DNSMASQ" "${common[@]}" \
		--listen-address="$V3" --port=53 --addn-hosts="$DP_TMP/dns.b$i.hosts" \
		--server=127.0.0.1#5353 --dnssec \
		--trust-anchor=.,12345,8,2,0000000000000000000000000000000000000000000000000000000000000000
}
# dns_hosts N on|off: the resolver of backend N knows ok.kmaglev.test itself, or not (SIGHUP
# re-reads its hosts file)
dns_hosts() {
	if [[ $2 == on ]]; then
		echo "10.9.9.$1 ok.kmaglev.test" >"$DP_TMP/dns.b$1.hosts"
	else
		: >"$DP_TMP/dns.b$1.hosts"
	fi
	kill -HUP "${DP_BGPID[dns.b$1]}"
}

write_config() {
	cat >"$CFG" <<EOF
# kmaglev daemon_checks selftest
config:
  probe-mark-min: 0x10000
  probe-mark-max: 0x1ffff
daemon:
  owner: kmaglev-selftest
  drain-time: 1s
  metrics: off
  socket: $SOCK
services:
  - vip: $V0
    port: $TLS_PORT
    backends:
      - address: $(be 1)
        checks: [{ kind: https, host: www.kmaglev.test, verify-tls: true, ca: $PKI/ca.pem, body: "b1 sni=www.kmaglev.test host=www.kmaglev.test", $TIMING }]
      - address: $(be 2)
        checks: [{ kind: https, host: api.kmaglev.test, verify-tls: true, ca: $PKI/ca.pem, body: "b2 sni=api.kmaglev.test host=api.kmaglev.test", reuse: 0s, $TIMING }]
      - address: $(be 3)
        checks: [{ kind: https, host: wrong.kmaglev.test, verify-tls: true, ca: $PKI/ca.pem, $TIMING, $NEVER }]
  - vip: $V1
    port: $TLS_PORT
    backends:
      - address: $(be 1)
        checks: [{ kind: https, host: other.kmaglev.test, verify-tls: true, ca: $PKI/ca.pem, $TIMING, $NEVER }]
      - address: $(be 2)
        checks: [{ kind: https, host: wrong.kmaglev.test, verify-tls: false, body: "b2 sni=wrong.kmaglev.test host=wrong.kmaglev.test", reuse: 3s, $TIMING }]
      - address: $(be 3)
        checks: [{ kind: https, host: www.kmaglev.test, verify-tls: true, $TIMING, $NEVER }]
  - vip: $V2
    port: $UDP_PORT
    proto: udp
    checks: [{ kind: udp, send: ping, expect: pong, $TIMING }]
    backends:
      - { address: $(be 1) }
      - { address: $(be 2) }
  - vip: $V3
    port: 53
    proto: udp
    checks: [{ kind: dns, query: ok.kmaglev.test, qtype: A, rcode: NOERROR, $TIMING }]
    backends:
      - { address: $(be 1) }
      - { address: $(be 2) }
  - vip: $V4
    port: $DP_HTTP_PORT
    backends:
$(for i in 1 2; do
	echo "      - address: $(be $i)"
	echo "        checks: [{ kind: exec, command: [/usr/bin/curl, -sf, --max-time, '2', 'http://$(be $i)/weight'], $TIMING }]"
done)
EOF
}
TIMING="interval: 2s, timeout: 2s, fast-interval: 500ms, jitter: 200ms, rise: 2, fall: 2"
# the checks that never pass: a handshake every 5 s is enough (each costs the guest's CPU)
NEVER="down-interval: 5s"

daemon_start() {
	dp_bg daemon ip netns exec "${DP_LB[LB]}" "$KMAGLEV" daemon -c "$CFG"
	DPID=${DP_BGPID[daemon]}
	dp_wait 30 test -S "$SOCK"
}

# a stopped resolver would outlive SIGTERM and hold up the teardown's wait
trap 'kill -CONT "${DP_BGPID[dns.b2]}" 2>/dev/null; dp_cleanup' EXIT

# --- the servers, the config -----------------------------------------------------------------
# (in this shell, not in ktap_test_result's subshell: dp_bg remembers the servers' pids)
servers() {
	local i
	pki || { sed 's/^/# /' "$DP_TMP/pki.log"; return 1; }
	for i in 1 2 3; do
		echo "weight 5" >"$DP_TMP/www/b$i/weight"
		tls_start "$i"
	done
	for i in 1 2; do
		udp_start "$i"
		dns_start "$i"
	done
	for i in 1 2 3; do
		tls_ready "$i" || { echo "# b$i: the TLS server did not start"; sed 's/^/# /' "$DP_TMP/tls.b$i.log"; return 1; }
	done
}
if servers >"$DP_TMP/servers.out" 2>&1; then
	ktap_test_pass "servers: a CA and certificates (openssl), TLS on $TLS_PORT, socat on udp $UDP_PORT, dnsmasq on 53 (${SECONDS}s)"
else
	cat "$DP_TMP/servers.out"
	dp_fail_rest "servers" 1
	dp_test_end
fi
write_config
ktap_test_result "daemon --check accepts the config (ca: the test CA)" K daemon --check "$CFG"
# a ca that is not there: refused, the file's line and column and the path named
missing_ca() {
	local out line
	sed "0,\|ca: $PKI/ca.pem|s||ca: $PKI/nothere.pem|" "$CFG" >"$DP_TMP/bad.yaml"
	line=$(grep -n "nothere.pem" "$DP_TMP/bad.yaml" | cut -d: -f1)
	out=$(K daemon --check "$DP_TMP/bad.yaml" 2>&1) && { echo "# accepted"; return 1; }
	echo "# $out"
	[[ $out == *"bad.yaml:$line:"*"services[0].backends[0].checks[0].ca: $PKI/nothere.pem: No such file or directory"* ]]
}
ktap_test_result "daemon --check refuses a ca that does not exist: FILE:LINE:COL, the field and the path" \
	missing_ca

# --- start -----------------------------------------------------------------------------------
if daemon_start && dp_wait 60 eval '[[ $(be_field '"$S0 $(be 1)"' state) == up &&
	$(be_field '"$S3 $(be 2)"' state) == up && $(be_field '"$S4 $(be 2)"' state) == up ]]'; then
	ktap_test_pass "daemon up: checks pass (${SECONDS}s)"
else
	sed 's/^/# /' "$DLOG"
	KS status | sed 's/^/# /'
	dp_fail_rest "daemon start" 1
	dp_test_end
fi
dp_bg mon ip netns exec "${DP_LB[LB]}" "$KMAGLEV" -j -t monitor

# --- https: what verifies and what does not ----------------------------------------------------
# up_ok SVC N: backend N up, its check's result "ok"
up_ok() { wait_be $WAIT "$1" "$(be "$2")" state up >/dev/null && result_is "$1" "$(be "$2")" ok; }
down_why() { wait_be $WAIT "$1" "$(be "$2")" state down >/dev/null && result_is "$1" "$(be "$2")" "$3"; }
ktap_test_result "https, verify-tls with ca: www.kmaglev.test (SNI and Host, the body says both): up" \
	up_ok "$S0" 1
ktap_test_result "https, verify-tls with ca: api.kmaglev.test, the certificate's second name: up" \
	up_ok "$S0" 2
ktap_test_result "https, verify-tls with ca: a name not in the certificate: down, status says so" \
	down_why "$S0" 3 "tls: SSL: no alternative certificate subject name matches target host name 'wrong.kmaglev.test'"
ktap_test_result "https, verify-tls with ca: a certificate of another CA: down, status says so" \
	down_why "$S1" 1 "tls: SSL certificate problem: unable to get local issuer certificate"
ktap_test_result "https, verify-tls off: a name not in the certificate passes: up" up_ok "$S1" 2
ktap_test_result "https, verify-tls with the system's CAs: the test CA is not one: down" \
	down_why "$S1" 3 "tls: SSL certificate problem: unable to get local issuer certificate"
ktap_test_result "udp: socat answers pong: up" up_ok "$S2" 1
ktap_test_result "dns: dnsmasq answers ok.kmaglev.test: up" up_ok "$S3" 1
exec_up() { up_ok "$S4" 1 && wait_be $WAIT "$S4" "$(be 1)" weight 5 >/dev/null; }
ktap_test_result "exec: curl to the backend passes, its \"weight 5\" sets the weight (1 -> 5)" exec_up

# --- faults on b1, one kind per service ------------------------------------------------------
LOG_MARK=$(wc -l <"$DLOG")
ts=$(now)
stop tls.b1
stop udp.b1
dns_hosts 1 off
rm -f "$DP_TMP/www/b1/weight"
detected "https: the TLS server killed: down" "$ts" "$S0" "$(be 1)" down
# (started again now, to listen at the next step)
tls_start 1 "$DP_TMP/tls.b1.go"
detected "udp: socat stopped: down" "$ts" "$S2" "$(be 1)" down
detected "dns: the name goes upstream, DNSSEC fails it (SERVFAIL): down" "$ts" "$S3" "$(be 1)" down
servfail() {
	result_is "$S3" "$(be 1)" "rcode SERVFAIL" || return 1
	grep "validation ok.kmaglev.test is" "$DP_TMP/dns.b1.log" | tail -n 1 | sed 's/^/# dnsmasq: /' |
		grep -q .
}
ktap_test_result "dns: status says rcode SERVFAIL; dnsmasq's log says its validation failed" servfail
detected "exec: curl fails (404): down" "$ts" "$S4" "$(be 1)" down
ktap_test_result "exec: status says exit 22 (curl's HTTP error)" result_is "$S4" "$(be 1)" "exit 22"
# b2 of each service: up, never down since the faults (the log says so if it went)
others_up() {
	local s st rc=0
	for s in "$S0" "$S2" "$S3" "$S4"; do
		st=$(be_field "$s" "$(be 2)" state)
		[[ $st == up ]] || { echo "# $s $(be 2): $st ($(result "$s" "$(be 2)"))"; rc=1; }
	done
	tail -n +"$((LOG_MARK + 1))" "$DLOG" | grep "backend $(be 2): down" | sed 's/^/# /' | grep . &&
		rc=1
	return $rc
}
ktap_test_result "the other backends stay up" others_up

# --- and back ----------------------------------------------------------------------------------
# (timed from when b1's TLS server, started above, listens)
touch "$DP_TMP/tls.b1.go"
tls_ready 1
ts=$(now)
udp_start 1
dns_hosts 1 on
echo "weight 7" >"$DP_TMP/www/b1/weight"
detected "https: the TLS server back: up" "$ts" "$S0" "$(be 1)" up
detected "udp: socat back: up" "$ts" "$S2" "$(be 1)" up
detected "dns: the name answered again: up" "$ts" "$S3" "$(be 1)" up
detected "exec: curl passes again: up" "$ts" "$S4" "$(be 1)" up
ktap_test_result "exec: \"weight 7\" sets the weight (5 -> 7)" wait_be $WAIT "$S4" "$(be 1)" weight 7

# --- b2: a certificate of another CA, a silent resolver --------------------------------------
ts=$(now)
TS_OTHER=$ts
echo other >"$DP_TMP/tls.b2.mode"
kill -STOP "${DP_BGPID[dns.b2]}"
detected "https: the server shows another CA's certificate: down" "$ts" "$S0" "$(be 2)" down
ktap_test_result "https: status says the issuer is unknown" result_is "$S0" "$(be 2)" \
	"tls: SSL certificate problem: unable to get local issuer certificate"
# verify-tls off passes whatever the certificate: its connection is renewed within 4 s (reuse
# 3s), with a full handshake that shows the other CA's certificate, and b2 stays up throughout
handshakes() { grep -c "^handshake $1\$" "$DP_TMP/tls.b2.log"; }
verify_off() {
	local t
	dp_wait $WAIT eval '[[ $(handshakes "sni=wrong.kmaglev.test cert=other resumed=False") -ge 2 ]]' ||
		{ echo "# no full handshake with the other CA's certificate"; tail -n 5 "$DP_TMP/tls.b2.log" | sed 's/^/#   /'; return 1; }
	t=$(dp_since "$V1" "$TS_OTHER")
	[[ -z $t ]] || { echo "# $S1 changed ${t}s after the switch"; return 1; }
	[[ $(be_field "$S1" "$(be 2)" state) == up ]] && result_is "$S1" "$(be 2)" ok
}
ktap_test_result "https, verify-tls off: the other CA's certificate (full handshakes) passes too: b2 stays up" verify_off
# a verifying probe makes a full handshake every time (its runs, reuse 0s, are new connections
# of one curl handle, which would resume its TLS session otherwise)
full() {
	local n r
	n=$(handshakes "sni=api.kmaglev.test cert=main resumed=False")
	r=$(grep -c "^handshake sni=api.kmaglev.test .* resumed=True$" "$DP_TMP/tls.b2.log")
	echo "# b2, api.kmaglev.test: $n full handshakes, $r resumed"
	[[ $n -ge 5 && $r -eq 0 ]]
}
ktap_test_result "https, verify-tls: no TLS session resumed, every connection shows its certificate" full
detected "dns: the resolver stopped (silence): down" "$ts" "$S3" "$(be 2)" down
ktap_test_result "dns: status says timeout" result_is "$S3" "$(be 2)" timeout
ts=$(now)
rm -f "$DP_TMP/tls.b2.mode"
kill -CONT "${DP_BGPID[dns.b2]}"
detected "https: the right certificate again: up" "$ts" "$S0" "$(be 2)" up
detected "dns: the resolver answers again: up" "$ts" "$S3" "$(be 2)" up

# --- the end -----------------------------------------------------------------------------------
kill -TERM "$DPID"
ktap_test_result "SIGTERM: the daemon exits" dp_wait 30 eval '! kill -0 '"$DPID"
ktap_test_result "daemon --flush deletes the owned services" K daemon --flush -c "$CFG"

dp_test_end
