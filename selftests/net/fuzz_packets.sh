#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packet fuzzer: malformed and adversarial packets to kmaglev's VIPs, in both hook modes
# (prerouting, then ingress with ingress-dev all; this test does not read KMAGLEV_DP_HOOK).
# selftests/tools/pktfuzz sends them from the router's namespace as Ethernet frames on the link
# to the LB, to the MAC address of the LB's eth0 (so they arrive as PACKET_HOST): every
# header cut at every byte, length and IHL lies, long IPv6 extension-header chains, tiny and
# overlapping fragments of both families, ICMP errors quoting spoofed, truncated or nested
# packets, GRE/IPIP/6in4/4in6/ip6ip6 to a VIP, encapsulation loops through the LB's own
# address (its fallback tunnels decapsulate), TTL / hop limit 0 and 1, and byte flips
# (pktfuzz.c says more). KMAGLEV_FUZZ_PKTS packets in all (default 100000), half in each mode,
# seed KMAGLEV_FUZZ_SEED (default 1; the same packets in both modes).
#
# The services: VIP .10/::10 TCP 80 and UDP 5300 (backends b1, b2, IPIP and GRE), .11/::11 the
# same with flags defrag,echo, .12/::12 every protocol and port with flags defrag (b3, both
# families, GRE and IPIP: tunnels to a VIP go there). Checks, in each mode:
#  - every packet was sent, and the LB's eth0 received them;
#  - every packet to a VIP that kmaglev saw ends under exactly one of its counters: the
#    accounting invariant
#        seen = tx-packets + drop-* + icmp-drop + icmp-echo + vip-miss + frag-queued
#    where "seen" is counted by nftables in front of kmaglev: in mode prerouting a chain at
#    priority -300 (kmaglev's hook is at -290); in mode ingress a netdev ingress chain at
#    priority 0 (kmaglev's is at 10) on eth0 and the LB's tunnel devices, less the IPv6 packets
#    with hop-by-hop options or a zero payload length, which the early path leaves to the stack,
#    plus those of them a prerouting chain sees; in both modes plus the LB's own packets to a
#    VIP (an output chain at -300), which kmaglev's LOCAL_OUT hook sees;
#  - b1 and b2 (TCP and UDP services) received no packet with a header kmaglev checks broken:
#    their stacks found no truncated packet (InTruncatedPkts, Ip6InTruncatedPkts +0), and no
#    more IP header errors (IpInHdrErrors, Ip6InHdrErrors) than they received packets with
#    IPv4 options or IPv6 extension headers (which only the end host checks, as for any
#    router: nft counters on their tunnel devices); their tunnels received no more packets
#    than kmaglev sent;
#  - valid traffic is answered before and after.
# A "# reliability:" line per mode gives the figures.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

FUZZ=$KMG_TOP/build/tools/pktfuzz
TOTAL=${KMAGLEV_FUZZ_PKTS:-100000}
PKTS=$((TOTAL / 2))	# in each mode
SEED=${KMAGLEV_FUZZ_SEED:-1}
CLASSES=${KMAGLEV_FUZZ_CLASSES:-}	# pktfuzz's classes, comma-separated (default all)
# ncls [CLASSES]: how many classes pktfuzz sends (all 10 by default)
ncls() { if [[ -n ${1:-} ]]; then tr , '\n' <<<"$1" | grep -c .; else echo 10; fi; }
PLAN=13

kmg_require_root
if [[ ! -x $FUZZ ]]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$FUZZ not built (make -C selftests/tools)"
	ktap_finished
fi
kmg_require_cmd nft
DP_HOOK=prerouting
dp_test_start $PLAN 1 3
ktap_print_msg "both modes: prerouting, then ingress (ingress-dev all); $TOTAL packets, $PKTS in each, seed $SEED"

V4=("$(dp_vip4 0)" "$(dp_vip4 1)" "$(dp_vip4 2)")
V6=("$(dp_vip6 0)" "$(dp_vip6 1)" "$(dp_vip6 2)")
TUNNELS="tunl0 gre0 sit0 ip6tnl0 ip6gre0"

# the services; the LB's fallback tunnels up, so that tunnels to its address decapsulate there
setup() {
	local i
	dp_km_batch 1 <<-EOF || return 1
		service add ${V4[0]}:$DP_HTTP_PORT/tcp backend $(dp_be4 1) encap ipip backend $(dp_be4 2) encap gre
		service add ${V4[0]}:$DP_UDP_PORT/udp backend $(dp_be4 1) encap gre backend $(dp_be4 2) encap ipip
		service add [${V6[0]}]:$DP_HTTP_PORT/tcp backend $(dp_be6 1) encap ipip backend $(dp_be6 2) encap gre
		service add [${V6[0]}]:$DP_UDP_PORT/udp backend $(dp_be6 1) encap gre backend $(dp_be6 2) encap ipip
		service add ${V4[1]}:$DP_HTTP_PORT/tcp flags defrag,echo backend $(dp_be4 1) encap gre backend $(dp_be4 2) encap ipip
		service add ${V4[1]}:$DP_UDP_PORT/udp flags defrag,echo backend $(dp_be4 1) encap ipip backend $(dp_be4 2) encap gre
		service add [${V6[1]}]:$DP_HTTP_PORT/tcp flags defrag,echo backend $(dp_be6 1) encap gre backend $(dp_be6 2) encap ipip
		service add [${V6[1]}]:$DP_UDP_PORT/udp flags defrag,echo backend $(dp_be6 1) encap ipip backend $(dp_be6 2) encap gre
		service add ${V4[2]}/any flags defrag backend $(dp_be4 3) encap gre backend $(dp_be6 3) encap ipip
		service add [${V6[2]}]/any flags defrag backend $(dp_be6 3) encap gre backend $(dp_be4 3) encap ipip
	EOF
	for i in $TUNNELS; do
		dp_lb 1 ip link set "$i" up || return 1
	done
	# The client's subnets are blackholed on the router, but for the client's own address:
	# no address resolution that fails seconds later with an ICMP error to the VIP a backend
	# answered from (the fuzzer's sources, 203.0.113.100-199 and 2001:db8:c::1:0/112, and
	# any its byte flips make), which would reach kmaglev after its counters were read. The
	# IPv6 blackhole needs a metric below the connected prefix's 256 (the default, 1024,
	# added a second route that never won).
	ip -n "$DP_RT" -b - <<-EOF || return 1
		route replace blackhole 203.0.113.0/24
		route add $DP_CL4/32 dev c0
		route replace blackhole 2001:db8:c::/64 metric 1
		route add $DP_CL6/128 dev c0
	EOF
	for i in 1 2; do
		dp_be "$i" nft -f - <<-EOF || return 1
			table netdev kmgfuzz {
				counter opt4 { }
				counter ext6 { }
				chain in {
					type filter hook ingress devices = { ${DP_TUNNELS// /, } } priority 0; policy accept;
					ip hdrlength != 5 counter name opt4
					ip6 nexthdr != { 6, 17, 58 } counter name ext6
				}
			}
		EOF
	done
	dp_lb 1 nft -f - <<-EOF
		table inet kmgfuzz {
			$(nft_sets)
			counter pre4 { }
			counter pre6 { }
			counter preh { }
			counter out4 { }
			counter out6 { }
			chain pre {
				type filter hook prerouting priority -300; policy accept;
				$(nft_rules pre)
			}
			chain out {
				type filter hook output priority -300; policy accept;
				ip daddr @v4 counter name out4
				ip6 daddr @v6 counter name out6
			}
		}
	EOF
}

# nftables: the VIP sets, and the rules counting packets to them in counters PFX4, PFX6 and
# PFXh (IPv6 with hop-by-hop options or payload length 0, that ingress.c leaves to the stack
# once it has checked the version and source address)
nft_sets() {
	local IFS=,
	echo "set v4 { type ipv4_addr; elements = { ${V4[*]} }; }"
	echo "set v6 { type ipv6_addr; elements = { ${V6[*]} }; }"
}
nft_rules() {
	local ok6="ip6 daddr @v6 ip6 version 6 ip6 saddr != { ff00::/8, ::1, ::ffff:0.0.0.0/96 }"
	echo "ip daddr @v4 counter name ${1}4"
	echo "ip6 daddr @v6 counter name ${1}6"
	echo "$ok6 ip6 nexthdr 0 counter name ${1}h"
	echo "$ok6 ip6 nexthdr != 0 ip6 length 0 counter name ${1}h"
}
# nft_counters: "NAME PACKETS" for every named counter of the LB's kmgfuzz tables
nft_counters() {
	dp_lb 1 nft list counters 2>/dev/null |
		awk '$1 == "counter" { n = $2 } $1 == "packets" && n != "" { print n, $2; n = "" }'
}
nft_val() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
nft_delta() { echo $(($(nft_val "$2" "$3") - $(nft_val "$1" "$3"))); }

if ! out=$(setup 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "configure: 10 services on 6 VIPs, the LB's tunnels up, nft counters in front of kmaglev"

# control DESC: HTTP and UDP through the plain IPv4 VIP and the defrag IPv6 one
control() {
	local out v n=0
	out=$(for v in "${V4[0]}" "${V6[1]}"; do
		dp_py "$DP_CL" probe --addr "$v" --http 4 --udp 4 2>&1
	done)
	n=$(grep -cE '^[0-9]+ b[12]$' <<<"$out")
	if [[ $n -eq 16 ]]; then
		ktap_test_pass "$1: 16 of 16 HTTP requests and UDP flows answered"
	else
		echo "$out" | sed 's/^/# /'
		ktap_test_fail "$1: $n of 16 HTTP requests and UDP flows answered"
	fi
}
control "prerouting, before"

LB_MAC=$(ip -n "${DP_LB[1]}" link show eth0 | awk '$1 == "link/ether" { print $2 }')
# splat lines in the kernel log (the VM harness fails the run on any; here they are counted)
splats() { dmesg 2>/dev/null | grep -cE 'BUG:|WARNING:|UBSAN:|KASAN:|general protection|Oops|RCU stall|possible .*lock|kmemleak'; }
SPLATS0=$(splats)

# backend_errs: what b1 and b2 received and refused, summed, as "NAME VALUE" lines: their
# stacks' IP header errors (IpInHdrErrors, InTruncatedPkts, Ip6InHdrErrors,
# Ip6InTruncatedPkts), and what their tunnels decapsulated with IPv4 options (opt4) or IPv6
# extension headers (ext6), which only the end host checks (nft counters)
backend_errs() {
	local i f=()
	for i in 1 2; do
		f+=(/proc/${DP_NSPID[${DP_BE[i]}]}/net/{snmp,netstat,snmp6})
	done
	{
		for i in 1 2; do dp_be "$i" nft list counters 2>/dev/null; done
		cat "${f[@]}"
	} | awk '
	$1 == "counter" { n = $2; next }
	$1 == "packets" && n != "" { v[n] += $2; n = ""; next }
	($1 == "Ip:" || $1 == "IpExt:") && hdr != $1 { hdr = $1; for (i = 2; i <= NF; i++) k[i] = $i; next }
	$1 == "Ip:" || $1 == "IpExt:" { for (i = 2; i <= NF; i++) v[k[i]] += $i; hdr = ""; next }
	$1 ~ /^Ip6In(HdrErrors|TruncatedPkts)$/ { v[$1] += $2 }
	END { split("InHdrErrors InTruncatedPkts Ip6InHdrErrors Ip6InTruncatedPkts opt4 ext6", o, " ")
	      for (i = 1; i <= 6; i++) print o[i], v[o[i]] + 0 }'
}

# deltas ARRAY BEFORE AFTER: ARRAY[NAME] = how much each "NAME VALUE" line of AFTER grew
deltas() {
	local -n __d=$1
	local k v
	while read -r k v; do
		[[ -n $k ]] && __d[$k]=$v
	done <<<"$(printf '%s\n--\n%s\n' "$2" "$3" |
		awk '$0 == "--" { a = 1; next } !a { b[$1] = $2; next } { print $1, $2 - b[$1] }')"
}

# the counters whose sum is kmaglev's verdict on every VIP packet it saw
OUTCOMES="tx-packets drop-malformed drop-frag drop-no-backend drop-client-limit drop-no-route
drop-nomem drop-too-big drop-probe-mismatch icmp-drop icmp-echo vip-miss frag-queued quota-drop
quota-rst shed-conn-fill shed-new-rate shed-load shed-util drop-dr-route"

# verdicts GSTATS: the OUTCOMES lines of a dp_gstats output (gauges such as the connection
# count move on their own)
verdicts() { grep -E "^($(echo $OUTCOMES | tr ' ' '|')) " <<<"$1"; }

# counters_at_rest GVAR NVAR: kmaglev's global counters and the nft counters, read twice in a
# row with the same values, so that no packet (a late one of the HTTP and UDP checks, on a
# guest starved of CPU) falls between the two reads and is counted on one side only
counters_at_rest() {
	local -n __g=$1 __n=$2
	local i g n
	for ((i = 0; i < 30; i++)); do
		__g=$(dp_gstats 1)
		__n=$(nft_counters)
		g=$(dp_gstats 1)
		n=$(nft_counters)
		[[ $(verdicts "$g") == "$(verdicts "$__g")" && $n == "$__n" ]] && return 0
		dp_sleep 1
	done
	ktap_print_msg "the counters did not come to rest in 30 s"
}

# fuzz MODE [CLASSES]: one mode's run (pktfuzz's classes CLASSES, default all) and its checks
# (four results)
fuzz() {
	local mode=$1 classes=${2:-} ncls out g0 g1 n0 n1 e0 e1 seen sum c d= tun=0 tx i t0 took sent rx be
	local -A B=() A=() G=() N=() E=()
	dp_sleep 1
	counters_at_rest g0 n0
	e0=$(backend_errs)
	dp_snap_all B
	t0=$SECONDS
	out=$(dp_rt "$FUZZ" --dev l1 --dst-mac "$LB_MAC" --seed "$SEED" --count "$PKTS" \
		--vip4 "$(IFS=,; echo "${V4[*]}")" --vip6 "$(IFS=,; echo "${V6[*]}")" \
		--lb4 "$(dp_lb4 1)" --lb6 "$(dp_lb6 1)" --be4 "$(dp_be4 1)" --be6 "$(dp_be6 1)" \
		--src4 "$DP_CL4" --src6 "$DP_CL6" --tcp-port "$DP_HTTP_PORT" \
		--udp-port "$DP_UDP_PORT" ${classes:+--classes "$classes"} 2>&1)
	took=$((SECONDS - t0))
	dp_sleep 2
	counters_at_rest g1 n1
	e1=$(backend_errs)
	dp_snap_all A
	# kmaglev's transmissions read after the backends' tunnels: a packet it forwards between
	# the two reads counts on kmaglev's side only. (The blackholes of setup() keep away the
	# late ones seen before: the router's "address unreachable" to a VIP about a backend's
	# retransmitted SYN-ACK to a fuzzed client, for a minute or two after the fuzzing.)
	tx=$(dp_gdelta "$g0" "$(dp_gstats 1)" tx-packets)
	deltas G "$g0" "$g1"
	deltas N "$n0" "$n1"
	FUZZ_TOOK=$took

	# 1. sent and received
	echo "$out" | sed "s/^/# $mode: /"
	sent=$(awk '$1 == "total" { print $2 }' <<<"$out")
	rx=$(dp_delta B A lb1/eth0:rx_packets)
	ncls=$(ncls "$classes")
	if [[ $sent == "$PKTS" && $rx -ge $PKTS && $(grep -c '^class ' <<<"$out") -eq $ncls ]]; then
		ktap_test_pass "$mode: $sent packets of $ncls classes sent in ${took}s, the LB's eth0 received $rx"
	else
		ktap_test_fail "$mode: ${sent:-0} of $PKTS packets sent, the LB's eth0 received $rx"
	fi

	# 2. the accounting invariant
	if [[ $mode == prerouting ]]; then
		seen=$((N[pre4] + N[pre6]))
		ktap_print_msg "$mode: prerouting chain: IPv4 +${N[pre4]} IPv6 +${N[pre6]}"
	else
		seen=$((N[in4] + N[in6] - N[inh] + N[preh]))
		ktap_print_msg "$mode: ingress chain: IPv4 +${N[in4]} IPv6 +${N[in6]}, of them left to the stack +${N[inh]}, which the prerouting chain saw +${N[preh]}; prerouting chain in all: IPv4 +${N[pre4]} IPv6 +${N[pre6]}"
	fi
	# The LB's own packets to a VIP (ICMP errors its stack sends to a VIP source), which
	# kmaglev's LOCAL_OUT hook counts. No VIP is an address of the LB: none comes back.
	seen=$((seen + N[out4] + N[out6]))
	ktap_print_msg "$mode: output chain: IPv4 +${N[out4]} IPv6 +${N[out6]}"
	sum=0
	for c in $OUTCOMES; do
		sum=$((sum + ${G[$c]:-0}))
		[[ ${G[$c]:-0} -ne 0 ]] && d+=" $c +${G[$c]}"
	done
	ktap_print_msg "$mode: kmaglev:$d"
	ktap_print_msg "$mode: also rx-packets +${G[rx-packets]} rx-ingress +${G[rx-ingress]} icmp-forwarded +${G[icmp-forwarded]} icmp-ptb-sent +${G[icmp-ptb-sent]} frag-reassembled +${G[frag-reassembled]} conn-new +${G[conn-new]}"
	FUZZ_SEEN=$seen
	FUZZ_SUM=$sum
	FUZZ_DETAIL=$d
	if [[ $seen -eq $sum && $seen -gt 0 && -n ${G[frag-queued]} ]]; then
		ktap_test_pass "$mode: every one of the $seen VIP packets kmaglev saw is counted once, under a verdict"
	else
		ktap_test_fail "$mode: $seen VIP packets seen, $sum counted under a verdict"
	fi

	# 3. the backends
	for ((i = 1; i <= 2; i++)); do tun=$((tun + $(dp_tun_delta B A "b$i"))); done
	deltas E "$e0" "$e1"
	be="IpInHdrErrors +${E[InHdrErrors]} InTruncatedPkts +${E[InTruncatedPkts]} Ip6InHdrErrors +${E[Ip6InHdrErrors]} Ip6InTruncatedPkts +${E[Ip6InTruncatedPkts]}; decapsulated with IPv4 options +${E[opt4]}, IPv6 extension headers +${E[ext6]}"
	if [[ $((E[InTruncatedPkts] + E[Ip6InTruncatedPkts])) -eq 0 &&
	      ${E[InHdrErrors]} -le ${E[opt4]} && ${E[Ip6InHdrErrors]} -le ${E[ext6]} &&
	      $tun -le $tx ]]; then
		ktap_test_pass "$mode: b1 and b2 refused no packet for a header kmaglev checks ($be), their tunnels received $tun of the $tx packets kmaglev sent (b3: $(dp_tun_delta B A b3))"
	else
		ktap_test_fail "$mode: b1 and b2 refused packets for a header kmaglev checks ($be); their tunnels received $tun, kmaglev sent $tx"
	fi

	# 4. valid traffic still answered
	control "$mode, after"
}

fuzz prerouting "$CLASSES"
P_TOOK=$FUZZ_TOOK P_SEEN=$FUZZ_SEEN P_SUM=$FUZZ_SUM P_DETAIL=$FUZZ_DETAIL

if ! out=$(dp_km 1 config set hook ingress ingress-dev all 2>&1) ||
   ! out=$(dp_lb 1 nft -f - 2>&1 <<-EOF
	table netdev kmgfuzz {
		$(nft_sets)
		counter in4 { }
		counter in6 { }
		counter inh { }
		chain in {
			type filter hook ingress devices = { eth0, ${TUNNELS// /, } } priority 0; policy accept;
			$(nft_rules in)
		}
	}
	EOF
); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "ingress: config set hook ingress, nft netdev chains" 1
	dp_test_end
fi
fuzz ingress "$CLASSES"

n=$(($(splats) - SPLATS0))
if [[ $n -eq 0 ]]; then
	ktap_test_pass "no splat in the kernel log"
else
	dmesg | grep -E 'BUG:|WARNING:|UBSAN:|KASAN:|general protection|Oops|RCU stall|possible .*lock|kmemleak' |
		head -20 | sed 's/^/# /'
	ktap_test_fail "$n splat lines in the kernel log"
fi
# reliability MODE TOOK SEEN SUM DETAIL
reliability() {
	local res=pass
	[[ $3 -eq $4 && $__ktap_fail -eq 0 ]] || res=FAIL
	echo "# reliability: packet fuzzer (hook $1) | $PKTS pkts, $(ncls "$CLASSES") classes, seed $SEED | $2 s | $n splats | $3 VIP packets seen = $4 counted:${5}, $res"
}
reliability prerouting "$P_TOOK" "$P_SEEN" "$P_SUM" "$P_DETAIL"
reliability ingress "$FUZZ_TOOK" "$FUZZ_SEEN" "$FUZZ_SUM" "$FUZZ_DETAIL"

dp_test_end
