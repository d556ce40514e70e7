#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Data plane, health-probe marks: a locally generated packet to a VIP whose skb mark is
# probe-mark-min + a backend id goes to exactly that backend, through that backend's own
# encapsulation (IPIP, GRE, keyed GRE; ip6tnl for IPv6), so a probe tests what clients see.
#  - UDP and TCP probes from LB 1 (SO_MARK), from many source ports (which would otherwise
#    spread over the backends), are all answered by the backend the mark names.
#  - A mark naming a backend of another service, or no backend, is dropped and counted in
#    drop-probe-mismatch: a probe never reaches a backend other than the one it names.
#  - Backend ids are the lowest free: a deleted backend's id goes to the next backend added,
#    here in another service, and a stale probe mark for it is then a mismatch for the first
#    service and reaches the new backend through the second.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dp_lib.sh"

if dp_standin; then
	ktap_print_header
	ktap_skip_all "probe marks are kmaglev's own (stand-in is $DP_STANDIN)"
fi
dp_test_start 14 1 3

MARK0=4096
MAXBE=64
# probe udp|tcp VIP MARK COUNT: dp_lib.sh's, from LB 1 ("5 b2")
probe() { dp_probe_marked "$@"; }
# be_id VIP/PROTO ADDR: the backend's id, from kmaglev -j backend show
be_id() {
	dp_km 1 -j backend show "$1" | "$DP_PY" -c '
import json, sys
for s in json.load(sys.stdin):
    for b in s["backends"]:
        if b["backend"] == sys.argv[1] and "id" in b:
            print(b["id"])' "$2"
}
ids() {
	dp_km 1 -j backend show "$1" | "$DP_PY" -c '
import json, sys
print(" ".join("%s=%s" % (b["backend"], b.get("id", "?"))
               for s in json.load(sys.stdin) for b in s["backends"]))'
}

V4=$(dp_vip4 0)
V6=$(dp_vip6 0)
W4=$(dp_vip4 1)
S4=$V4/any
S6=[$V6]/any
T4=$W4/any
# b1 IPIP, b2 GRE, b3 keyed GRE; IPv6 through ip6tnl; a second service on b1 alone
cfg="config set max-backends $MAXBE probe-mark-min $MARK0 probe-mark-max $((MARK0 + MAXBE - 1))
service add $S4 backend $(dp_be4 1) backend $(dp_be4 2) encap gre backend $(dp_be4 3) encap gre gre-key $(dp_gre_key 3)
service add $S6 backend $(dp_be6 1) backend $(dp_be6 2) backend $(dp_be6 3)
service add $T4 backend $(dp_be4 1)"
if out=$(dp_km_batch 1 <<<"$cfg" 2>&1); then
	ktap_test_pass "configure: probe marks $MARK0..$((MARK0 + MAXBE - 1)) for max-backends $MAXBE, three services"
else
	echo "$out" | sed 's/^/# /'
	dp_fail_rest "configure" 1
	dp_test_end
fi
ktap_print_msg "ids: $(ids "$S4") $(ids "$S6") $(ids "$T4")"

# --- each probe reaches the backend its mark names, through its encapsulation ---------------
# reach KIND VIP SVC I ENCAP DEV: 8 flows marked for backend I of SVC all answered by bI, which
# received them on DEV (its decapsulating device for ENCAP), and the probe counter counts them
reach() {
	local kind=$1 vip=$2 svc=$3 i=$4 encap=$5 dev=$6 be id out g0 g1 p d
	local -A B=() A=()
	be=$(dp_be4 "$i")
	[[ $vip == *:* ]] && be=$(dp_be6 "$i")
	id=$(be_id "$svc" "$be")
	g0=$(dp_gstats 1)
	dp_snap_all B
	out=$(probe "$kind" "$vip" $((MARK0 + ${id:-0})) 8)
	dp_snap_all A
	g1=$(dp_gstats 1)
	p=$(dp_gdelta "$g0" "$g1" probe)
	d=$(dp_delta B A "b$i/$dev:rx_packets")
	if [[ -n $id && $out == "8 b$i" && $p -ge 8 && $d -ge 8 ]]; then
		ktap_test_pass "$kind probes to $vip marked for b$i (id $id, $encap) reach b$i only: $out (probe +$p, b$i $dev +$d)"
	else
		ktap_test_fail "$kind probes to $vip marked for b$i (id ${id:-?}, $encap) reach b$i only: $out (probe +$p, b$i $dev +$d)"
	fi
}
reach udp "$V4" "$S4" 1 IPIP tunl0
reach udp "$V4" "$S4" 2 GRE gre0
reach udp "$V4" "$S4" 3 "keyed GRE" kgre
reach tcp "$V4" "$S4" 3 "keyed GRE" kgre
reach udp "$V6" "$S6" 2 "IPv6 in IPv6" ip6any

# without a mark (or with one outside the range), LB 1's own flows are balanced as usual
out=$(probe udp "$V4" 0 12)
out2=$(probe udp "$V4" $((MARK0 + MAXBE)) 4)
if [[ $out != *-* && $out2 != *-* ]]; then
	ktap_test_pass "unmarked flows, and marks past probe-mark-max, are balanced: $out; $out2"
else
	ktap_test_fail "unmarked flows, and marks past probe-mark-max, are balanced: $out; $out2"
fi

# --- marks that name no backend of the service: dropped and counted ---------------------------
# mismatch DESC VIP MARK: 5 flows with MARK to VIP get no answer, no backend sees a packet,
# drop-probe-mismatch counts them
mismatch() {
	local desc=$1 vip=$2 mark=$3 out g0 g1 m p i t=0
	local -A B=() A=()
	g0=$(dp_gstats 1)
	dp_snap_all B
	out=$(probe udp "$vip" "$mark" 5)
	dp_snap_all A
	g1=$(dp_gstats 1)
	m=$(dp_gdelta "$g0" "$g1" drop-probe-mismatch)
	p=$(dp_gdelta "$g0" "$g1" probe)
	for ((i = 1; i <= DP_NBE; i++)); do t=$((t + $(dp_tun_delta B A "b$i"))); done
	# each flow sends twice
	if [[ $out == "5 -" && $m -ge 5 && $p -eq 0 && $t -eq 0 ]]; then
		ktap_test_pass "$desc: dropped, $out (drop-probe-mismatch +$m, probe +$p, backends +$t)"
	else
		ktap_test_fail "$desc: dropped, $out (drop-probe-mismatch +$m, probe +$p, backends +$t)"
	fi
}
tid=$(be_id "$T4" "$(dp_be4 1)")
mismatch "mark for b1 of $T4 (id ${tid:-?}) sent to $V4" "$V4" $((MARK0 + ${tid:-0}))
mismatch "mark for id $((MAXBE - 1)) (no backend) sent to $V4" "$V4" $((MARK0 + MAXBE - 1))

# --- ids: lowest free, reused at once, a stale mark stays within its service -------------------
b2=$(dp_be4 2)
old=$(be_id "$S4" "$b2")
dp_km 1 backend del "$S4" "$b2" >/dev/null
dp_km 1 backend add "$S4" "$(dp_be4 4)" >/dev/null 2>&1	# no such host: ids only
new4=$(be_id "$S4" "$(dp_be4 4)")
dp_km 1 backend del "$S4" "$(dp_be4 4)" >/dev/null
dp_km 1 backend add "$T4" "$b2" encap gre >/dev/null
new=$(be_id "$T4" "$b2")
if [[ -n $old && $new4 == "$old" && $new == "$old" ]]; then
	ktap_test_pass "b2's id $old, freed by its deletion, goes to the next backend added, then to b2 in $T4 ($(ids "$S4") $(ids "$T4"))"
else
	ktap_test_fail "b2's id ${old:-?} goes to the next backends added: got ${new4:-?}, then ${new:-?} ($(ids "$S4") $(ids "$T4"))"
fi
mismatch "stale mark for b2's old id $old sent to $V4 (b2 is now $T4's)" "$V4" $((MARK0 + ${old:-0}))
reach udp "$W4" "$T4" 2 GRE gre0

dp_test_end
