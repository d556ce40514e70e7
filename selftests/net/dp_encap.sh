#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, encapsulation edge cases:
#  - GSO: uploads through IPIP, GRE and GRE over IPv6 complete when LB 1's egress device cannot
#    segment tunnels itself (tx-*-segmentation off), so the stack segments the encapsulated
#    super-packets in software, and nothing is dropped on the way.
#  - ICMP errors about a flow of a protocol-"any" service that is neither TCP nor UDP (protocol
#    253, no ports) reach the backend that serves the flow.
#  - Clearing a service's encap-src takes effect at once (the cached route is not reused).
#  - Outer IPv4 IDs: a datagram with DF goes out in an outer header with DF and ID 0 (an atomic
#    datagram, RFC 6864); one without DF in an outer header without DF, its ID from the kernel's
#    generator for the outer (source, destination, protocol): two services that send to one
#    backend host draw from one sequence, so fragments of two datagrams cannot be mixed.
#  - Reassembly (LB 2, a 1400-byte link to the backends, a service with the defrag flag): a
#    datagram the client fragmented so that each fragment fits the tunnel is forwarded, its
#    outer packet fragmented, rather than answered with Packet Too Big.
#  - Echo (the same service, flag echo): a 3000-byte ping, which the client fragments and LB 2
#    reassembles, is answered with a reply that LB 2 fragments too, and LB 2 sends no
#    fragmentation-needed / Packet Too Big to the VIP itself; a request with IPv4 options or
#    an IPv6 destination options header gets a reply without them, one with an IPv6 routing
#    header that has segments left none (drop-malformed); LB 2's own pings to the VIP are
#    answered.
#  - LB 2's own (LOCAL_OUT) IPv6 packet that does not fit the tunnel gets a Packet Too Big.
#  - TTL: two LBs whose services point at each other do not loop forever: each LB is a router
#    hop for the client's packet, so it dies when its TTL / hop limit runs out, and the client
#    gets ICMP time exceeded.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

kmg_require_cmd ethtool
dp_test_start 23 2 2

HOP_PY=$DP_TMP/hop.py
cat >"$HOP_PY" <<'EOF'
import socket, struct, sys, time

def csum(d):
    if len(d) % 2:
        d += b'\0'
    s = sum(struct.unpack('!%dH' % (len(d) // 2), d))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == 'proto':		# proto VIP PROTO COUNT: raw packets of PROTO to VIP
    vip, proto, n = args[0], int(args[1]), int(args[2])
    fam = socket.AF_INET6 if ':' in vip else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_RAW, proto)
    for _ in range(n):
        s.sendto(b'kmaglev!', (vip, 0))
        time.sleep(0.01)
elif cmd == 'unreach':		# unreach VIP CLIENT PROTO COUNT: "unreachable" about VIP -> CLIENT
    vip, cl, proto, n = args[0], args[1], int(args[2]), int(args[3])
    if ':' in vip:
        inner = struct.pack('!IHBB16s16s', 0x60000000, 8, proto, 64,
                            socket.inet_pton(socket.AF_INET6, vip),
                            socket.inet_pton(socket.AF_INET6, cl)) + b'kmaglev!'
        msg = struct.pack('!BBHI', 1, 3, 0, 0) + inner		# the kernel sums it
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    else:
        hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 28, 0, 0, 64, proto, 0,
                          socket.inet_aton(vip), socket.inet_aton(cl))
        hdr = hdr[:10] + struct.pack('!H', csum(hdr)) + hdr[12:]
        msg = struct.pack('!BBHI', 3, 1, 0, 0) + hdr + b'kmaglev!'
        msg = msg[:2] + struct.pack('!H', csum(msg)) + msg[4:]
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    for _ in range(n):
        s.sendto(msg, (vip, 0))
        time.sleep(0.01)
elif cmd == 'echo':		# echo VIP: an echo request with IPv4 options (4 NOPs) or an IPv6
    vip = args[0]		# destination options header; prints the reply's "ihl N" or "dstopts N"
    ident, data = 0x4b4d, b'kmaglev!' * 8
    if ':' in vip:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVDSTOPTS, 1)
        dst = bytes([0, 0, 1, 4, 0, 0, 0, 0])	# PadN; the kernel sets the next header
        s.sendmsg([struct.pack('!BBHHH', 128, 0, 0, ident, 1) + data],
                  [(socket.IPPROTO_IPV6, socket.IPV6_DSTOPTS, dst)], 0, (vip, 0))
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, b'\x01\x01\x01\x01')
        msg = struct.pack('!BBHHH', 8, 0, 0, ident, 1) + data
        s.sendto(msg[:2] + struct.pack('!H', csum(msg)) + msg[4:], (vip, 0))
    s.settimeout(3)
    end = time.time() + 3
    while time.time() < end:
        try:
            buf, anc, _, _ = s.recvmsg(2048, 1024)
        except socket.timeout:
            break
        if ':' in vip:
            if buf[0] == 129 and struct.unpack('!H', buf[4:6])[0] == ident:
                print('dstopts', sum(1 for l, t, _ in anc if t == socket.IPV6_DSTOPTS))
                sys.exit(0)
        else:
            ihl = buf[0] & 15
            if buf[4 * ihl] == 0 and struct.unpack('!H', buf[4 * ihl + 4:4 * ihl + 6])[0] == ident:
                print('ihl', ihl)
                sys.exit(0)
    print('no reply')
elif cmd == 'echo-rh':		# echo-rh VIP6 FINAL: an echo request to VIP6 with a routing header
    vip, final = args[0], args[1]	# (type 0, 1 segment left, to FINAL); prints any reply
    probe = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    probe.connect((vip, 9))
    src = socket.inet_pton(socket.AF_INET6, probe.getsockname()[0])
    fin = socket.inet_pton(socket.AF_INET6, final)
    ident, data = 0x4b52, b'kmaglev!' * 8
    icmp = struct.pack('!BBHHH', 128, 0, 0, ident, 1) + data
    # the sender sums over the final destination, as RFC 8200 says
    ck = csum(src + fin + struct.pack('!IxxxB', len(icmp), 58) + icmp)
    icmp = icmp[:2] + struct.pack('!H', ck) + icmp[4:]
    rh = struct.pack('!BBBBI', 58, 2, 0, 1, 0) + fin
    hdr = struct.pack('!IHBB', 0x60000000, len(rh) + len(icmp), 43, 64) + src + \
        socket.inet_pton(socket.AF_INET6, vip)
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    raw = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    raw.sendto(hdr + rh + icmp, (vip, 0))
    s.settimeout(2)
    end = time.time() + 2
    while time.time() < end:
        try:
            buf = s.recv(2048)
        except socket.timeout:
            break
        if buf[0] == 129 and struct.unpack('!H', buf[4:6])[0] == ident:
            print('reply')
            sys.exit(0)
    print('no reply')
elif cmd == 'udp-df':		# udp-df VIP[,VIP...] PORT COUNT DF: COUNT datagrams from one
    vips, port = args[0].split(','), int(args[1])	# socket, to the VIPs in turn, with DF or
    n, df = int(args[2]), args[3] == '1'		# without
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # IP_MTU_DISCOVER (10): IP_PMTUDISC_DO (2) sets DF, IP_PMTUDISC_DONT (0) clears it
    s.setsockopt(socket.IPPROTO_IP, 10, 2 if df else 0)
    for i in range(n):
        s.sendto(b'kmaglev!', (vips[i % len(vips)], port))
        time.sleep(0.02)
elif cmd == 'outer':		# outer VIP[,VIP...] PORT COUNT SECS: the outer headers of the
    vips, port = args[0].split(','), int(args[1])	# IPIP packets to the VIPs' PORT, one
    n, secs = int(args[2]), float(args[3])		# "df D id N vip V" line each
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800))
    s.settimeout(0.5)
    print('ready', flush=True)
    want = {socket.inet_aton(v): v for v in vips}
    seen, end = 0, time.time() + secs
    while seen < n and time.time() < end:
        try:
            buf, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or len(buf) < 48 or buf[9] != 4:
            continue
        inner = buf[4 * (buf[0] & 15):]
        ihl = 4 * (inner[0] & 15)
        if inner[9] != 17 or inner[16:20] not in want or \
                struct.unpack('!H', inner[ihl + 2:ihl + 4])[0] != port:
            continue
        frag, = struct.unpack('!H', buf[6:8])
        print('df', frag >> 14 & 1, 'id', struct.unpack('!H', buf[4:6])[0],
              'vip', want[inner[16:20]], flush=True)
        seen += 1
elif cmd == 'udp':		# udp VIP PORT SIZE: one datagram, no answer awaited
    vip, port, size = args[0], int(args[1]), int(args[2])
    fam = socket.AF_INET6 if ':' in vip else socket.AF_INET
    socket.socket(fam, socket.SOCK_DGRAM).sendto(b'x' * size, (vip, port))
EOF
hop() { local ns=$1; shift; ip netns exec "$ns" "$DP_PY" "$HOP_PY" "$@"; }
svc() { if [[ $1 == *:* ]]; then echo "[$1]/any"; else echo "$1/any"; fi; }

# VIP 1: GSO (LB 1)    VIP 2: outer IDs, with VIP 4 (LB 1)    VIP 3: protocol 253 (LB 1)
# VIP 4: encap-src, outer IDs (LB 1)
# VIP 5: the loop (LB 1 <-> LB 2)                     VIP 6: fragments, LOCAL_OUT (LB 2)
bes() { echo "backend $(dp_be"$1" 1) $2 backend $(dp_be"$1" 2) $2"; }
LB1_SRC4=198.51.100.3
LB1_SRC6=2001:db8:1:1::3
cfg1="service add $(dp_vip4 0)/any $(bes 4)
service add $(dp_vip4 1)/any $(bes 4 'encap gre')
service add [$(dp_vip6 1)]/any $(bes 6 'encap gre')
service add $(dp_vip4 3)/any $(bes 4)
service add [$(dp_vip6 3)]/any $(bes 6)
service add $(dp_vip4 4)/any encap-src $LB1_SRC4 backend $(dp_be4 1)
service add $(dp_vip4 2)/any backend $(dp_be4 1)
service add [$(dp_vip6 4)]/any encap-src $LB1_SRC6 backend $(dp_be6 1)
service add $(dp_vip4 5)/any backend $(dp_lb4 2)
service add [$(dp_vip6 5)]/any backend $(dp_lb6 2)"
cfg2="service add $(dp_vip4 5)/any backend $(dp_lb4 1)
service add [$(dp_vip6 5)]/any backend $(dp_lb6 1)
service add $(dp_vip4 6)/any flags defrag,echo $(bes 4)
service add [$(dp_vip6 6)]/any flags defrag,echo $(bes 6)"
setup() {
	local i
	dp_km_batch 1 <<<"$cfg1" && dp_km_batch 2 <<<"$cfg2" || return 1
	dp_lb_mtu_link 2 1400 || return 1
	# LB 1: no tunnel segmentation on its egress, GRO on its ingress (the same veth)
	dp_lb 1 ethtool -K eth0 gro on tx-gre-segmentation off tx-gre-csum-segmentation off \
		tx-ipxip4-segmentation off tx-ipxip6-segmentation off || return 1
	# LB 1: second addresses for encap-src (the IPv6 one deprecated, so that it is never the
	# preferred source); b1: tunnels that take only packets from them
	ip -n "${DP_LB[1]}" -b - <<-EOF || return 1
		addr add $LB1_SRC4/29 dev eth0
		addr add $LB1_SRC6/64 dev eth0 nodad preferred_lft 0
	EOF
	ip -n "${DP_BE[1]}" -b - <<-EOF || return 1
		link add esrc type ipip local $(dp_be4 1) remote $LB1_SRC4
		link set esrc up
		link add esrc6 type ip6tnl mode any local $(dp_be6 1) remote $LB1_SRC6
		link set esrc6 up
	EOF
	dp_sysctl "${DP_BE[1]}" net.ipv4.conf.esrc.rp_filter=0 || return 1
	# the LBs decapsulate what the other sends them (the loop)
	for i in 1 2; do
		ip -n "${DP_LB[i]}" -b - <<-EOF || return 1
			link set tunl0 up
			link set ip6tnl0 up
		EOF
	done
	# VIP 6 is routed to LB 2; the client sends it small fragments
	ip -n "$DP_RT" -b - <<-EOF || return 1
		route add $(dp_vip4 6)/32 via $(dp_lb4 2) dev l2
		route add $(dp_vip6 6)/128 via $(dp_lb6 2) dev l2
	EOF
	ip -n "$DP_CL" -b - <<-EOF || return 1
		route add $(dp_vip4 6)/32 via $DP_RT_CL4 mtu 1000
		route add $(dp_vip6 6)/128 via $DP_RT_CL6 mtu 1280
	EOF
}
if ! out=$(setup 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "configure: services on both LBs, LB 1 without tunnel segmentation offload"

# kmaglev's drops, but for drop-too-big (PMTU discovery: the client's first full-size segments
# do not fit the tunnel)
drops() {
	awk '$1 ~ /^drop-/ && $1 != "drop-too-big" { n += $2 } END { print n + 0 }' <<<"$1"
}
txdrop() { dp_lb 1 cat /sys/class/net/eth0/statistics/tx_dropped; }

# --- GSO through software segmentation --------------------------------------------------------
upload() {
	local desc=$1 vip=$2 out g0 g1 t0 t1 d
	g0=$(dp_gstats 1)
	t0=$(txdrop)
	out=$(head -c 2097152 /dev/zero | dp_cl curl -s --connect-timeout 5 --max-time 60 \
		-H 'Expect:' --data-binary @- "http://$(dp_hostport "$vip" "$DP_SINK_PORT")/" 2>&1)
	g1=$(dp_gstats 1)
	t1=$(txdrop)
	d=$(($(drops "$g1") - $(drops "$g0")))
	if [[ $out == *"received 2097152 bytes"* && $d -eq 0 && $t1 -eq $t0 ]]; then
		ktap_test_pass "$desc: 2 MiB uploaded through $vip, no drops (kmaglev +$d, LB tx +$((t1 - t0)))"
	else
		echo "# sink: ${out:-no answer}"
		ktap_test_fail "$desc: 2 MiB uploaded through $vip, no drops (kmaglev +$d, LB tx +$((t1 - t0)))"
	fi
}
upload "IPIP, software GSO" "$(dp_vip4 0)"
upload "GRE, software GSO" "$(dp_vip4 1)"
upload "GRE over IPv6, software GSO" "$(dp_vip6 1)"

# --- ICMP errors about protocol-253 flows -----------------------------------------------------
icmp_any() {
	local vip=$1 cl=$2 ctr=IcmpInDestUnreachs owner="" i d msg="" ok=1 g0 g1
	local -A B=() A=()
	[[ $vip == *:* ]] && ctr=Icmp6InDestUnreachs
	dp_snap_all B
	hop "$DP_CL" proto "$vip" 253 3
	dp_sleep 0.5
	dp_snap_all A
	for ((i = 1; i <= DP_NBE; i++)); do
		[[ $(dp_tun_delta B A "b$i") -ge 3 ]] && owner=b$i
	done
	B=()
	A=()
	g0=$(dp_gstats 1)
	dp_snap_all B
	hop "$DP_RT" unreach "$vip" "$cl" 253 3
	dp_sleep 0.5
	dp_snap_all A
	g1=$(dp_gstats 1)
	for ((i = 1; i <= DP_NBE; i++)); do
		d=$(dp_delta B A "b$i/$ctr")
		msg+=" b$i:+$d"
		if [[ b$i == "$owner" ]]; then [[ $d -ge 3 ]] || ok=0; else [[ $d -eq 0 ]] || ok=0; fi
	done
	msg+=", icmp-forwarded +$(dp_gdelta "$g0" "$g1" icmp-forwarded)"
	msg+=", drop-malformed +$(dp_gdelta "$g0" "$g1" drop-malformed)"
	if [[ $ok -eq 1 && -n $owner ]]; then
		ktap_test_pass "ICMP errors about a protocol-253 flow to $vip reach its backend ${owner:-?} ($ctr$msg)"
	else
		ktap_test_fail "ICMP errors about a protocol-253 flow to $vip reach its backend ${owner:-?} ($ctr$msg)"
	fi
}
icmp_any "$(dp_vip4 3)" "$DP_CL4"
icmp_any "$(dp_vip6 3)" "$DP_CL6"

# --- clearing encap-src -----------------------------------------------------------------------
encap_src() {
	local vip=$1 any=$2 dev=$3 src=$4 d1 d2 ans
	local -A B=() A=() C=()
	dp_snap_all B
	ans=$(dp_udp "$vip" --count 10 --tries 2 2>&1 | grep -c ' b1$')
	dp_snap_all A
	dp_km 1 service set "$(svc "$vip")" encap-src "$any" >/dev/null
	ans=$((ans + $(dp_udp "$vip" --count 10 --tries 2 2>&1 | grep -c ' b1$')))
	dp_snap_all C
	d1=$(dp_delta B A "b1/$dev:rx_packets")
	d2=$(dp_delta A C "b1/$dev:rx_packets")
	if [[ $ans -eq 20 && $d1 -ge 10 && $d2 -eq 0 ]]; then
		ktap_test_pass "encap-src $src cleared: 20 of 20 answered, from $src +$d1 before, +$d2 after"
	else
		ktap_test_fail "encap-src $src cleared: $ans of 20 answered, from $src +$d1 before, +$d2 after (want 0)"
	fi
}
encap_src "$(dp_vip4 4)" 0.0.0.0 esrc "$LB1_SRC4"
encap_src "$(dp_vip6 4)" :: esrc6 "$LB1_SRC6"

# --- outer IPv4 IDs ---------------------------------------------------------------------------
# 20 datagrams with DF, then 20 without, to VIPs 4 and 2 in turn: two services, each with b1 as its
# one backend, so two backends of kmaglev's that share one (source, destination, protocol) outer
# tuple. The outer headers, read on b1 as they arrive: with DF, DF and ID 0 (RFC 6864); without,
# no DF and IDs from the kernel's one generator for that tuple, so that they rise from packet to
# packet whichever service sent it (a counter per backend would interleave two sequences).
outer_ids() {
	local v1=$1 v2=$2 port=7001 f=$DP_TMP/outer pid i ids nd ndf nids prev d bad=0 why=
	hop "${DP_BE[1]}" outer "$v1,$v2" $port 40 30 >"$f" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do grep -qx ready "$f" && break; dp_sleep 0.2; done
	if ! grep -qx ready "$f"; then
		kill "$pid" 2>/dev/null; wait "$pid"
		sed 's/^/# /' "$f"
		ktap_test_fail "outer IPv4 headers: the sniffer on b1 never started"
		return
	fi
	hop "$DP_CL" udp-df "$v1,$v2" $port 20 1
	hop "$DP_CL" udp-df "$v1,$v2" $port 20 0
	wait "$pid"
	# the first 20 "df" lines are the datagrams with DF, the next 20 those without
	nd=$(awk '$1 == "df" && ++n <= 20 && $2 == 1 && $4 == 0' "$f" | wc -l)
	ndf=$(awk '$1 == "df" && ++n > 20 && $2 == 0' "$f" | wc -l)
	ids=$(awk '$1 == "df" && ++n > 20 && $2 == 0 { print $4 }' "$f")
	nids=$(sort -u <<<"$ids" | grep -c .)
	for i in $ids; do
		if [[ -n $prev ]]; then
			d=$(((i - prev + 65536) % 65536))
			((d >= 1 && d <= 1000)) || { bad=$((bad + 1)); why+=" $prev->$i"; }
		fi
		prev=$i
	done
	if [[ $nd -eq 20 && $ndf -eq 20 && $nids -eq 20 && $bad -eq 0 ]]; then
		ktap_test_pass "outer IPv4 headers to $v1 and $v2 (one backend host): 20 of 20 with DF have DF and ID 0; 20 of 20 without DF have no DF and IDs that rise by 1 to 1000 each"
	else
		sed 's/^/# /' "$f"
		ktap_test_fail "outer IPv4 headers to $v1 and $v2: $nd of 20 with DF have DF and ID 0 (want 20); $ndf of 20 without DF have no DF, $nids different IDs, $bad steps outside 1..1000:${why:- none} (want 20, 20, 0)"
	fi
}
outer_ids "$(dp_vip4 4)" "$(dp_vip4 2)"

# --- reassembled datagrams whose fragments fit ------------------------------------------------
frags() {
	local vip=$1 g0 g1 out
	g0=$(dp_gstats 2)
	out=$(dp_udp "$vip" --count 1 --tries 3 --payload "$(head -c 2000 /dev/zero | tr '\0' x)" 2>&1)
	g1=$(dp_gstats 2)
	if [[ $out =~ \ b[0-9]+$ ]] && [[ $(dp_gdelta "$g0" "$g1" drop-too-big) -eq 0 ]]; then
		ktap_test_pass "2000-byte datagram to $vip in small fragments forwarded (reassembled +$(dp_gdelta "$g0" "$g1" frag-reassembled))"
	else
		echo "# $out"
		ktap_test_fail "2000-byte datagram to $vip in small fragments forwarded (reassembled +$(dp_gdelta "$g0" "$g1" frag-reassembled), drop-too-big +$(dp_gdelta "$g0" "$g1" drop-too-big), icmp-ptb-sent +$(dp_gdelta "$g0" "$g1" icmp-ptb-sent))"
	fi
}
frags "$(dp_vip4 6)"
frags "$(dp_vip6 6)"

# --- echo: requests larger than the route back, with options, from LB 2 itself -----------------
# answered: how many replies ping's summary counts
answered() { awk '/packets transmitted/ { print $4 }'; }
echoes() {
	local vip=$1 fam=4 ptb=IcmpOutDestUnreachs g0 g1 n e m p f fc what
	local -A B=() A=()
	[[ $vip == *:* ]] && fam=6 ptb=Icmp6OutPktTooBigs
	g0=$(dp_gstats 2)
	dp_snap B lb2 "${DP_LB[2]}"
	n=$(dp_cl ping -"$fam" -c 3 -i 0.2 -W 2 -s 3000 "$vip" 2>&1 | answered)
	dp_snap A lb2 "${DP_LB[2]}"
	g1=$(dp_gstats 2)
	e=$(dp_gdelta "$g0" "$g1" icmp-echo)
	p=$(dp_delta B A "lb2/$ptb")
	[[ $fam == 4 ]] && fc=IpFragCreates || fc=Ip6FragCreates
	f=$(dp_delta B A "lb2/$fc")
	if [[ $n == 3 && $e -eq 3 && $p -eq 0 && $f -ge 6 ]]; then
		ktap_test_pass "3000-byte pings to $vip in fragments: 3 of 3 answered in fragments (icmp-echo +$e, $fc +$f, $ptb +0)"
	else
		ktap_test_fail "3000-byte pings to $vip in fragments: ${n:-0} of 3 answered, icmp-echo +$e, $fc +$f (want 6 or more), $ptb +$p (want 0)"
	fi
	# the reply leaves the request's IPv4 options or IPv6 extension headers behind
	what="IP options"
	[[ $fam == 6 ]] && what="a destination options header"
	g0=$(dp_gstats 2)
	n=$(hop "$DP_CL" echo "$vip" 2>&1)
	e=$(dp_gdelta "$g0" "$(dp_gstats 2)" icmp-echo)
	if [[ ($n == "ihl 5" || $n == "dstopts 0") && $e -eq 1 ]]; then
		ktap_test_pass "echo request to $vip with $what: answered without ($n, icmp-echo +$e)"
	else
		ktap_test_fail "echo request to $vip with $what: $n, icmp-echo +$e (want ihl 5 / dstopts 0, +1)"
	fi
	# IPv6: a request with segments left in a routing header is not the VIP's to answer
	if [[ $fam == 6 ]]; then
		g0=$(dp_gstats 2)
		n=$(hop "$DP_CL" echo-rh "$vip" 2001:db8:ffff::1 2>&1)
		g1=$(dp_gstats 2)
		e=$(dp_gdelta "$g0" "$g1" icmp-echo)
		m=$(dp_gdelta "$g0" "$g1" drop-malformed)
		if [[ $n == "no reply" && $e -eq 0 && $m -eq 1 ]]; then
			ktap_test_pass "echo request to $vip with a routing header, 1 segment left: not answered (drop-malformed +1, icmp-echo +0)"
		else
			ktap_test_fail "echo request to $vip with a routing header, 1 segment left: $n, drop-malformed +$m, icmp-echo +$e (want no reply, +1, +0)"
		fi
	fi
	# LB 2's own ping to the VIP: the reply goes to one of its own addresses
	g0=$(dp_gstats 2)
	n=$(dp_lb 2 ping -"$fam" -c 2 -i 0.2 -W 2 "$vip" 2>&1 | answered)
	e=$(dp_gdelta "$g0" "$(dp_gstats 2)" icmp-echo)
	if [[ $n == 2 && $e -eq 2 ]]; then
		ktap_test_pass "LB 2's own pings to $vip: 2 of 2 answered by kmaglev (icmp-echo +$e)"
	else
		ktap_test_fail "LB 2's own pings to $vip: ${n:-0} of 2 answered, icmp-echo +$e (want 2)"
	fi
}
echoes "$(dp_vip4 6)"
echoes "$(dp_vip6 6)"

# --- a LOCAL_OUT IPv6 packet too big for the tunnel -------------------------------------------
declare -A B=() A=()
g0=$(dp_gstats 2)
dp_snap B lb2 "${DP_LB[2]}"
hop "${DP_LB[2]}" udp "$(dp_vip6 6)" 9 1400
dp_sleep 0.5
dp_snap A lb2 "${DP_LB[2]}"
g1=$(dp_gstats 2)
d=$(dp_delta B A lb2/Icmp6OutPktTooBigs)
c=$(dp_gdelta "$g0" "$g1" icmp-ptb-sent)
if [[ $d -ge 1 && $d -eq $c ]]; then
	ktap_test_pass "LB 2's own 1400-byte datagram to $(dp_vip6 6): Packet Too Big sent (Icmp6OutPktTooBigs +$d, icmp-ptb-sent +$c)"
else
	ktap_test_fail "LB 2's own 1400-byte datagram to $(dp_vip6 6): Packet Too Big sent (Icmp6OutPktTooBigs +$d, icmp-ptb-sent +$c)"
fi

# --- two LBs pointing at each other -----------------------------------------------------------
loop() {
	local vip=$1 ctr=IcmpInTimeExcds g0 g1 g2 d1 d2 t
	local -A B=() A=()
	[[ $vip == *:* ]] && ctr=Icmp6InTimeExcds
	g0=$(dp_gstats 1)
	dp_snap B cl "$DP_CL"
	hop "$DP_CL" udp "$vip" 9 10
	dp_sleep 2
	g1=$(dp_gstats 1)
	dp_sleep 1
	g2=$(dp_gstats 1)
	dp_snap A cl "$DP_CL"
	d1=$(dp_gdelta "$g0" "$g1" rx-packets)
	d2=$(dp_gdelta "$g0" "$g2" rx-packets)
	t=$(dp_delta B A "cl/$ctr")
	if [[ $d1 -eq $d2 && $d2 -le 64 && $t -eq 1 ]]; then
		ktap_test_pass "loop through $vip ends: LB 1 forwarded it $d2 times, the client got time exceeded ($ctr +$t)"
	else
		ktap_test_fail "loop through $vip ends: LB 1 forwarded it $d1, then $d2 times, the client got $ctr +$t"
	fi
}
loop "$(dp_vip4 5)"
loop "$(dp_vip6 5)"
# whatever happened, break the loop
dp_km 2 service del "$(svc "$(dp_vip4 5)")" >/dev/null 2>&1
dp_km 2 service del "$(svc "$(dp_vip6 5)")" >/dev/null 2>&1

dp_test_end
