#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Object lifetimes at the edges: failed requests that allocated a backend, the last service
# deleted, a netns deleted and the module unloaded while packets flow, mode ingress's device
# hooks while packets flow (devices deleted, moved, renamed; modes switched; a netns and the
# module going with hooks registered), and many netns with live connection entries destroyed
# in a row. Written for the debug kernel (KASAN, KMEMLEAK):
# there a use-after-free is a splat that fails the run; on every kernel the object counters
# in debugfs and the probe counter show what was left behind.
#
#   cl (pktgen, UDP to the VIP from many ports) --veth--> lb (kmaglev) --> dummy0 (backends)
#
# KMAGLEV_TEARDOWN_NETNS: how many netns the destroy loop creates (default 200).
# KMAGLEV_TEARDOWN_ROUNDS: rounds of the last-service and the mode-switch cases (default 5).
source "$(dirname "$0")/lib.sh"

kmg_require_root
kmg_require_cmd ip python3
ktap_print_header
ktap_set_plan 20

NNS=${KMAGLEV_TEARDOWN_NETNS:-200}
VIP=192.0.2.1
VIP2=192.0.2.2
DBG=/sys/kernel/debug/kmaglev/objects
PY=/usr/bin/python3

modprobe -q pktgen 2>/dev/null
[[ -e /proc/net/pktgen/pgctrl ]] || ktap_skip_all "no pktgen"
kmg_load_module || { ktap_test_fail "load kmaglev.ko"; ktap_finished; }
[[ -r $DBG ]] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

obj() { awk -v k="$1" '$1 == k { print $2 }' "$DBG"; }
# wait_objects: every service, backend, table and connection entry freed (RCU and the table
# workqueue take a moment).
wait_objects() {
	local i
	for i in $(seq 1 60); do
		[[ $(obj services) == 0 && $(obj backends) == 0 && $(obj tables) == 0 &&
		   $(obj conns) == 0 ]] && return 0
		sleep 0.5
	done
	cat "$DBG"
	return 1
}

kmg_netns_add lb
kmg_netns_add cl
K() { ip netns exec "$lb" "$KMAGLEV" "$@"; }
# gstat NAME: a global counter of the LB (kmaglev -j stats); nothing if there is no such.
gstat() { K -j stats | kmg_jq '.global[$k]' --arg k "$1"; }

ip link add in0 netns "$lb" type veth peer name cl0 netns "$cl"
ip -n "$lb" link add dummy0 type dummy
ip -n "$lb" addr add 198.51.100.1/24 dev in0
ip -n "$lb" addr add 10.0.0.254/8 dev dummy0
ip -n "$cl" addr add 198.51.100.2/24 dev cl0
for l in "$lb in0" "$lb dummy0" "$cl cl0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$lb" route add $VIP/32 dev dummy0
ip -n "$lb" route add $VIP2/32 dev dummy0
ip -n "$cl" route add 192.0.2.0/24 via 198.51.100.1
ip netns exec "$lb" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.in0.rp_filter=0

# send_marked MARK...: one UDP datagram to VIP:53 from the LB itself per mark.
send_marked() {
	ip netns exec "$lb" "$PY" - "$VIP" "$@" <<'EOF'
import socket, sys
for m in sys.argv[2:]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, int(m))
    s.sendto(b'probe', (sys.argv[1], 53))
    s.close()
EOF
}

# --- 1, 2: a failed backend add must not leave its backend where probes find it ----------
# Before the fix the freed backend stayed in the netns' probe-id map: a probe for its id sent
# a packet through freed memory (KASAN), and the probe counter counted it.
K config set probe-mark-min 1000 probe-mark-max 1063 >/dev/null
K service add $VIP:53/udp >/dev/null && K backend add $VIP:53/udp 10.0.0.1 >/dev/null &&
	K service add $VIP2:53/udp >/dev/null
failed_add_case() {
	local desc=$1 before after
	shift
	before=$(gstat probe)
	[[ -n $before ]] || { ktap_test_fail "$desc: the probe counter cannot be read"; return; }
	if "$@" >/dev/null 2>&1; then
		ktap_test_fail "$desc: the add was accepted"
		return
	fi
	# ids are 31-bit and handed out cyclically: the failed one is among the next few
	send_marked $(seq 1000 1063)
	after=$(gstat probe)
	# only the one live backend (10.0.0.1) takes a probe
	if [[ -n $after && $((after - before)) -eq 1 ]]; then
		ktap_test_pass "$desc: no probe reaches the discarded backend"
	else
		ktap_print_msg "probe counter grew by $((after - before)), expected 1"
		ktap_test_fail "$desc: no probe reaches the discarded backend"
	fi
}
failed_add_case "backend add of a VIP address fails" K backend add $VIP:53/udp $VIP2
# The probe count tells: marks outside probe-mark-min..max are no probes (+0, not the +1 above)
before=$(gstat probe)
send_marked 999 1064 2000
after=$(gstat probe)
if [[ -n $before && -n $after && $after -eq $before ]]; then
	ktap_test_pass "marks outside 1000-1063 are no probes: probe +0 ($before -> $after)"
else
	ktap_test_fail "marks outside 1000-1063 are no probes: probe ${before:-unread} -> ${after:-unread}"
fi
K config set max-backends 1 >/dev/null
failed_add_case "backend add beyond max-backends fails" K backend add $VIP:53/udp 10.0.0.2
K config set max-backends 1000 >/dev/null
K config set probe-mark-min 0 probe-mark-max 0 >/dev/null
K service del $VIP2:53/udp >/dev/null

# --- pktgen in cl: UDP to the VIP, a new source port (new flow) every packet --------------
PGDIR=/proc/net/pktgen
pg() { ip netns exec "$cl" sh -c "echo '$2' > $PGDIR/$1"; }
pg_setup() {
	local mac
	mac=$(ip netns exec "$lb" cat /sys/class/net/in0/address)
	pg kpktgend_0 rem_device_all
	pg kpktgend_0 "add_device cl0"
	# 5k packets per second: traffic in flight all the time, and a guest that still answers
	# commands. pktgen's thread busy-waits whenever less than 100 us is left to the next
	# packet (its spin()): a whole vCPU under emulation at 20k per second. At 200 us it
	# sleeps on an hrtimer between packets.
	for c in "count 0" "delay 200000" "pkt_size 64" "dst $VIP" "dst_mac $mac" \
		"udp_dst_min 53" "udp_dst_max 53" "udp_src_min 1024" "udp_src_max 65000" \
		"flag UDPSRC_RND"; do
		pg cl0 "$c"
	done
}
PG_PID=
pg_start() { ip netns exec "$cl" sh -c "echo start > $PGDIR/pgctrl" 2>/dev/null & PG_PID=$!; }
pg_stop() {
	ip netns exec "$cl" sh -c "echo stop > $PGDIR/pgctrl" 2>/dev/null
	wait "$PG_PID" 2>/dev/null
	PG_PID=
}
trap '[[ -n $PG_PID ]] && pg_stop; kmg_netns_cleanup' EXIT
pg_setup

# --- 3: the last service deleted under traffic, again and again ---------------------------
# Deleting the last service unregisters the hooks and flushes the connection table. A packet
# still inside the hook could insert an entry after the flush: it would never be freed.
ROUNDS=${KMAGLEV_TEARDOWN_ROUNDS:-5}
t0=$SECONDS
pg_start
sleep 2
ok=1
for i in $(seq 1 "$ROUNDS"); do
	K service del $VIP:53/udp >/dev/null || ok=0
	wait_objects || {
		ktap_print_msg "round $i: objects left after the last service went"
		ok=0
	}
	K service add $VIP:53/udp >/dev/null && K backend add $VIP:53/udp 10.0.0.1 >/dev/null ||
		ok=0
	sleep 0.2
done
news=$(gstat conn-new)
[[ ${news:-0} -gt 0 ]] || { ktap_print_msg "no flow was tracked: is traffic flowing?"; ok=0; }
ktap_print_msg "$news flows tracked, $((SECONDS - t0))s"
[[ $ok == 1 ]] && ktap_test_pass "last service deleted under traffic $ROUNDS times: no entry left" ||
	ktap_test_fail "last service deleted under traffic $ROUNDS times: no entry left"

# --- 4: the LB's netns deleted under traffic, with live entries ---------------------------
ip netns del "$lb"
sleep 2
pg_stop
if wait_objects; then
	ktap_test_pass "netns deleted under traffic: every object freed"
else
	ktap_test_fail "netns deleted under traffic: every object freed"
fi

# --- 5: module unload under traffic -------------------------------------------------------
kmg_netns_add lb
ip -n "$cl" link del cl0 2>/dev/null
ip link add in0 netns "$lb" type veth peer name cl0 netns "$cl"
ip -n "$lb" link add dummy0 type dummy
ip -n "$lb" addr add 198.51.100.1/24 dev in0
ip -n "$lb" addr add 10.0.0.254/8 dev dummy0
ip -n "$cl" addr add 198.51.100.2/24 dev cl0
ip -n "$lb" link set in0 up
ip -n "$lb" link set dummy0 up
ip -n "$cl" link set cl0 up
ip -n "$lb" route add $VIP/32 dev dummy0
ip -n "$cl" route add 192.0.2.0/24 via 198.51.100.1
pg_setup
K service add $VIP:53/udp >/dev/null && K backend add $VIP:53/udp 10.0.0.1 >/dev/null
pg_start
sleep 3
if rmmod kmaglev; then
	ktap_test_pass "module unloaded under traffic"
else
	ktap_test_fail "module unloaded under traffic"
fi
sleep 1
pg_stop
kmg_load_module || { ktap_test_fail "reload kmaglev.ko"; ktap_finished; }
ktap_test_result "module reloaded, nothing left over" wait_objects

# --- mode ingress under traffic ----------------------------------------------------------
# Device hooks (ingress.c) come and go with their devices: hooked veths deleted, moved to
# another netns and back, renamed into and out of the list; modes switched back and forth; a
# netns with ingress hooks deleted; the module unloaded with ingress hooks registered. All
# while a flooder sends UDP to VIP A over link a and to VIP B over link b (a python loop, one
# buffer per packet; pktgen's are shared, which the early path balances as clones):
#
#   icl ca --- ia ilb   kmaglev: hook ingress, ingress-dev ia,ib; dummy0 to the backends
#   icl cb --- ib       moved to ilbx and back; ilbx: hook ingress, ingress-dev xb
#
# Where packets were taken is read from the counters of the netns that has the device, which
# gets the traffic of that link only: all of it at ingress (rx-ingress grows as rx-packets
# does) when the device is hooked, none of it (rx-ingress +0) when not.
VA=192.0.2.21
VB=192.0.2.22
kmg_netns_add ilb
kmg_netns_add ilbx
kmg_netns_add icl
KI() { ip netns exec "$ilb" "$KMAGLEV" "$@"; }
KX() { ip netns exec "$ilbx" "$KMAGLEV" "$@"; }
# lb_setup NS: dummy0 to the backends, rp_filter off, a service for each VIP
lb_setup() {
	ip -n "$1" link add dummy0 type dummy &&
		ip -n "$1" addr add 10.0.0.254/8 dev dummy0 &&
		ip -n "$1" link set dummy0 up &&
		ip netns exec "$1" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 &&
		printf 'service add %s:53/udp backend 10.0.0.1\n' $VA $VB |
			ip netns exec "$1" "$KMAGLEV" -b -
}
# link_a: the veth of link a, ia in ilb (198.51.100.9/30), ca in icl (.10), VIP A routed over it
link_a() {
	ip link add ia netns "$ilb" type veth peer name ca netns "$icl" &&
		ip -n "$ilb" addr add 198.51.100.9/30 dev ia && ip -n "$ilb" link set ia up &&
		ip -n "$icl" addr add 198.51.100.10/30 dev ca && ip -n "$icl" link set ca up &&
		ip -n "$icl" route add $VA/32 via 198.51.100.9
}
# ib_to NS: move ib (link b's LB side) into NS, with its address, up
ib_to() {
	ip -n "$2" link set ib netns "$1" &&
		ip -n "$1" addr add 198.51.100.13/30 dev ib && ip -n "$1" link set ib up
}
# rename NS OLD NEW: a device renamed (it must be down for that)
rename() {
	ip -n "$1" link set "$2" down && ip -n "$1" link set "$2" name "$3" &&
		ip -n "$1" link set "$3" up
}
# rxri NS: "RX RI", NS's rx-packets and rx-ingress (one kmaglev -j stats); nothing if either
# cannot be read
rxri() {
	ip netns exec "$1" "$KMAGLEV" -j stats |
		kmg_jq '.global | "\(."rx-packets" // error) \(."rx-ingress" // error)"'
}
# taken NS: once NS's rx-packets grew by 30 (within 60 s), "RX RI": how much rx-packets and
# rx-ingress grew; "? ?" if they could not be read
taken() {
	local rx0 ri0 rx ri end=$((SECONDS + 60))
	read -r rx0 ri0 <<<"$(rxri "$1")"
	[[ -n $ri0 ]] || { echo "? ?"; return; }
	while read -r rx ri <<<"$(rxri "$1")"; [[ -n $ri && $((rx - rx0)) -lt 30 && $SECONDS -lt $end ]]; do
		sleep 0.3
	done
	[[ -n $ri ]] || { echo "? ?"; return; }
	echo "$((rx - rx0)) $((ri - ri0))"
}
# verdict ingress|prerouting RX RI: of RX (at least 30) packets, all were taken at ingress (RI
# as many, but for 3 counted while the stats were read), or none was (RI 0)
verdict() {
	[[ $2 =~ ^[0-9]+$ && $3 =~ ^[0-9]+$ && $2 -ge 30 ]] || return 1
	if [[ $1 == ingress ]]; then
		[[ $3 -ge $(($2 - 3)) ]]
	else
		[[ $3 -eq 0 ]]
	fi
}
# at NS ingress|prerouting: NS's packets were all taken at ingress, or none was; says how many
at() {
	local rx ri
	read -r rx ri <<<"$(taken "$1")"
	echo "${1%%-*}: rx-packets +$rx rx-ingress +$ri"
	verdict "$2" "$rx" "$ri"
}
# check DESC CMD...: CMD's lines (the "at" results) in the KTAP result
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$desc ($(tr '\n' ';' <<<"$out" | sed 's/;$//; s/;/; /g'))"
	else
		echo "$out" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
}
FLOOD_PID=
flood_stop() {
	[[ -n $FLOOD_PID ]] && kill "$FLOOD_PID" 2>/dev/null && wait "$FLOOD_PID" 2>/dev/null
	FLOOD_PID=
}
trap '[[ -n $PG_PID ]] && pg_stop; flood_stop; kmg_netns_cleanup' EXIT

ingress_setup() {
	lb_setup "$ilb" && lb_setup "$ilbx" &&
		KI config set hook ingress ingress-dev ia,ib && KX config set hook ingress ingress-dev xb &&
		link_a &&
		ip link add ib netns "$ilb" type veth peer name cb netns "$icl" &&
		ip -n "$ilb" addr add 198.51.100.13/30 dev ib && ip -n "$ilb" link set ib up &&
		ip -n "$icl" addr add 198.51.100.14/30 dev cb && ip -n "$icl" link set cb up &&
		ip -n "$icl" route add $VB/32 via 198.51.100.13
}
t0=$SECONDS
out=$(ingress_setup 2>&1) || echo "$out" | sed 's/^/# /'
# 32 flows to each VIP, up to 3200 packets a second; errors (no route while a link is away)
# are ignored
ip netns exec "$icl" "$PY" - $VA $VB >/dev/null 2>&1 <<'EOF' &
import socket, sys, time
socks = []
for p in range(40000, 40032):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('0.0.0.0', p))
    s.setblocking(False)
    socks.append(s)
while True:
    for v in sys.argv[1:]:
        for s in socks:
            try:
                s.sendto(b'kmaglev teardown', (v, 53))
            except OSError:
                pass
    time.sleep(0.02)
EOF
FLOOD_PID=$!

check "mode ingress: ilb's traffic over its two hooked veths taken at ingress" at "$ilb" ingress
# the verdicts tell the hooks apart: ilb's traffic, taken at ingress, is no prerouting traffic
read -r rx ri <<<"$(taken "$ilb")"
if verdict ingress "$rx" "$ri" && ! verdict prerouting "$rx" "$ri"; then
	ktap_test_pass "the prerouting verdict fails on ilb's traffic taken at ingress (rx-packets +$rx rx-ingress +$ri)"
else
	ktap_test_fail "the prerouting verdict fails on ilb's traffic taken at ingress (rx-packets +$rx rx-ingress +$ri)"
fi
case_move() { ib_to "$ilbx" "$ilb" && at "$ilbx" prerouting && at "$ilb" ingress; }
check "hooked ib moved to ilbx, whose list does not name it: not hooked there; ilb's ia still is" \
	case_move
# (renamed back whatever the first count says: the cases after this one want ib)
case_rename() {
	local rc=0
	rename "$ilbx" ib xb || return 1
	at "$ilbx" ingress || rc=1
	rename "$ilbx" xb ib && at "$ilbx" prerouting || rc=1
	return $rc
}
check "ib renamed into ilbx's list (xb): hooked; renamed out again: not hooked" case_rename
case_del() { ip -n "$ilb" link del ia && ib_to "$ilb" "$ilbx" && at "$ilb" ingress; }
check "hooked ia deleted under traffic; ib moved back to ilb, which names it: hooked there" case_del
case_again() { link_a && ib_to "$ilbx" "$ilb" && at "$ilb" ingress && at "$ilbx" prerouting; }
check "ia made again: hooked again; ib moved out to ilbx again: not hooked there" case_again
# Each round: prerouting, ingress on every device, ingress on the list, in both LBs.
case_switch() {
	local i
	for i in $(seq 1 "$ROUNDS"); do
		KI config set hook prerouting && KX config set hook prerouting &&
			KI config set hook ingress ingress-dev all &&
			KX config set hook ingress ingress-dev all &&
			KI config set ingress-dev ia,ib && KX config set ingress-dev xb || return 1
	done
	KI config set hook prerouting && at "$ilb" prerouting &&
		KI config set hook ingress && at "$ilb" ingress
}
check "modes switched under traffic $ROUNDS times in both LBs; then prerouting, then ingress again" \
	case_switch
# ilbx has 2 services and 2 backends of its own
case_netns() {
	local s0 b0 i
	s0=$(obj services)
	b0=$(obj backends)
	KX config set ingress-dev xb,ib && at "$ilbx" ingress && ip netns del "$ilbx" || return 1
	for i in $(seq 1 60); do
		[[ $(obj services) -eq $((s0 - 2)) && $(obj backends) -eq $((b0 - 2)) ]] && break
		sleep 0.5
	done
	echo "objects: services $s0 -> $(obj services), backends $b0 -> $(obj backends)"
	[[ $(obj services) -eq $((s0 - 2)) && $(obj backends) -eq $((b0 - 2)) ]]
}
check "ilbx deleted with its hooked ib under traffic: its objects freed" case_netns
case_unload() { KI config set ingress-dev all && at "$ilb" ingress && rmmod kmaglev; }
check "module unloaded under traffic with ingress hooks on every device of ilb" case_unload
flood_stop
ip netns del "$ilb"
ip netns del "$icl"
kmg_load_module || { ktap_test_fail "reload kmaglev.ko"; ktap_finished; }
ktap_test_result "module reloaded, nothing left over ($((SECONDS - t0))s in mode ingress)" wait_objects

# --- 6: many netns with live connection entries destroyed in a row ------------------------
# Entries are freed by RCU callbacks after their netns' per-netns memory is gone: the
# callbacks must not touch it, and backends must release their cached routes before the
# netns' IPv6 routing goes. Each netns balances a VIP (on lo, so the netns needs no more
# set-up) to two backends, IPv4 and IPv6, and holds 20 UDP entries when it goes: a child process unshares a netns, configures
# it, sends, and exits, which destroys the netns. One fork and one exec per netns.
churn() {
	"$PY" - "$1" "$KMAGLEV" <<'EOF'
import ctypes, fcntl, json, os, socket, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
n, cli = int(sys.argv[1]), sys.argv[2]
# backends reachable through lo, IPv4 and IPv6, so that each caches its route (dst_cache)
batch = (b'service add 127.0.0.5:53/udp\n'
         b'backend add 127.0.0.5:53/udp 127.0.0.2\n'
         b'backend add 127.0.0.5:53/udp ::1\n')

def child(first):
    if libc.unshare(CLONE_NEWNET):
        return 'unshare: errno %d' % ctypes.get_errno()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack('16sH', fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack('16sH', b'lo', 0)))[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack('16sH', b'lo', flags | IFF_UP))
    if subprocess.run([cli, '-b', '-'], input=batch, stdout=subprocess.DEVNULL).returncode:
        return 'kmaglev -b failed'
    for p in range(20):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(('127.0.0.1', 30000 + p))
        u.sendto(b'x', ('127.0.0.5', 53))
        u.close()
    if first:
        out = subprocess.run([cli, '-j', 'config', 'show'], capture_output=True, text=True).stdout
        if json.loads(out or '{}').get('conns') != 20:
            return 'expected 20 entries: ' + out
    return None

for i in range(n):
    pid = os.fork()
    if pid == 0:
        try:
            err = child(i == 0)
        except Exception as e:
            err = repr(e)
        if err:
            print('# netns %d: %s' % (i, err), flush=True)
        os._exit(1 if err else 0)
    if os.waitpid(pid, 0)[1]:
        sys.exit(1)
EOF
}
start=$SECONDS
if churn "$NNS"; then
	ktap_test_pass "$NNS netns with 20 live entries each created and destroyed ($((SECONDS - start))s)"
else
	ktap_test_fail "$NNS netns with 20 live entries each created and destroyed"
fi
ktap_test_result "every object of the destroyed netns freed" wait_objects

# Unloading warns (a splat) if any object is left.
ktap_test_result "module unloads cleanly" rmmod kmaglev
ktap_finished
