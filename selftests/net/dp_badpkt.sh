#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, bad packets: the client sends a VIP (raw sockets) truncated TCP and UDP headers,
# IPv4 headers with a bad IHL, IPv6 packets with a broken extension-header chain, ICMP errors
# whose inner packet is cut before its ports, and fragments to services without the defrag
# flag. kmaglev drops and counts them (drop-malformed, icmp-drop, drop-frag) and no backend
# receives any of them; normal traffic goes on. Packets with a bad IHL never reach the LB: the
# router's ip_rcv drops them before any hook (its IpInHdrErrors counts them).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

dp_test_start 10 1 2

V4=$(dp_vip4 0)
V6=$(dp_vip6 0)
N=5	# packets of each kind
if ! out=$(dp_km_batch 1 2>&1 <<-EOF
	service add $V4:$DP_HTTP_PORT/tcp backend $(dp_be4 1) backend $(dp_be4 2)
	service add $V4:$DP_UDP_PORT/udp backend $(dp_be4 1) backend $(dp_be4 2)
	service add [$V6]:$DP_HTTP_PORT/tcp backend $(dp_be6 1) backend $(dp_be6 2)
	service add [$V6]:$DP_UDP_PORT/udp backend $(dp_be6 1) backend $(dp_be6 2)
	EOF
); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi

# normal DESC: HTTP and UDP through both VIPs
normal() {
	local out
	out=$(dp_py "$DP_CL" probe --addr "$V4" --http 5 --udp 5 2>&1
	      dp_py "$DP_CL" probe --addr "$V6" --http 5 --udp 5 2>&1)
	if [[ $(grep -cE '^[0-9]+ b[0-9]+$' <<<"$out") -eq 20 ]]; then
		ktap_test_pass "$1: 20 of 20 HTTP requests and UDP flows answered"
	else
		echo "$out" | sed 's/^/# /'
		ktap_test_fail "$1: 20 HTTP requests and UDP flows answered"
	fi
}
normal "before"

# --- the bad packets -------------------------------------------------------------------------
K4=tcp-trunc,udp-trunc,icmp-trunc,ihl-short,ihl-long,ihl-badopt
K6=tcp-trunc,udp-trunc,ext-trunc,ext-chain,icmp-trunc
# with the stand-in (the VIP is local on its LB) fragments are reassembled and balanced
dp_standin || { K4+=,frag; K6+=,frag; }
declare -A B=() A=()
g0=$(dp_gstats 1)
dp_snap_all B
sent=$(dp_py "$DP_CL" bad --kinds $K4 --src "$DP_CL4" --vip "$V4" --count $N --gw "$DP_RT_CL4" \
	2>&1 | sed 's/^/v4-/'
       dp_py "$DP_CL" bad --kinds $K6 --src "$DP_CL6" --vip "$V6" --count $N 2>&1 | sed 's/^/v6-/')
# a positive control in the same window: 5 valid UDP datagrams to each VIP must arrive
ctl=$(dp_udp "$V4" --count 5 --tries 1 2>&1; dp_udp "$V6" --count 5 --tries 1 2>&1)
dp_sleep 1
dp_snap_all A
g1=$(dp_gstats 1)
kinds() { local IFS=,; set -- $1; echo $#; }
# what was meant to be sent: N of each kind, a fragmented datagram being 2 packets
M=$((6 * N))			# tcp-trunc, udp-trunc (IPv4 and IPv6), ext-trunc, ext-chain
I=$((2 * N))			# icmp-trunc, IPv4 and IPv6
H=$((3 * N))			# ihl-short, ihl-long, ihl-badopt
F=$(dp_standin && echo 0 || echo $((4 * N)))
want=$((M + I + H + F))
got=$(awk '{ n += $2 } END { print n + 0 }' <<<"$sent")
if [[ $got -eq $want && $(kinds "$K4,$K6") -eq $(grep -c . <<<"$sent") ]]; then
	ktap_test_pass "$got malformed packets sent: $(tr '\n' ' ' <<<"$sent")"
else
	echo "$sent" | sed 's/^/# /'
	ktap_test_fail "malformed packets sent: $got of $want"
fi

if dp_need_kmaglev "truncated headers and broken IPv6 chains dropped as malformed"; then
	dp_gcheck "truncated headers and broken IPv6 chains dropped as malformed" "$g0" "$g1" \
		"drop-malformed>=$M"
fi
if dp_need_kmaglev "ICMP errors with truncated inner packets dropped"; then
	dp_gcheck "ICMP errors with truncated inner packets dropped" "$g0" "$g1" \
		"drop-malformed+icmp-drop>=$((M + I))"
fi
if dp_need_kmaglev "fragments to services without defrag dropped"; then
	dp_gcheck "fragments to services without defrag dropped" "$g0" "$g1" "drop-frag>=$F"
fi
d=$(dp_delta B A rt/IpInHdrErrors)
if [[ $d -ge $H ]]; then
	ktap_test_pass "$H packets with a bad IHL dropped by the router's ip_rcv (IpInHdrErrors +$d)"
else
	ktap_test_fail "$H packets with a bad IHL dropped by the router's ip_rcv (IpInHdrErrors +$d)"
fi
# the backends' tunnels received the 10 control datagrams and nothing else
msg=
n=0
for ((i = 1; i <= DP_NBE; i++)); do
	d=$(dp_tun_delta B A "b$i")
	msg+=" b$i:+$d"
	n=$((n + d))
done
answered=$(grep -cE '^[0-9]+ b[0-9]+$' <<<"$ctl")
if [[ $n -eq 10 && $answered -eq 10 ]]; then
	ktap_test_pass "no backend received any of them, only the 10 valid control datagrams (tunnel packets$msg)"
else
	echo "$ctl" | sed 's/^/# control: /'
	ktap_test_fail "no backend received any of them, only the 10 valid control datagrams: $answered answered (tunnel packets$msg)"
fi

normal "after"

dp_test_end
