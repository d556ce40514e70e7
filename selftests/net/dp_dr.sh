#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, encap dr (L2 direct routing, as IPVS's DR mode). LB 1 and backends b1, b2 share
# an Ethernet segment (a bridge in LB 1, 10.9.0.0/24 and 2001:db8:9::/64); each backend holds
# the VIPs on lo and answers no ARP / neighbour solicitation for them (arp_ignore 1,
# arp_announce 2), and answers the client directly through the router. In either mode
# (KMAGLEV_DP_HOOK):
#  - refused with the reason, nothing changed: a backend behind a gateway, one of the other
#    family, LB 1's own address, the segment's broadcast address, an IPv6 multicast group,
#    a route through an IP tunnel or a VRF device; an ipip backend behind a gateway changed
#    to dr keeps ipip;
#  - IPv4 and IPv6 VIPs: HTTP and UDP flows answered by both backends, which received the
#    packets unencapsulated on the segment (nothing on their tunnels), with LB 1's neighbour
#    entries for them holding their MAC addresses (and none for the VIP: the first packets,
#    which wait for b1's entry to resolve, are not sent to the VIP's), and no packet counted
#    as lost;
#  - drain keeps the drained backend's TCP streams and sends new flows to the other one;
#  - a probe mark reaches the backend it names over the segment;
#  - a dr backend that does not answer ARP: the packets after its neighbour entry failed are
#    counted in dr-neigh-failed;
#  - a route to a dr backend that turns into a gatewayed one: its packets are dropped and
#    counted in drop-dr-route (not handed to the gateway), and flow again once the route is
#    direct again;
#  - a segment of a smaller MTU: a datagram without DF is fragmented (the kernel's output path,
#    with a route of its own), one with DF gets fragmentation needed;
#  - a packet for the VIP in a link-layer broadcast frame is not balanced, nor one that LB 1's
#    bridge forwards to a backend's MAC with br_netfilter loaded;
#  - the segment's bridge can be deleted while routes over it are cached.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

if dp_standin; then
	ktap_print_header
	ktap_skip_all "encap dr is tested on kmaglev (stand-in is $DP_STANDIN)"
fi
kmg_require_cmd jq
# the segment is a bridge: a kernel without bridges (the debug kernel's config) skips
modprobe -q -a bridge vrf 2>/dev/null
if ! out=$(ip link add kmg-brprobe type bridge 2>&1); then
	ktap_skip_all "no bridge device in this kernel (CONFIG_BRIDGE), and the segment is one: $out"
fi
ip link del kmg-brprobe
dp_test_start 18 1 2

V4=$(dp_vip4 0)
V6=$(dp_vip6 0)
S4=$V4/any
S6=[$V6]/any
# dr4 N / dr6 N: backend N's address on the segment; LB 1's is N = 0
dr4() { echo "10.9.0.$((10 * ($1 > 0) + $1))"; }
dr6() { echo "2001:db8:9::$((10 * ($1 > 0) + $1))"; }
MARK0=4096

# --- the segment ------------------------------------------------------------------------------
seg() {
	local i cmds="link add drbr type bridge
link set drbr up
addr add $(dr4 0)/24 dev drbr
addr add $(dr6 0)/64 dev drbr nodad
"
	for ((i = 1; i <= DP_NBE; i++)); do
		cmds+="link add d$i type veth peer name dr netns ${DP_BE[i]}
link set d$i master drbr
link set d$i up
"
	done
	ip -n "${DP_LB[1]}" -b - <<<"$cmds" || return 1
	for ((i = 1; i <= DP_NBE; i++)); do
		dp_sysctl "${DP_BE[i]}" net.ipv4.conf.all.arp_ignore=1 \
			net.ipv4.conf.all.arp_announce=2 || return 1
		ip -n "${DP_BE[i]}" -b - <<-EOF || return 1
			addr add $(dr4 "$i")/24 dev dr
			addr add $(dr6 "$i")/64 dev dr nodad
			link set dr up
		EOF
	done
	# a neighbour that does not answer fails in 0.2 s rather than 3 s
	dp_sysctl "${DP_LB[1]}" net.ipv4.neigh.drbr.retrans_time_ms=100 \
		net.ipv4.neigh.drbr.mcast_solicit=2 net.ipv6.neigh.drbr.retrans_time_ms=100 \
		net.ipv6.neigh.drbr.mcast_solicit=2 || return 1
	dp_wait 20 dp_lb 1 ping -c 1 -W 1 "$(dr4 2)" >/dev/null &&
		dp_wait 20 dp_lb 1 ping -c 1 -W 1 "$(dr6 2)" >/dev/null
}
if out=$(seg 2>&1); then
	ktap_test_pass "segment: LB 1 and b1, b2 on one bridge, VIPs on the backends' lo with ARP suppressed"
else
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "segment" 1
	dp_test_end
fi

# --- refused, with the reason; nothing changes ------------------------------------------------
# refuse DESC WANT CMD...: CMD fails, its error has WANT
refuse() {
	local desc=$1 want=$2 out
	shift 2
	if out=$(dp_km 1 "$@" 2>&1); then
		echo "# succeeded: $out"
		return 1
	fi
	[[ $out == *"$want"* ]] || { echo "# $desc: $out"; return 1; }
	echo "# $desc: $out"
}
check_refusals() {
	local rc=0 w=$(dp_vip4 5)
	refuse "behind a gateway" "not on a directly attached network" \
		service add "$S4" backend "$(dp_be4 1)" encap dr || rc=1
	refuse "other family" "of the VIP's address family" \
		service add "$S4" backend "$(dr6 1)" encap dr || rc=1
	refuse "LB 1's own address" "this host's own" \
		service add "$S4" backend "$(dr4 0)" encap dr || rc=1
	refuse "IPv6 behind a gateway" "not on a directly attached network" \
		service add "$S6" backend "$(dp_be6 1)" encap dr || rc=1
	# ff05::1 has a route (ff00::/8 on every link): it would go to a multicast MAC (the CLI
	# refuses it first; the kernel would too: kmg_route_dr())
	refuse "IPv6 multicast" "multicast" \
		service add "$S6" backend ff05::1 encap dr || rc=1
	refuse "the segment's broadcast address" "not a unicast one" \
		service add "$S4" backend 10.9.0.255 encap dr || rc=1
	# a route over an IP tunnel without a remote: it would send the packet to the VIP
	ip -n "${DP_LB[1]}" -b - <<-EOF || rc=1
		link add drtun type ipip local $(dr4 0)
		link set drtun up
		route add 10.9.2.5/32 dev drtun
	EOF
	refuse "through an IP tunnel device" "goes through an IP tunnel device" \
		service add "$S4" backend 10.9.2.5 encap dr || rc=1
	ip -n "${DP_LB[1]}" link del drtun
	# a route leaked into a VRF device: its transmit would route the packet again, by the VIP
	if ip -n "${DP_LB[1]}" link add drvrf type vrf table 100 2>/dev/null; then
		ip -n "${DP_LB[1]}" link set drvrf up
		ip -n "${DP_LB[1]}" route add 10.9.1.5/32 dev drvrf
		refuse "through a VRF device" "goes through a VRF device" \
			service add "$S4" backend 10.9.1.5 encap dr || rc=1
		ip -n "${DP_LB[1]}" link del drvrf
	else
		echo "# no VRF device in this kernel: that refusal not tried"
	fi
	dp_km 1 service show "$S4" >/dev/null 2>&1 && { echo "# $S4 exists"; rc=1; }
	dp_km 1 service add "$w/any" backend "$(dp_be4 1)" || rc=1
	refuse "ipip backend behind a gateway set to dr" "not on a directly attached network" \
		backend set "$w/any" "$(dp_be4 1)" encap dr || rc=1
	[[ $(dp_be_field 1 "$w/any" "$(dp_be4 1)" encap) == ipip ]] ||
		{ echo "# $(dp_be4 1) is no longer ipip"; rc=1; }
	dp_km 1 service del "$w/any" || rc=1
	return $rc
}
ktap_test_run "refused with the reason, nothing changed: gateway (IPv4, IPv6), other family, own address, broadcast, IPv6 multicast, IP tunnel, VRF, ipip -> dr" check_refusals

cfg="config set max-backends 64 probe-mark-min $MARK0 probe-mark-max $((MARK0 + 63))
service add $S4 backend $(dr4 1) encap dr backend $(dr4 2) encap dr
service add $S6 backend $(dr6 1) encap dr backend $(dr6 2) encap dr"
if out=$(dp_km_batch 1 <<<"$cfg" 2>&1) &&
	[[ $(dp_be_field 1 "$S4" "$(dr4 1)" encap) == dr ]]; then
	ktap_test_pass "configure: IPv4 and IPv6 services, b1 and b2 encap dr"
else
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi

# --- traffic ----------------------------------------------------------------------------------
# flows DESC VIP FAM: 10 HTTP and 10 UDP flows answered, by b1 and b2, which received them on
# the segment and not on a tunnel; LB 1 holds their MACs; nothing counted as lost
flows() {
	local desc=$1 vip=$2 fam=$3 i n=0 t=0 out ans who g0 g1 nb=0 mac lmac vipn
	local -A B=() A=()
	g0=$(dp_gstats 1)
	dp_snap_all B
	out=$(dp_py "$DP_CL" probe --addr "$vip" --http 10 --udp 10 2>&1)
	dp_snap_all A
	g1=$(dp_gstats 1)
	for ((i = 1; i <= DP_NBE; i++)); do
		n=$((n + $(dp_delta B A "b$i/dr:rx_packets")))
		t=$((t + $(dp_tun_delta B A "b$i")))
		mac=$(ip -n "${DP_BE[i]}" -j link show dr | jq -r '.[0].address')
		lmac=$(ip -n "${DP_LB[1]}" -j neigh show "$(dr$fam "$i")" dev drbr |
			jq -r '.[0].lladdr // empty')
		[[ $mac == "$lmac" ]] && nb=$((nb + 1))
	done
	# a packet that waited for a backend's entry to resolve never asks for the VIP's
	vipn=$(ip -n "${DP_LB[1]}" neigh show "$vip" dev drbr)
	ans=$(grep -cE '^[0-9]+ b[0-9]+$' <<<"$out")
	who=$(grep -E '^[0-9]+ b[0-9]+$' <<<"$out" | awk '{ print $2 }' | sort | uniq -c |
		awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }')
	desc+=": $ans of 20 answered ($who), segment +$n, tunnels +$t, neighbours $nb of 2$([[ -z $vipn ]] || echo " and the VIP's"),"
	desc+=" drop-dr-route +$(dp_gdelta "$g0" "$g1" drop-dr-route)"
	desc+=" dr-neigh-failed +$(dp_gdelta "$g0" "$g1" dr-neigh-failed)"
	if [[ $ans -eq 20 && $who == *b1* && $who == *b2* && $n -ge 20 && $t -eq 0 && $nb -eq 2 &&
	      -z $vipn &&
	      $(dp_gdelta "$g0" "$g1" drop-dr-route) -eq 0 &&
	      $(dp_gdelta "$g0" "$g1" dr-neigh-failed) -eq 0 &&
	      $(dp_gdelta "$g0" "$g1" drop-no-route) -eq 0 ]]; then
		ktap_test_pass "$desc"
	else
		echo "$out" | grep -vE '^[0-9]+ b[0-9]+$' | head -n 5 | sed 's/^/# /'
		ip -n "${DP_LB[1]}" -s neigh show dev drbr | sed 's/^/# LB 1 neighbour: /'
		ip netns exec "${DP_LB[1]}" nstat -az 2>/dev/null |
			grep -E 'IcmpOutDestUnreach|Icmp6OutDestUnreach|IpOutNoRoutes' | sed 's/^/# LB 1: /'
		ktap_test_fail "$desc"
	fi
	dp_check_hook "$1: taken by the hook" "$g0" "$g1"
}
flows "IPv4 VIP" "$V4" 4
flows "IPv6 VIP" "$V6" 6

# --- drain: established flows stay, new ones go to the other backend --------------------------
drain() {
	local n1 out
	dp_stream_start s "$V4" 8 --interval 0.2
	dp_stream_wait s || return 1
	n1=$(awk '$2 == "b1"' "$DP_TMP/s.info" | wc -l)
	echo "# streams: $(dp_tally "$DP_TMP/s.info" | tr '\n' ' ')"
	[[ $n1 -gt 0 ]] || { echo "# no stream on b1"; dp_stream_stop s; return 1; }
	dp_km 1 backend drain "$S4" "$(dr4 1)" || return 1
	out=$(dp_http "$V4" --count 10 | awk '{ print $2 }' | sort | uniq -c | xargs)
	echo "# new flows after the drain: $out"
	dp_sleep 2
	dp_stream_stop s || return 1
	dp_km 1 backend set "$S4" "$(dr4 1)" state up || return 1
	[[ $out == "10 b2" ]]
}
ktap_test_run "drain b1: its streams kept, 10 of 10 new flows to b2" drain

# --- a probe mark reaches the backend it names -------------------------------------------------
probe_mark() {
	local fam=$1 vip=$2 svc=$3 i=$4 id out
	id=$(dp_be_field 1 "$svc" "$(dr$fam "$i")" id)
	out=$(dp_probe_marked udp "$vip" $((MARK0 + ${id:-0})) 8)
	if [[ -n $id && $out == "8 b$i" ]]; then
		ktap_test_pass "IPv$fam probes marked for b$i (id $id) reach b$i over the segment: $out"
	else
		ktap_test_fail "IPv$fam probes marked for b$i (id ${id:-?}) reach b$i over the segment: $out"
	fi
}
probe_mark 4 "$V4" "$S4" 2
probe_mark 6 "$V6" "$S6" 1

# --- a backend that does not answer ARP: dr-neigh-failed --------------------------------------
neigh_fail() {
	local w=$(dp_vip4 6) g0 g1 st
	dp_km 1 service add "$w/udp" backend 10.9.0.99 encap dr || return 1
	g0=$(dp_gstats 1)
	# 12 datagrams 0.25 s apart (dp_udp sends its flows at once): a resolution fails within
	# about 0.5 s (probes 0.1 s apart), and each packet that finds it failed starts another
	dp_cl "$DP_PY" -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(12):
    s.sendto(b"q", (sys.argv[1], int(sys.argv[2])))
    time.sleep(0.25)' "$w" "$DP_UDP_PORT"
	g1=$(dp_gstats 1)
	st=$(ip -n "${DP_LB[1]}" -j neigh show 10.9.0.99 dev drbr | jq -r '.[0].state[0] // "none"')
	dp_km 1 service del "$w/udp"
	echo "# neighbour 10.9.0.99: $st; tx-packets +$(dp_gdelta "$g0" "$g1" tx-packets)," \
		"dr-neigh-failed +$(dp_gdelta "$g0" "$g1" dr-neigh-failed)"
	[[ $(dp_gdelta "$g0" "$g1" dr-neigh-failed) -ge 1 ]]
}
ktap_test_run "a backend that does not answer ARP: counted in dr-neigh-failed" neigh_fail

# disturbed SETUP UNDO: a UDP service of its own to b2, answered by b2 (3 datagrams); then
# SETUP, 5 datagrams (A1 of them answered; the LB's counters G0 before, G1 after), UNDO, and
# b2 answers again (3 datagrams; the counters G2 after them)
disturbed() {
	local w=$(dp_vip4 7) a0 a2
	dp_km 1 service add "$w/udp" backend "$(dr4 2)" encap dr || return 1
	a0=$(dp_udp "$w" --count 3 | awk '{ print $2 }' | sort | uniq -c | xargs)
	"$1" || return 1
	G0=$(dp_gstats 1)
	A1=$(dp_udp "$w" --count 5 --timeout 0.5 --tries 1 2>/dev/null | awk '$2 ~ /^b/' | wc -l)
	G1=$(dp_gstats 1)
	"$2" || return 1
	a2=$(dp_udp "$w" --count 3 | awk '{ print $2 }' | sort | uniq -c | xargs)
	G2=$(dp_gstats 1)
	dp_km 1 service del "$w/udp"
	echo "# before: $a0; after: $a2"
	[[ $a0 == "3 b2" && $a2 == "3 b2" ]]
}

# --- the route to a dr backend becomes a gatewayed one -----------------------------------------
gw_on() { ip -n "${DP_LB[1]}" route add "$(dr4 2)/32" via "$(dr4 1)" dev drbr; }
gw_off() { ip -n "${DP_LB[1]}" route del "$(dr4 2)/32"; }
route_gw() {
	local rc=0
	disturbed gw_on gw_off || rc=1
	echo "# through a gateway: $A1 answered, drop-dr-route +$(dp_gdelta "$G0" "$G1" drop-dr-route)" \
		"tx-packets +$(dp_gdelta "$G0" "$G1" tx-packets); direct again:" \
		"drop-dr-route +$(dp_gdelta "$G1" "$G2" drop-dr-route)"
	[[ $A1 -eq 0 && $(dp_gdelta "$G0" "$G1" drop-dr-route) -ge 5 &&
	   $(dp_gdelta "$G0" "$G1" tx-packets) -eq 0 ]] || rc=1
	return $rc
}
ktap_test_run "a dr backend's route through a gateway: dropped (drop-dr-route), back when direct" route_gw

# --- a segment of a smaller MTU: fragmented without DF, Packet Too Big with it --------------------
FRAG_PY=$DP_TMP/frag.py
cat >"$FRAG_PY" <<'EOF2'
import socket, sys

# VIP PORT DF SIZE: one datagram of SIZE bytes, DF set or not; prints the answer or "-"
addr, port, df, size = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1', int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 2 if df else 0)	# IP_MTU_DISCOVER: DO / DONT
s.settimeout(2.0)
try:
    s.sendto(b'x' * size, (addr, port))
    print(s.recv(100).decode().strip())
except OSError:
    print('-')
EOF2
frag() {
	local g0 g1 g2 a1 a2 rc=0
	ip -n "${DP_LB[1]}" -b - <<-EOF || return 1
		link set d1 mtu 1300
		link set d2 mtu 1300
		link set drbr mtu 1300
	EOF
	g0=$(dp_gstats 1)
	a1=$(dp_cl "$DP_PY" "$FRAG_PY" "$V4" "$DP_UDP_PORT" 0 1400)
	g1=$(dp_gstats 1)
	a2=$(dp_cl "$DP_PY" "$FRAG_PY" "$V4" "$DP_UDP_PORT" 1 1400)
	g2=$(dp_gstats 1)
	ip -n "${DP_LB[1]}" -b - <<-EOF || rc=1
		link set drbr mtu 1500
		link set d1 mtu 1500
		link set d2 mtu 1500
	EOF
	echo "# 1400 bytes without DF: answer $a1, tx-packets +$(dp_gdelta "$g0" "$g1" tx-packets)," \
		"drop-dr-route +$(dp_gdelta "$g0" "$g1" drop-dr-route); with DF: answer $a2," \
		"drop-too-big +$(dp_gdelta "$g1" "$g2" drop-too-big)" \
		"icmp-ptb-sent +$(dp_gdelta "$g1" "$g2" icmp-ptb-sent)"
	[[ $a1 == b[12] && $(dp_gdelta "$g0" "$g1" tx-packets) -ge 1 ]] || rc=1
	[[ $a2 == - && $(dp_gdelta "$g1" "$g2" icmp-ptb-sent) -ge 1 ]] || rc=1
	return $rc
}
ktap_test_run "segment MTU 1300: fragmented without DF and answered, Packet Too Big with DF" frag

# --- a packet for the VIP in a link-layer broadcast frame is not balanced ----------------------
# As ip_forward() drops it (and IPVS never sees it): otherwise every LB on a segment would send
# it. The router's neighbour entry for LB 1 says ff:ff:ff:ff:ff:ff for a while.
bcast_on() { dp_rt ip neigh replace "$(dp_lb4 1)" lladdr ff:ff:ff:ff:ff:ff dev l1 nud permanent; }
bcast_off() { dp_rt ip neigh del "$(dp_lb4 1)" dev l1; }
bcast() {
	local rc=0
	disturbed bcast_on bcast_off || rc=1
	echo "# in broadcast frames: $A1 of 5 answered, tx-packets +$(dp_gdelta "$G0" "$G1" tx-packets)"
	[[ $A1 -eq 0 && $(dp_gdelta "$G0" "$G1" tx-packets) -eq 0 ]] || rc=1
	return $rc
}
ktap_test_run "the VIP's packets in link-layer broadcast frames: not balanced (as ip_forward())" bcast

# --- br_netfilter: a frame that LB 1's bridge forwards to another host is not balanced -------
# With br_netfilter, the IP hooks see bridged frames as the host's (PACKET_HOST, the real type
# kept aside): b1's frames for the VIP to b2's MAC, bridged by LB 1's drbr, are b2's, and LB 1
# must not balance them (as another LB's encap dr packets crossing a kmaglev host's bridge).
FRAME_PY=$DP_TMP/frame.py
cat >"$FRAME_PY" <<'EOF2'
import socket, struct, sys

# DEV SRC_MAC DST_MAC SRC DST PORT N: N UDP datagrams SRC -> DST:PORT in Ethernet frames
dev, smac, dmac, src, dst, port, n = sys.argv[1:8]
mac = lambda m: bytes(int(x, 16) for x in m.split(':'))
payload = b'bridged'
udp = struct.pack('!HHHH', 40000, int(port), 8 + len(payload), 0) + payload
hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                  socket.inet_aton(src), socket.inet_aton(dst))
csum = sum(struct.unpack('!10H', hdr))
csum = (csum & 0xffff) + (csum >> 16)
csum = ~((csum & 0xffff) + (csum >> 16)) & 0xffff
hdr = hdr[:10] + struct.pack('!H', csum) + hdr[12:]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
for _ in range(int(n)):
    s.send(mac(dmac) + mac(smac) + b'\x08\x00' + hdr + udp)
EOF2
be_rx() { ip -n "${DP_BE[$1]}" -j -s link show dr | jq -r '.[0].stats64.rx.packets'; }
bridged() {
	local m1 m2 g0 g1 r0 r1 rc=0
	m1=$(ip -n "${DP_BE[1]}" -j link show dr | jq -r '.[0].address')
	m2=$(ip -n "${DP_BE[2]}" -j link show dr | jq -r '.[0].address')
	dp_sysctl "${DP_LB[1]}" net.bridge.bridge-nf-call-iptables=1 || return 1
	g0=$(dp_gstats 1)
	r0=$(be_rx 2)
	dp_be 1 "$DP_PY" "$FRAME_PY" dr "$m1" "$m2" "$(dr4 1)" "$V4" "$DP_UDP_PORT" 5 || rc=1
	dp_sleep 0.5
	g1=$(dp_gstats 1)
	r1=$(be_rx 2)
	echo "# b1's 5 frames to b2's MAC for $V4, bridged by LB 1: b2 received +$((r1 - r0))," \
		"LB 1 rx-packets +$(dp_gdelta "$g0" "$g1" rx-packets)" \
		"tx-packets +$(dp_gdelta "$g0" "$g1" tx-packets)"
	[[ $((r1 - r0)) -ge 5 && $(dp_gdelta "$g0" "$g1" rx-packets) -eq 0 ]] || rc=1
	return $rc
}
if modprobe -q br_netfilter 2>/dev/null; then
	ktap_test_run "br_netfilter: frames LB 1's bridge forwards to a backend's MAC are not balanced" bridged
	# rmmod, not modprobe -r, which would take the bridge module, and drbr with it, too
	rmmod br_netfilter 2>/dev/null
else
	ktap_test_skip "br_netfilter: frames LB 1's bridge forwards are not balanced (no br_netfilter)"
fi

# --- the segment's bridge goes while every CPU may hold a route over it ---------------------------
# A cached route that held the device (an IPv6 route with the next hop forced to the backend
# keeps its FIB entry, whose next hop holds the device) would make the deletion wait for ever
# (unregister_netdevice: waiting for drbr): kmaglev caches only the backends' ordinary routes.
link_del() {
	local pid end
	dp_py "$DP_CL" probe --addr "$V6" --http 0 --udp 10 >/dev/null 2>&1
	dp_py "$DP_CL" probe --addr "$V4" --http 0 --udp 10 >/dev/null 2>&1
	end=$((SECONDS + 15))
	ip -n "${DP_LB[1]}" link del drbr &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [[ $SECONDS -lt $end ]]; do dp_sleep 0.2; done
	if kill -0 "$pid" 2>/dev/null; then
		echo "# still waiting after 15 s: $(dmesg | grep 'waiting for' | tail -n 1)"
		return 1
	fi
	wait "$pid"
}
ktap_test_run "the segment's bridge is deleted at once with IPv4 and IPv6 dr routes cached" link_del

dp_test_end
