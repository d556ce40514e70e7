#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, path MTU: the LB reaches the backends over a 1400-byte link while clients send
# 1500-byte packets. A full-size packet does not fit once encapsulated, so the LB answers the
# client with ICMP fragmentation-needed / Packet Too Big for the MTU left after the
# encapsulation (1400 - 20 IPIP, - 40 6in6, - 24 GRE, - 28 keyed GRE, - 44 GRE over IPv6), and
# PMTU discovery lets a 3 MiB upload through. ICMP errors sent to a VIP about a flow (as a router
# on the backend -> client path would) are forwarded to the backend that serves the flow.
# Then the path to the backends shrinks under a cached route (kmaglev keeps each IPv4 route's
# MTU with it, route.c): the LB's own link to 1300 bytes, which the client must learn as 1280
# through IPIP; then the router's links to the backends to 1200, 1100 and 1000, which the LB
# learns from the router's fragmentation-needed (a PMTU exception on its route, the same one
# lowered in place, and after a route cache flush one written into a route cached without)
# and the client as 1180, 1080 and 980.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

dp_test_start 15 1 2

LINK_MTU=1400
bes() {	# backend clauses for b1 and b2, family $1, options after
	local fam=$1
	shift
	echo "backend $(dp_be"$fam" 1) $* backend $(dp_be"$fam" 2) $*"
}
cfg="service add $(dp_vip4 0)/any $(bes 4)
service add [$(dp_vip6 0)]/any $(bes 6)
service add $(dp_vip4 1)/any $(bes 4 encap gre)
service add [$(dp_vip6 1)]/any $(bes 6 encap gre)"
dp_standin || cfg+="
service add $(dp_vip4 2)/any backend $(dp_be4 1) encap gre gre-key $(dp_gre_key 1) backend $(dp_be4 2) encap gre gre-key $(dp_gre_key 2)"
if ! dp_lb_mtu_link 1 $LINK_MTU || ! out=$(dp_km_batch 1 <<<"$cfg" 2>&1); then
	echo "${out:-}" | sed 's/^/# /'
	dp_fail_rest "a $LINK_MTU-byte link to the backends, services" 1
	dp_test_end
fi

# upload DESC VIP OVERHEAD: 3 MiB to the upload sink through VIP; then the client's path MTU
# to VIP must be LINK_MTU - OVERHEAD.
upload() {
	local desc=$1 vip=$2 want=$(($LINK_MTU - $3)) out r
	out=$(head -c 3145728 /dev/zero | dp_cl curl -s --connect-timeout 5 --max-time 90 -H 'Expect:' \
		--data-binary @- "http://$(dp_hostport "$vip" "$DP_SINK_PORT")/" 2>&1)
	r=$(dp_cl ip route get "$vip" 2>&1)
	if [[ $out != *"received 3145728 bytes"* ]]; then
		echo "# sink: ${out:-no answer}"
		ktap_test_fail "$desc: 3 MiB uploaded through $vip"
	elif [[ ! $r =~ mtu\ ([0-9]+) ]]; then
		echo "# $r"
		ktap_test_fail "$desc: 3 MiB uploaded, but the client learned no path MTU"
	elif [[ ${BASH_REMATCH[1]} -ne $want ]]; then
		ktap_test_fail "$desc: 3 MiB uploaded, the client's path MTU is ${BASH_REMATCH[1]}, want $want"
	else
		ktap_test_pass "$desc: 3 MiB uploaded through $vip, the client's path MTU is $want"
	fi
}

g0=$(dp_gstats 1)
upload "IPIP" "$(dp_vip4 0)" 20
upload "6in6" "$(dp_vip6 0)" 40
upload "GRE" "$(dp_vip4 1)" 24
upload "GRE over IPv6" "$(dp_vip6 1)" 44
if dp_need_kmaglev "keyed GRE"; then
	upload "keyed GRE" "$(dp_vip4 2)" 28
fi
g1=$(dp_gstats 1)
# one message per upload at least (more if the client retransmits before it learns)
if dp_need_kmaglev "too-big counters"; then
	dp_gcheck "too-big counters" "$g0" "$g1" "icmp-ptb-sent>=5" "drop-too-big>=5"
fi

g0=$(dp_gstats 1)
dp_check_icmp_fwd "$(dp_vip4 0)"
dp_check_icmp_fwd "$(dp_vip6 0)"
g1=$(dp_gstats 1)
if dp_need_kmaglev "ICMP errors forwarded counter"; then
	dp_gcheck "ICMP errors forwarded counter" "$g0" "$g1" "icmp-forwarded>=6"
fi

# The LB's link MTU falls while its route to the backends is cached: a device MTU change
# flushes the IPv4 route cache, and the next packet sees the new MTU.
LINK_MTU=1300
if dp_lb 1 ip link set eth1 mtu $LINK_MTU && dp_rt ip link set m1 mtu $LINK_MTU; then
	upload "IPIP, the LB's link MTU lowered to $LINK_MTU" "$(dp_vip4 0)" 20
else
	ktap_test_fail "the LB's link MTU lowered to $LINK_MTU"
fi

# Further on, the router's links to the backends fall to 1200, then 1100: the router answers
# the LB's outer packets (DF, as the client's) with fragmentation-needed, and the LB's kernel
# records a PMTU exception for each backend (which makes the cached route obsolete), then
# lowers it (written into the route in place). Then the LB's route cache is flushed, which
# resets the exceptions' MTU at the next lookup: the new routes are bound to exceptions
# without an MTU, until the router's links fall to 1000 and the MTU is written into them in
# place. The IPIP error handler that takes those messages needs an ipip device that is up:
# the fallback tunl0 here.
if ! dp_lb 1 ip link set tunl0 up; then
	for LINK_MTU in 1200 1100 1000; do
		ktap_test_fail "IPIP, the backends' links at $LINK_MTU: no tunl0 in the LB"
	done
	dp_test_end
fi
for LINK_MTU in 1200 1100 1000; do
	ok=1
	if [[ $LINK_MTU -eq 1000 ]]; then
		dp_lb 1 ip route flush cache || ok=0
	fi
	for ((i = 1; i <= DP_NBE; i++)); do
		dp_rt ip link set "b$i" mtu $LINK_MTU &&
			dp_be "$i" ip link set eth0 mtu $LINK_MTU || ok=0
	done
	if [[ $ok -eq 1 ]]; then
		upload "IPIP, a router on the way to the backends at $LINK_MTU (PMTU exception)" \
			"$(dp_vip4 0)" 20
	else
		ktap_test_fail "the links to the backends lowered to $LINK_MTU"
	fi
done

dp_test_end
