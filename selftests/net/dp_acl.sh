#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, operator ACLs in front of kmaglev, in both modes (prerouting, then ingress; this
# test does not read KMAGLEV_DP_HOOK). The client has a second address, 203.0.113.3 and
# 2001:db8:c::3, whose packets the LB's ACL drops; its first address is allowed.
#  - prerouting: an nftables chain at priority raw (-300) drops the blocked source before
#    kmaglev (-290) sees it: no answer, kmaglev's rx-packets does not move; the allowed source
#    is balanced. A chain at -200 (conntrack's place, after kmaglev) sees no packet to a VIP.
#  - ingress: kmaglev takes packets before the IP stack, so the prerouting chains see none, the
#    raw ACL included: the "blocked" source is balanced (what the man page warns of). An
#    nftables netdev ingress chain on eth0 at priority 0 drops it before kmaglev's hook (10):
#    no answer, rx-packets does not move; a netdev chain at 20 sees no packet to a VIP. With a
#    kernel that can list hooks (CONFIG_NETFILTER_NETLINK_HOOK), `nft list hooks` shows the
#    order: the ACL at 0, kmg_ingress_hook at 10.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

kmg_require_cmd nft
DP_HOOK=prerouting
dp_test_start 10 1 2
ktap_print_msg "both modes: prerouting first, then ingress (ingress-dev eth0)"

V4=$(dp_vip4 0)
V6=$(dp_vip6 0)
OK4=$DP_CL4
OK6=$DP_CL6
BAD4=203.0.113.3
BAD6=2001:db8:c::3
N=4	# requests of each family from the allowed address

# nft rules of the LB: "chain NAME" of table FAMILY kmg_acl
INET_ACL="table inet kmg_acl {
	chain raw {
		type filter hook prerouting priority raw; policy accept;
		ip saddr $BAD4 counter drop
		ip6 saddr $BAD6 counter drop
	}
	chain after {
		type filter hook prerouting priority -200; policy accept;
		ip daddr 192.0.2.0/24 counter
		ip6 daddr 2001:db8:f::/48 counter
	}
}"
NETDEV_ACL="table netdev kmg_acl {
	chain acl {
		type filter hook ingress device eth0 priority 0; policy accept;
		ip saddr $BAD4 counter drop
		ip6 saddr $BAD6 counter drop
	}
	chain after {
		type filter hook ingress device eth0 priority 20; policy accept;
		ip daddr 192.0.2.0/24 counter
		ip6 daddr 2001:db8:f::/48 counter
	}
}"
# nft_count FAMILY CHAIN: the packets the counters of a chain counted
nft_count() {
	dp_lb 1 nft list chain "$1" kmg_acl "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "counter" && $(i + 1) == "packets") n += $(i + 2) }
		     END { print n + 0 }'
}

setup() {
	dp_km_batch 1 <<-EOF || return 1
		service add $V4:$DP_HTTP_PORT/tcp backend $(dp_be4 1) backend $(dp_be4 2)
		service add [$V6]:$DP_HTTP_PORT/tcp backend $(dp_be6 1) backend $(dp_be6 2)
	EOF
	ip -n "$DP_CL" -b - <<-EOF || return 1
		addr add $BAD4/24 dev eth0
		addr add $BAD6/64 dev eth0 nodad
	EOF
	dp_lb 1 nft -f - <<<"$INET_ACL"
}
if ! out=$(setup 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_test_pass "configure: services, a second client address, nft prerouting chains at raw and -200"

# get SRC VIP N: N HTTP requests from source address SRC, each on a new connection; the
# answers ("backend bN", which has no newline of its own), one a line, as many as came.
get() {
	dp_cl curl -s -w '\n' --interface "$1" --connect-timeout 2 --max-time 4 \
		"http://$(dp_hostport "$2" "$DP_HTTP_PORT")/?[1-$3]" 2>/dev/null |
		grep -oE '^backend b[0-9]+$'
}
# answered OK4_OR_BAD4 OK6_OR_BAD6 N: requests from both families; how many were answered
answered() { { get "$1" "$V4" "$3"; get "$2" "$V6" "$3"; } | grep -c .; }

# allowed DESC: the allowed address's 2N requests all answered; kmaglev counted them where the
# mode says.
allowed() {
	local g0 g1 n
	g0=$(dp_gstats 1)
	n=$(answered "$OK4" "$OK6" $N)
	g1=$(dp_gstats 1)
	if [[ $n -ne $((2 * N)) ]]; then
		ktap_test_fail "$1: $n of $((2 * N)) requests answered"
		return
	fi
	dp_check_hook "$1: $n of $((2 * N)) requests answered" "$g0" "$g1"
}
# blocked DESC FAMILY CHAIN: one request a family from the blocked address: none answered, the
# ACL chain's drop counted its packets, kmaglev counted nothing.
blocked() {
	local desc=$1 c0 c1 g0 g1 n rx
	c0=$(nft_count "$2" "$3")
	g0=$(dp_gstats 1)
	n=$(answered "$BAD4" "$BAD6" 1)
	g1=$(dp_gstats 1)
	c1=$(nft_count "$2" "$3")
	rx=$(dp_gdelta "$g0" "$g1" rx-packets)
	if [[ $n -eq 0 && $((c1 - c0)) -ge 2 && $rx -eq 0 ]]; then
		ktap_test_pass "$desc: no answer, the ACL dropped $((c1 - c0)) packets, kmaglev rx-packets +0"
	else
		ktap_test_fail "$desc: $n answered, the ACL dropped $((c1 - c0)) packets, kmaglev rx-packets +$rx"
	fi
}

# --- prerouting --------------------------------------------------------------------------------
allowed "prerouting: the allowed address is balanced"
blocked "prerouting: the raw-priority ACL drops the blocked address before kmaglev" inet raw
after=$(nft_count inet after)
if [[ $after -eq 0 ]]; then
	ktap_test_pass "prerouting: the chain at -200 (after kmaglev) saw no packet to a VIP"
else
	ktap_test_fail "prerouting: the chain at -200 (after kmaglev) saw $after packets to a VIP"
fi

# --- ingress -------------------------------------------------------------------------------------
DP_HOOK=ingress
raw0=$(nft_count inet raw)
after0=$(nft_count inet after)
g0=$(dp_gstats 1)
if ! out=$(dp_km 1 config set hook ingress ingress-dev eth0 2>&1); then
	echo "# $out"
	dp_fail_rest "ingress: config set hook ingress ingress-dev eth0" 1
	dp_test_end
fi
n=$(answered "$BAD4" "$BAD6" 1)
g1=$(dp_gstats 1)
raw=$(($(nft_count inet raw) - raw0))
after=$(($(nft_count inet after) - after0))
# (dp_check_hook's result carries the counts of the prerouting chains)
if [[ $n -eq 2 && $raw -eq 0 && $after -eq 0 ]]; then
	dp_check_hook "ingress: prerouting chains see no VIP packet (raw +0, -200 +0): the raw ACL no longer applies, the blocked address is balanced" "$g0" "$g1"
else
	ktap_test_fail "ingress: prerouting chains see no VIP packet: $n of 2 answered, raw +$raw, -200 +$after"
fi

if ! out=$(dp_lb 1 nft -f - <<<"$NETDEV_ACL" 2>&1); then
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "ingress: nft netdev ingress chains on eth0" 1
	dp_test_end
fi
blocked "ingress: a netdev ingress ACL (priority 0) on eth0 drops the blocked address before kmaglev" netdev acl
g0=$(dp_gstats 1)
n=$(answered "$OK4" "$OK6" $N)
g1=$(dp_gstats 1)
after=$(nft_count netdev after)
if [[ $n -eq $((2 * N)) && $after -eq 0 ]]; then
	dp_check_hook "ingress: the allowed address is balanced ($n of $((2 * N))), the netdev chain at 20 saw no VIP packet" "$g0" "$g1"
else
	ktap_test_fail "ingress: the allowed address is balanced: $n of $((2 * N)) answered; the netdev chain at 20 saw $after VIP packets"
fi

# --- the order of eth0's hooks, as nftables lists it -------------------------------------------
hooks=$(dp_lb 1 nft list hooks netdev device eth0 2>&1)
[[ -z $hooks ]] || echo "$hooks" | sed 's/^/# /'
if ! grep -q "chain netdev kmg_acl acl" <<<"$hooks"; then
	ktap_test_skip "nft list hooks: kmg_ingress_hook at 10, between the ACL at 0 and the chain at 20 (this kernel lists no hooks: CONFIG_NETFILTER_NETLINK_HOOK)"
elif awk '
	/chain netdev kmg_acl acl/ { a = NR; pa = $1 + 0 }
	/kmg_ingress_hook/ { k = NR; pk = $1 + 0 }
	/chain netdev kmg_acl after/ { b = NR; pb = $1 + 0 }
	END { exit !(a && k && b && a < k && k < b && pa == 0 && pk == 10 && pb == 20) }' <<<"$hooks"; then
	ktap_test_pass "nft list hooks: kmg_ingress_hook at 10, between the ACL at 0 and the chain at 20"
else
	ktap_test_fail "nft list hooks: kmg_ingress_hook at 10, between the ACL at 0 and the chain at 20"
fi

dp_test_end
