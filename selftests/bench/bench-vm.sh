#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of `make bench`: selftests/bench/bench.sh boots Debian's stock kernel on QEMU's
# instruction clock (one vCPU, -icount) and runs this as root in the VM; see bench.sh for what
# is measured and why. It loads and unloads modules and runs pktgen: not for a real host.
#
#   bench-vm.sh            set up the namespaces, then re-run itself inside the LB netns
#   bench-vm.sh inner      the measurements proper (in the LB netns)
#
# Raw results go to KMAGLEV_BENCH_OUT (default build/bench), which report.py turns into tables:
#   pktrate-runs.tsv   one line per measured run: round, case, packets, guest microseconds
#   pktrate-status.tsv FAIL (a case could not be measured, and why), NOTE, CONN and PARAM lines
# Environment: KMAGLEV_KO (module; empty: there is none), KMAGLEV_BENCH_GEN (inject or pktgen,
# see below), KMAGLEV_INJECT_KO (kmaglev_inject.ko beside KMAGLEV_KO), KMAGLEV_BENCH_ROUNDS (5),
# KMAGLEV_BENCH_PKTS (50000: packets of a measured run of a steady case), KMAGLEV_BENCH_NEW
# (100000: new flows of a new-flow run), KMAGLEV_BENCH_FILL (500000: entries present before
# the "-500k" new-flow runs), KMAGLEV_BENCH_FILL_ROUNDS (2), KMAGLEV_BENCH_CASES (the cases
# of the rounds), KMAGLEV_BENCH_CONN (1; 0 skips the 1M-entry phase),
# KMAGLEV_BENCH_1M_ROUNDS (3), KMAGLEV_BENCH_TCP (3: rounds of the TCP phase; 0 skips it),
# KMAGLEV_BENCH_TCP_SECS (2: guest seconds of an iperf3 run), KMAGLEV_BENCH_DF (1: frames with
# DF but in the -nodf cases; 0: none with DF), KMAGLEV_BENCH_PROFILE (a case:
# perf record it, see below), KMAGLEV_BENCH_INSNS (a case: one run between the markers of
# insn-count.so, see below).
# Exit status: 0 when the raw results are complete (cases that could not be measured are in
# the status file), 1 when the run itself broke.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KO=${KMAGLEV_KO-$TOP/build/stock/kmod/kmaglev.ko}
CLI=$TOP/build/kmaglev
ROUNDS=${KMAGLEV_BENCH_ROUNDS:-5}
NPKTS=${KMAGLEV_BENCH_PKTS:-50000}
NNEW=${KMAGLEV_BENCH_NEW:-100000}
NFILL=${KMAGLEV_BENCH_FILL:-500000}
FILL_ROUNDS=${KMAGLEV_BENCH_FILL_ROUNDS:-2}
ROUNDS_1M=${KMAGLEV_BENCH_1M_ROUNDS:-3}
ROUNDS_TCP=${KMAGLEV_BENCH_TCP:-3}
TCP_SECS=${KMAGLEV_BENCH_TCP_SECS:-2}
PROFILE=${KMAGLEV_BENCH_PROFILE:-}
INSNS=${KMAGLEV_BENCH_INSNS:-}
WARM=2000			# packets before each measured run of a steady case
OUT=${KMAGLEV_BENCH_OUT:-$TOP/build/bench}
LB=kmg-lb CL=kmg-cl BE=kmg-be	# network namespaces: load balancer, client, TCP backend

die() { echo "bench: FATAL: $*" >&2; exit 1; }

# --- addresses ---------------------------------------------------------------------------
# lbin (LB) <-veth-> cl0 (client netns): clients are 10.1.0.0/16; pktgen injects on lbin.
# New-flow clients are anywhere in 11.0.0.0/8 (a /8 that holds no address of the bench),
# routed back through lbin.
# sink0 (dummy, LB): 198.51.100.0/24, where plain (non-VIP) traffic goes.
# bk0 (dummy, LB): 10.200.0.0/16, every backend. A dummy counts a packet and frees it.
# lbbe (LB) <-veth-> be0 (BE netns): 10.201.0.0/24, the TCP phase's one real backend, which
# decapsulates on its fallback IPIP device (tunl0), holds the VIP on lo and answers the
# client directly (through the LB's plain forwarding: its default route). MTU 1600 on that
# link, as a DSR fabric leaves room for the outer header (else the client's 1500-byte
# segments would not fit and PMTU discovery would shrink them).
DST_PLAIN=198.51.100.1
VIP_IPVS=10.100.0.1		# IPVS: a local address of the LB netns
VIP_IPIP=10.100.1.1		# kmaglev VIPs: not local, and no route in the LB netns
VIP_GRE=10.100.1.2
VIP_DR=10.100.1.5		# encap dr: the packet as it came, to the backend's address on bk0
VIP_RB=10.100.1.3		# 100 backends; its table is rebuilt during case 6
VIP_NEW=10.100.1.4		# the new-flow cases (7)
VIP_CONN=10.100.1.7		# the 1M-entry phase (8, 9)
VIP_TCP=10.100.9.1		# the TCP phase (ingress mode, IPIP), on lo of BE
BE_TCP=10.201.0.2 TCP_PORT=5201
PORT=5000
BE_IPVS=10.200.0.1 BE_IPIP=10.200.0.2 BE_GRE=10.200.0.3 BE_NEW=10.200.0.4 BE_DR=10.200.0.5
BE_CONN=10.200.0.7
BE_FILL=10.200.2.1
RB_BACKENDS=100			# 10.200.1.1 .. 10.200.1.100
NVIPS=1000			# kmaglev services configured in every loaded run
FRAME=64			# pktgen pkt_size: the frame, as the devices count it
OTHER_MAC=02:00:00:00:00:01	# not lbin's: the generator-only case (ip_rcv drops it first)
IPVS_TAB_BITS=20		# IPVS's connection hash: 2^20 buckets (its default is 2^12)

# Flows: pktgen steps the source address and the source port by one each packet, so A
# addresses and P ports, A and P coprime, cycle through exactly A * P distinct 5-tuples.
FLOWS_1K=(10.1.0.1 10.1.0.8 10000 10125)	# 8 x 125 = 1000 flows (max port exclusive)
FLOWS_1M=(10.1.1.1 10.1.1.17 1024 65024)	# 17 x 64000 = 1,088,000 flows
NFLOWS_1M=1088000
FLOWS_FILL=(10.1.2.1 10.1.2.8 1024 64049)	# 8 x 63025 = 504,200 flows, the first NFILL of them
# New flows: a random source address in the /8 and a random source port for every packet
# (pktgen's IPSRC_RND and UDPSRC_RND): 2^40 5-tuples, so every packet starts a flow.
FLOWS_NEW=(11.0.0.1 11.255.255.254 1024 65535)
NEW_CONN_MAX=4000000		# conn-max above the flow count: every packet inserts an entry
FULL_CONN_MAX=1000		# conn-max below it: the table is full within a millisecond
FLOOD_RATE=10			# flood-rate: new entries per second before flood mode
QUOTA_RATE=1000000		# new-quota-ing: per-source quotas far above what the run sends
QUOTA_BURST=10000000

if [[ ${1:-} != inner ]]; then
	[[ $(id -u) -eq 0 ]] || die "must run as root (in the VM)"
	modprobe ip_vs conn_tab_bits=$IPVS_TAB_BITS || die "modprobe ip_vs"
	modprobe -a pktgen dummy veth ip_vs_mh ip_tunnel ip6_tunnel tunnel4 tunnel6 gre \
		ip_gre ip6_gre ipip nf_defrag_ipv4 nf_defrag_ipv6 nf_reject_ipv4 nf_reject_ipv6 ||
		die "modprobe failed"
	for ns in $LB $CL $BE; do
		ip netns del "$ns" 2>/dev/null
		ip netns add "$ns" && ip -n "$ns" link set lo up || die "ip netns add $ns"
		# IPv4 only: no router solicitations or MLD reports on the counted devices.
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || die "sysctl in $ns"
	done
	ip -n $LB link add lbin type veth peer name cl0 netns $CL &&
		ip -n $LB link add sink0 type dummy &&
		ip -n $LB link add bk0 type dummy &&
		ip -n $LB addr add 10.1.255.254/16 dev lbin &&
		ip -n $LB addr add 198.51.100.254/24 dev sink0 &&
		ip -n $LB addr add 10.200.255.254/16 dev bk0 &&
		ip -n $LB addr add $VIP_IPVS/32 dev lo &&
		ip -n $CL addr add 10.1.255.253/16 dev cl0 &&
		ip -n $CL link set cl0 up &&
		ip -n $LB link set lbin up &&
		ip -n $LB link set sink0 up &&
		ip -n $LB link set bk0 up &&
		ip -n $LB route add 11.0.0.0/8 dev lbin &&
		ip netns exec $LB sysctl -qw net.ipv4.ip_forward=1 ||
		die "network setup failed"
	ip -n $LB link add lbbe mtu 1600 type veth peer name be0 mtu 1600 netns $BE &&
		ip -n $LB addr add 10.201.0.1/24 dev lbbe &&
		ip -n $LB link set lbbe up &&
		ip -n $BE addr add $BE_TCP/24 dev be0 &&
		ip -n $BE addr add $VIP_TCP/32 dev lo &&
		ip -n $BE link set be0 up &&
		ip -n $BE link set tunl0 up &&
		ip -n $BE route add default via 10.201.0.1 &&
		ip -n $CL route add default via 10.1.255.254 &&
		ip netns exec $BE sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.tunl0.rp_filter=0 &&
		ip netns exec $LB sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.lbbe.rp_filter=0 ||
		die "network setup of the TCP phase failed"
	ip netns exec $LB "$0" inner
	rc=$?
	for ns in $LB $CL $BE; do ip netns del $ns; done
	exit $rc
fi

# --- inside the LB netns ---------------------------------------------------------------
T0=$SECONDS
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p "$OUT" || die "cannot create $OUT"
RUNS=$OUT/pktrate-runs.tsv
STATUS=$OUT/pktrate-status.tsv
printf 'round\tcase\tpackets\tns\tbytes_per_pkt\trebuilds\n' >"$RUNS"
: >"$STATUS"

# The packet source (KMAGLEV_BENCH_GEN): "inject" (default), kmaglev_inject.ko, which hands
# each packet to lbin's receive path as a NIC driver does (a fresh skb, the driver's
# headroom, owned by the stack alone); or "pktgen" in its netif_receive mode, which hands the
# stack the same skb with an extra reference again and again (so every writer copies the
# header first: in every case alike, but a cost no NIC imposes). Both run in one thread and
# time their own run; the flows are set alike (gen_flows, gen_rnd, gen_dst, gen_mac).
SOURCE=${KMAGLEV_BENCH_GEN:-inject}
INJ_KO=${KMAGLEV_INJECT_KO:-${KO:+$(dirname "$KO")/kmaglev_inject.ko}}
INJ=/sys/kernel/debug/kmaglev_inject/run
PGCTRL=/proc/net/pktgen/pgctrl
PGTHR=/proc/net/pktgen/kpktgend_0
PGDEV=/proc/net/pktgen/lbin
LOOP_PIDS=()
G_SRC= G_SPORT= G_DST= G_DPORT= G_RND=0 G_MAC= G_MARK=0 MARK_ARMED=0 G_DF=1

pg() { [[ $SOURCE != pktgen ]] || echo "$*" >"$PGDEV" || die "pktgen: '$*' refused"; }
# gen_range SRC_MIN SRC_MAX SPORT_MIN SPORT_MAX: addresses inclusive, ports as pktgen's
# (the maximum excluded).
gen_range() {
	G_SRC=$1-$2 G_SPORT=$3-$(($4 - 1))
	pg "src_min $1"; pg "src_max $2"; pg "udp_src_min $3"; pg "udp_src_max $4"
}
# Stepped flows (see FLOWS_1K), or random ones (FLOWS_NEW).
gen_flows() { G_RND=0; pg "flag !IPSRC_RND"; pg "flag !UDPSRC_RND"; gen_range "$@"; }
gen_rnd() { G_RND=1; gen_range "$@"; pg "flag IPSRC_RND"; pg "flag UDPSRC_RND"; }
gen_dst() {
	G_DST=$1 G_DPORT=$2
	pg "dst_min $1"; pg "dst_max $1"; pg "udp_dst_min $2"; pg "udp_dst_max $2"
}
gen_mac() { G_MAC=$1; pg "dst_mac $1"; }
# gen_run COUNT: send COUNT packets; returns when all went through. NS is the source's own
# timing of the run, in guest nanoseconds (instructions on the instruction clock), SENT what
# it sent, PGERR how many the stack refused (NET_RX_DROP).
gen_run() {
	local l df
	NS=0 SENT=0 PGERR=0
	if [[ $SOURCE == inject ]]; then
		# df=1 only when wanted: an older kmaglev_inject.ko knows no df= and sends no DF
		df=
		[[ $G_DF == 0 ]] || df=" df=1"
		echo "dev=lbin count=$1 dst=$G_DST dport=$G_DPORT src=$G_SRC sport=$G_SPORT mac=$G_MAC rnd=$G_RND mark=$G_MARK$df" \
			>"$INJ" || die "kmaglev_inject refused its run"
		read -r l <"$INJ"
		[[ $l =~ ^packets\ ([0-9]+)\ ns\ ([0-9]+)\ dropped\ ([0-9]+) ]] ||
			die "kmaglev_inject: cannot read '$l'"
		SENT=${BASH_REMATCH[1]} NS=${BASH_REMATCH[2]} PGERR=${BASH_REMATCH[3]}
		return
	fi
	pg "count $1"
	echo start >"$PGCTRL" || die "pktgen: start refused"
	while read -r l; do
		[[ $l =~ ^Result:\ OK:\ ([0-9]+) ]] && NS=$((BASH_REMATCH[1] * 1000))
		[[ $l =~ ^pkts-sofar:\ ([0-9]+)\ +errors:\ ([0-9]+) ]] &&
			SENT=${BASH_REMATCH[1]} PGERR=${BASH_REMATCH[2]}
	done <"$PGDEV"
}

cleanup() {
	[[ ${#LOOP_PIDS[@]} -eq 0 ]] || loop_stop
	[[ ! -d /sys/module/kmaglev_inject ]] || rmmod kmaglev_inject
}
trap cleanup EXIT

read -r LBIN_MAC </sys/class/net/lbin/address
case $SOURCE in
inject)
	[[ -n $INJ_KO && -f $INJ_KO ]] || die "no kmaglev_inject.ko (${INJ_KO:-the modules did not build}); KMAGLEV_BENCH_GEN=pktgen uses pktgen"
	[[ -d /sys/module/kmaglev_inject ]] || insmod "$INJ_KO" || die "insmod $INJ_KO failed"
	[[ -w $INJ ]] || die "no $INJ (debugfs not mounted?)" ;;
pktgen)
	echo rem_device_all >"$PGTHR" && echo "add_device lbin" >"$PGTHR" || die "pktgen: add_device lbin"
	pg "xmit_mode netif_receive"
	pg "pkt_size $FRAME"
	pg "burst 1"
	pg "delay 0"
	pg "flag NO_TIMESTAMP" ;;
*) die "KMAGLEV_BENCH_GEN=$SOURCE: inject or pktgen" ;;
esac
gen_mac "$LBIN_MAC"
# pktgen sets no DF: its frames have none in any case
BENCH_DF=${KMAGLEV_BENCH_DF:-1}
[[ $BENCH_DF == [01] ]] || die "KMAGLEV_BENCH_DF=$BENCH_DF: 0 or 1"
[[ $SOURCE == inject ]] || BENCH_DF=0
G_DF=$BENCH_DF	# run() changes it for its case alone (local); the fill, 1M and TCP phases use this
printf 'PARAM\t%s\n' "source=$SOURCE df=$BENCH_DF rounds=$ROUNDS pkts=$NPKTS new=$NNEW fill=$NFILL fill_rounds=$FILL_ROUNDS" >>"$STATUS"

# --- results -----------------------------------------------------------------------------
declare -A FAIL		# FAIL[case]: why it could not be measured (it is not run again)
declare -A NOTE		# NOTE[case]: something to know about its numbers
fail() { [[ -n ${FAIL[$1]:-} ]] || FAIL[$1]=$2; echo "  $1: NOT MEASURED: $2"; }

# Service generation, into GEN (rebuild counts).
svc_gen() {
	GEN=$("$CLI" service show "$1" 2>/dev/null | grep -oE ' generation [0-9]+' | head -n1 | tr -dc 0-9)
	GEN=${GEN:-0}
}
# kmaglev's netns-wide data-path counters, "NAME VALUE" a line (as dp_lib.sh's dp_gstats),
# and how much one grew: gdelta BEFORE AFTER NAME (-1 when it is missing).
gstats() { "$CLI" stats 2>/dev/null | awk -f "$TOP/selftests/net/gstats.awk"; }
gdelta() {
	local a b
	a=$(awk -v n="$3" '$1 == n { print $2 }' <<<"$1")
	b=$(awk -v n="$3" '$1 == n { print $2 }' <<<"$2")
	if [[ -n $a && -n $b ]]; then echo $((b - a)); else echo -1; fi
}
# InReceives of the LB netns (ip_rcv's count), into INRECV.
inreceives() {
	INRECV=$(awk '$1 == "Ip:" { if (!k) { for (i = 2; i <= NF; i++) if ($i == "InReceives") k = i }
		else { print $k; exit } }' /proc/net/snmp)
	INRECV=${INRECV:-0}
}
# IPVS's connections to its real server (ActiveConn + InActConn), into IPVS_CONNS (-1: unknown).
ipvs_conns() {
	IPVS_CONNS=$(ipvsadm -L -n -u $VIP_IPVS:$PORT 2>/dev/null |
		awk '$1 == "->" && $5 ~ /^[0-9]+$/ { print $5 + $6; exit }')
	IPVS_CONNS=${IPVS_CONNS:--1}
}
# path_check CASE WHAT GREW SENT: a counter (WHAT, grown by GREW over the run) says which path
# the packets took; it must account for the SENT packets of the run, or the case measured
# another path: under 90% it fails, under 99% it has a note.
path_check() {
	local c=$1 what=$2 grew=$3 sent=$4
	if ((grew < 0)); then
		fail "$c" "cannot read $what"
	elif ((grew * 10 < sent * 9)); then
		fail "$c" "$what grew by $grew for the $sent packets of the run: not the path it measures"
	elif ((grew * 100 < sent * 99)); then
		NOTE[$c]="$what grew by $grew for the $sent packets of a run"
	fi
}
# A device's transmitted packets and bytes from one read of /proc/net/dev.
txstat() {
	local line
	line=$(grep -E "^ *$1:" /proc/net/dev)
	read -r TXB TXP <<<"$(echo "${line#*:}" | awk '{ print $9, $10 }')"
}

# The CPU time the generator's thread has had, in guest ns, into GTIME: the bench shell's
# own (kmaglev_inject runs in its write()) or pktgen's thread's.
PG_TID=
gtime() {
	local f=/proc/$BASHPID/schedstat
	if [[ $SOURCE == pktgen ]]; then
		[[ -n $PG_TID ]] || PG_TID=$(pgrep -x kpktgend_0)
		f=/proc/$PG_TID/schedstat
	fi
	read -r GTIME _ <"$f" || die "cannot read $f"
}

# measure CASE ROUND EGRESS EXTRA_BYTES COUNT [SERVICE]: one measured run of COUNT packets,
# the source already set up (and warmed up by the caller where the case wants it). Every
# packet must leave via EGRESS (99%: a few may be refused by design, never more), with the
# outer header's EXTRA_BYTES when it goes to a backend. EGRESS "-" (the generator-only case):
# the stack must have refused every packet. With SERVICE (cases steady and rebuild), the run
# counts its table rebuilds, and its time is the generator thread's CPU time alone (the
# packets' path: the rebuilds run in other threads on the same vCPU).
REBUILDS=0
measure() {
	local c=$1 r=$2 eg=$3 extra=$4 n=$5 svc=${6:-} p0=0 b0=0 pkts=0 bpp=0 gen0=0 t0=0 ns
	local exp=$((FRAME + extra))
	[[ $eg == - ]] || { txstat "$eg"; p0=$TXP b0=$TXB; }
	[[ -z $svc ]] || { svc_gen "$svc"; gen0=$GEN; gtime; t0=$GTIME; }
	G_MARK=$MARK_ARMED	# the measured packets alone, in the window of insns()
	gen_run "$n"
	G_MARK=0
	REBUILDS=0
	[[ -z $svc ]] || { gtime; NS=$((GTIME - t0)); svc_gen "$svc"; REBUILDS=$((GEN - gen0)); }
	if [[ $eg != - ]]; then
		txstat "$eg"
		pkts=$((TXP - p0))
		((pkts)) && bpp=$(awk -v b=$((TXB - b0)) -v p=$pkts 'BEGIN { printf "%.1f", b / p }')
	fi
	ns=$(awk -v t="$NS" -v n="$SENT" 'BEGIN { printf "%.1f", n ? t / n : 0 }')
	printf '  %4ds round %d %-13s %6d ns/packet (%d packets in %d us%s%s)\n' \
		$((SECONDS - T0)) "$r" "$c" "${ns%.*}" "$SENT" $((NS / 1000)) \
		"$([[ $eg == - ]] && echo ", $PGERR refused" || echo ", $pkts left, $bpp B/pkt")" \
		"${svc:+, $REBUILDS rebuilds}"
	if ((SENT != n || NS <= 0)); then
		fail "$c" "the source sent $SENT of $n packets (in $NS ns)"
	elif [[ $eg == - ]]; then
		((PGERR == SENT)) || fail "$c" "the stack took $((SENT - PGERR)) of $SENT packets it should refuse"
	elif ((pkts == 0)); then
		fail "$c" "nothing left via $eg of the $SENT packets sent$(
			[[ $c != @(plain|ipvs*) ]] && echo " (kmaglev forwarded nothing)")"
	elif ((pkts * 100 < SENT * 99)); then
		fail "$c" "only $pkts of the $SENT packets sent left via $eg"
	elif ((extra)) && awk -v b="$bpp" -v m=$((FRAME + 20)) 'BEGIN { exit !(b < m - 0.5) }'; then
		fail "$c" "packets leave via $eg with $bpp bytes, expected $exp: not encapsulated"
	elif awk -v b="$bpp" -v e=$exp 'BEGIN { exit !(b < e - 0.5 || b > e + 0.5) }'; then
		NOTE[$c]="$bpp bytes per packet via $eg, expected $exp"
	fi
	[[ -z ${FAIL[$c]:-} ]] || return 1
	printf '%d\t%s\t%d\t%d\t%s\t%d\n' "$r" "$c" "$SENT" "$NS" "$bpp" "$REBUILDS" >>"$RUNS"
}

# --- kmaglev: one configuration for every loaded run --------------------------------------
CONF=/tmp/kmaglev-bench.conf
NFIXED=6	# the services below before the fillers
{
	echo "service add $VIP_IPIP:$PORT/udp backend $BE_IPIP encap ipip"
	echo "service add $VIP_GRE:$PORT/udp backend $BE_GRE encap gre"
	echo "service add $VIP_DR:$PORT/udp backend $BE_DR encap dr"
	printf 'service add %s:%d/udp' $VIP_RB $PORT
	for ((i = 1; i <= RB_BACKENDS; i++)); do printf ' backend 10.200.1.%d encap ipip' "$i"; done
	echo
	echo "service add $VIP_NEW:$PORT/udp backend $BE_NEW encap ipip"
	echo "service add $VIP_CONN:$PORT/udp backend $BE_CONN encap ipip"
	# The rest of the NVIPS services, on the port and protocol of the non-VIP traffic, so
	# that a miss cannot be decided on the port alone. Small tables: no packet of the bench
	# uses them, and 995 default tables would take seconds more to build at every load.
	for ((i = 0; i < NVIPS - NFIXED; i++)); do
		echo "service add 10.100.$((2 + i / 250)).$((1 + i % 250)):$PORT/udp table-size 251 backend $BE_FILL"
	done
} >"$CONF"

KMG_ERR=		# why kmaglev cannot be loaded or configured: every kmaglev case fails
CONN_MAX_DEF=		# the module's default conn-max (restored after the new-flow cases)
kmg_loaded() { [[ -d /sys/module/kmaglev ]]; }
kmg_config() {
	local out t=$SECONDS
	if ! out=$("$CLI" -b "$CONF" 2>&1); then
		KMG_ERR="configuring $NVIPS services failed: $out"
		return 1
	fi
	echo "  $((SECONDS - T0))s $NVIPS kmaglev services configured in $((SECONDS - t))s"
}
kmg_load() {
	kmg_loaded && return 0
	[[ -z $KMG_ERR ]] || return 1
	local out
	if [[ -z $KO || ! -f $KO ]]; then
		KMG_ERR="no kmaglev.ko (${KO:-the module did not build})"
	elif ! out=$(insmod "$KO" 2>&1); then
		KMG_ERR="insmod $KO failed: $out"
	elif kmg_config; then
		[[ -n $CONN_MAX_DEF ]] ||
			CONN_MAX_DEF=$("$CLI" config show | grep -oE '(^| )conn-max [0-9]+' | tr -dc 0-9)
		return 0
	fi
	return 1
}
kmg_unload() {
	kmg_loaded || return 0
	"$CLI" service flush >/dev/null 2>&1
	rmmod kmaglev || die "rmmod kmaglev failed: the unloaded baselines cannot be measured"
}
# An empty connection table, for a new-flow run: with its last service gone the netns stops
# balancing and drops every entry; then the same services again.
kmg_fresh() {
	kmg_load || return 1
	"$CLI" service flush >/dev/null 2>&1 || { KMG_ERR="kmaglev service flush failed"; return 1; }
	kmg_config
}

# Ingress mode: kmaglev's hook at NF_NETDEV_INGRESS on lbin instead of PRE_ROUTING.
HOOK_ERR=
hook_ingress() {
	local out
	[[ -z $HOOK_ERR ]] || return 1
	out=$("$CLI" config set hook ingress ingress-dev lbin 2>&1) && return 0
	HOOK_ERR="ingress mode: 'kmaglev config set hook ingress ingress-dev lbin' refused: $out"
	return 1
}
hook_prerouting() {
	local out
	out=$("$CLI" config set hook prerouting 2>&1) && return 0
	echo "  'kmaglev config set hook prerouting' failed ($out): unloading kmaglev"
	kmg_unload
}
# ingress_check CASE BEFORE(gstats) I0(InReceives): the ingress hook took the packets
# (rx-ingress) and they never reached ip_rcv.
ingress_check() {
	local g1
	inreceives
	g1=$(gstats)
	path_check "$1" "rx-ingress" "$(gdelta "$2" "$g1" rx-ingress)" "$SENT"
	(((INRECV - $3) < SENT / 10)) ||
		fail "$1" "$((INRECV - $3)) of the $SENT packets went through ip_rcv: ingress mode did not take them"
}

# Case 6, rebuilds: a batch-mode CLI fed an endless stream of weight changes of one backend,
# 1 -> 2 -> 1 ...; each change is one build of the 65537-slot table, published with an RCU
# pointer swap. On one vCPU it shares the CPU with pktgen's thread (nice 19, so its share
# stays small and alike from run to run); its instructions count in the run's time.
LOOP_FIFO=/tmp/kmaglev-bench-loop.fifo
LOOP_ERR=/tmp/kmaglev-bench-loop.err
loop_start() {
	: >"$LOOP_ERR"
	rm -f "$LOOP_FIFO" && mkfifo "$LOOP_FIFO" || die "mkfifo"
	nice -n 19 "$CLI" -b "$LOOP_FIFO" >/dev/null 2>"$LOOP_ERR" &
	LOOP_PIDS=($!)
	{ while :; do
		echo "backend set $VIP_RB:$PORT/udp 10.200.1.1 weight 2"
		echo "backend set $VIP_RB:$PORT/udp 10.200.1.1 weight 1"
	done >"$LOOP_FIFO"; } 2>/dev/null &
	LOOP_PIDS+=($!)
}
loop_stop() {
	local p
	for p in "${LOOP_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${LOOP_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	LOOP_PIDS=()
}
# The rebuilds have begun: up to 20 s.
loop_wait() {
	local g t=$((SECONDS + 20))
	svc_gen "$1"; g=$GEN
	while ((SECONDS < t)); do
		sleep 0.2
		svc_gen "$1"
		((GEN == g)) || return 0
	done
	return 1
}

ipvs_setup() {
	modprobe ip_vs conn_tab_bits=$IPVS_TAB_BITS && modprobe ip_vs_mh && ipvsadm -C &&
		ipvsadm -A -u $VIP_IPVS:$PORT -s mh && ipvsadm -a -u $VIP_IPVS:$PORT -r $BE_IPVS -i
}
# IPVS without connections: unloading drops them (they would stay for the UDP timeout).
ipvs_unload() {
	ipvsadm -C 2>/dev/null
	rmmod ip_vs_mh ip_vs 2>/dev/null
	! [[ -d /sys/module/ip_vs ]] || NOTE[$1]="rmmod ip_vs failed: its connections stay"
}

# fill N: N distinct established UDP flows toward the current destination (FLOWS_FILL, one
# packet each, not measured).
fill() {
	local c=$1 t=$SECONDS
	gen_flows "${FLOWS_FILL[@]}"
	gen_run "$NFILL"
	echo "  $((SECONDS - T0))s $c: $SENT flows made in $((SECONDS - t))s"
	((SENT == NFILL)) || { fail "$c" "pktgen sent $SENT of the $NFILL packets of the fill"; return 1; }
}

# run CASE ROUND: set up and measure one case, unless it has failed before. The frames carry
# DF (G_DF), as TCP's and QUIC's do, but in the CASE-nodf cases (and in every case with
# KMAGLEV_BENCH_DF=0, to compare with a tree whose injector set no DF).
run() {
	local c=$1 r=$2 g0 i0 cfg vip be extra n=$NPKTS ing=0 base=$1 G_DF=$BENCH_DF
	[[ -z ${FAIL[$c]:-} ]] || return 0
	if [[ $c == *-nodf ]]; then
		G_DF=0 base=${c%-nodf}
		[[ $base == ipvs || $base == ipip-ing ]] || die "no case $c"
	fi
	gen_flows "${FLOWS_1K[@]}"
	gen_mac "$LBIN_MAC"
	case $base in
	gen)
		# pktgen and the receive path up to ip_rcv's first check: the generator's cost,
		# taken off the others' for their own.
		kmg_unload
		gen_dst $DST_PLAIN $PORT
		gen_mac $OTHER_MAC
		gen_run $WARM
		measure gen "$r" - 0 "$n"
		gen_mac "$LBIN_MAC" ;;
	plain)
		kmg_unload
		gen_dst $DST_PLAIN $PORT
		gen_run $WARM
		measure plain "$r" sink0 0 "$n" ;;
	ipvs)
		kmg_unload
		ipvs_setup || { fail "$c" "ipvsadm could not configure the service"; ipvs_unload "$c"; return; }
		gen_dst $VIP_IPVS $PORT
		gen_run $WARM
		measure "$c" "$r" bk0 20 "$n"
		ipvs_unload "$c" ;;
	ipvs-new|ipvs-new-500k)
		kmg_unload
		ipvs_unload "$c"
		ipvs_setup || { fail "$c" "ipvsadm could not configure the service"; ipvs_unload "$c"; return; }
		gen_dst $VIP_IPVS $PORT
		[[ $c == ipvs-new ]] || fill "$c" || { ipvs_unload "$c"; return; }
		ipvs_conns; i0=$IPVS_CONNS
		gen_rnd "${FLOWS_NEW[@]}"
		measure "$c" "$r" bk0 20 "$NNEW" && ipvs_conns &&
			path_check "$c" "IPVS's connection count" \
				$((i0 < 0 || IPVS_CONNS < 0 ? -1 : IPVS_CONNS - i0)) "$SENT"
		i0=$SECONDS
		ipvs_unload "$c"
		echo "  $((SECONDS - T0))s IPVS unloaded with its connections in $((SECONDS - i0))s" ;;
	*)
		kmg_load || { fail "$c" "$KMG_ERR"; return; }
		case $base in
		nonvip)
			gen_dst $DST_PLAIN $PORT
			gen_run $WARM
			measure nonvip "$r" sink0 0 "$n" ;;
		ipip|gre|dr|ipip-ing|gre-ing|dr-ing)
			case $base in
			ipip*) vip=$VIP_IPIP extra=20 ;;
			gre*) vip=$VIP_GRE extra=24 ;;
			dr*) vip=$VIP_DR extra=0 ;;
			esac
			[[ $base != *-ing ]] || { hook_ingress || { fail "$c" "$HOOK_ERR"; return; }; ing=1; }
			gen_dst "$vip" $PORT
			gen_run $WARM
			g0=$(gstats); inreceives; i0=$INRECV
			measure "$c" "$r" bk0 "$extra" "$n" && ((ing)) && ingress_check "$c" "$g0" "$i0"
			((ing == 0)) || hook_prerouting ;;
		steady|rebuild)
			gen_dst $VIP_RB $PORT
			gen_run $WARM
			if [[ $c == rebuild ]]; then
				loop_start
				if ! loop_wait "$VIP_RB:$PORT/udp"; then
					fail rebuild "no table was rebuilt in the 20 s after the weight-change loop started$(
						[[ -s $LOOP_ERR ]] && echo ": $(head -n1 "$LOOP_ERR")")"
					loop_stop
					return
				fi
			fi
			measure "$c" "$r" bk0 20 "$n" "$VIP_RB:$PORT/udp"
			[[ $c != rebuild ]] || loop_stop
			[[ -z ${FAIL[$c]:-} ]] || return
			if [[ $c == rebuild && -s $LOOP_ERR ]]; then
				fail rebuild "the weight-change loop failed: $(head -n1 "$LOOP_ERR")"
			elif [[ $c == rebuild && $REBUILDS -eq 0 ]]; then
				fail rebuild "no table was rebuilt during the run (the generation did not move)"
			elif [[ $c == steady && $REBUILDS -ne 0 ]]; then
				NOTE[steady]="the table was rebuilt during a steady run"
			fi ;;
		new|new-ing|new-quota-ing|new-500k|new-500k-ing|new-full|new-flood)
			case $c in
			new-full) cfg="conn-max $FULL_CONN_MAX flood-rate 0" ;;
			new-flood) cfg="conn-max $NEW_CONN_MAX flood-rate $FLOOD_RATE" ;;
			# every new flow checked against its /16's bucket (256 sources), none refused
			new-quota-ing) cfg="conn-max $NEW_CONN_MAX flood-rate 0 quota-rate $QUOTA_RATE quota-burst $QUOTA_BURST quota-prefix4 16" ;;
			*) cfg="conn-max $NEW_CONN_MAX flood-rate 0" ;;
			esac
			kmg_fresh || { fail "$c" "$KMG_ERR"; return; }
			# shellcheck disable=SC2086
			if ! i0=$("$CLI" config set $cfg 2>&1); then
				fail "$c" "kmaglev config set $cfg: $i0"
				return
			fi
			[[ $c != *-ing ]] || { hook_ingress || { fail "$c" "$HOOK_ERR"; return; }; ing=1; }
			gen_dst $VIP_NEW $PORT
			[[ $c != new-500k* ]] || fill "$c" || return
			gen_rnd "${FLOWS_NEW[@]}"
			g0=$(gstats)
			inreceives; i0=$INRECV
			measure "$c" "$r" bk0 20 "$NNEW" && {
				case $c in
				new-full) path_check "$c" "conn-table-full" \
					"$(gdelta "$g0" "$(gstats)" conn-table-full)" "$SENT" ;;
				new-flood) path_check "$c" "conn-flood" \
					"$(gdelta "$g0" "$(gstats)" conn-flood)" "$SENT" ;;
				new-quota-ing) g1=$(gstats)
					path_check "$c" "conn-new" "$(gdelta "$g0" "$g1" conn-new)" "$SENT"
					[[ $(gdelta "$g0" "$g1" quota-drop) -eq 0 ]] ||
						fail "$c" "quota-drop grew: flows were refused" ;;
				*) path_check "$c" "conn-new" "$(gdelta "$g0" "$(gstats)" conn-new)" "$SENT" ;;
				esac
				((ing == 0)) || ingress_check "$c" "$g0" "$i0"
			}
			((ing == 0)) || hook_prerouting
			"$CLI" config set conn-max "${CONN_MAX_DEF:-1048576}" flood-rate 0 quota-rate 0 >/dev/null ||
				kmg_unload ;;
		*) die "unknown case $c" ;;
		esac ;;
	esac
}

# --- perf profile of one case (KMAGLEV_BENCH_PROFILE=CASE) ----------------------------------
# perf's cpu-clock event samples on the guest's clock, which is the instruction count here:
# the shares are of instructions. Written to OUT/profile-CASE.txt.
profile() {
	local c=$1 data=/tmp/kmaglev-bench.perf pid i
	echo "== profile of $c: perf record on the instruction clock"
	sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1 kernel.perf_event_max_sample_rate=100000
	export HOME=/tmp	# perf's files (the host's root is read-only here)
	run "$c" 0		# set up and warmed: the profiled run is the second
	# The workload perf starts (once its events are on) says so, then waits for the end.
	rm -f /tmp/kmaglev-prof.on /tmp/kmaglev-prof.fifo && mkfifo /tmp/kmaglev-prof.fifo || die "mkfifo"
	perf record -q -N -e cpu-clock -F 50000 -a -g -o "$data" -- \
		sh -c ': >/tmp/kmaglev-prof.on; read -r _ </tmp/kmaglev-prof.fifo' 2>"$OUT/profile-$c.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do [[ -e /tmp/kmaglev-prof.on ]] && break; sleep 0.1; done
	run "$c" 1
	echo >/tmp/kmaglev-prof.fifo
	wait "$pid" || echo "  perf record failed: $(tail -n1 "$OUT/profile-$c.err")"
	# the generator's thread only: the packets' path (not the shell's own work, nor idle)
	local tid=$BASHPID
	[[ $SOURCE != pktgen ]] || tid=$(pgrep -x kpktgend_0)
	{
		echo "# perf report --no-children, case $c, the generator's thread (shares of its instructions)"
		perf report -i "$data" --tid "$tid" --percentage relative --no-children --sort sym --stdio -g none --percent-limit 0.3 2>>"$OUT/profile-$c.err" |
			grep -v '^$'
		echo
		echo "# with callees (perf report --children)"
		perf report -i "$data" --tid "$tid" --percentage relative --children --sort sym --stdio -g none --percent-limit 1 2>>"$OUT/profile-$c.err" |
			grep -v '^$'
	} >"$OUT/profile-$c.txt"
	echo "  written to build/bench/profile-$c.txt"
}

# --- exact instructions of one case (KMAGLEV_BENCH_INSNS=CASE) ------------------------------
# bench.sh --insns runs QEMU with insn-count.so, which counts every instruction address the
# vCPU executes between two markers; the injector frames the measured packets of the second
# run with them (mark=1). The guest's symbols and the run's packets go beside the counts, for
# insns.py on the host.
insns() {
	local c=$1
	[[ $SOURCE == inject ]] || die "--insns needs the inject source (KMAGLEV_BENCH_GEN=inject)"
	echo "== instructions of $c, exactly: insn-count.so between the markers of one run"
	sysctl -qw kernel.kptr_restrict=0
	run "$c" 0		# set up and warmed: the counted run is the second
	MARK_ARMED=1
	run "$c" 1
	MARK_ARMED=0
	[[ -z ${FAIL[$c]:-} ]] || die "$c: ${FAIL[$c]}"
	cat /proc/kallsyms >"$OUT/insns-$c.kallsyms" || die "cannot read /proc/kallsyms"
	printf 'packets %d ns %d\n' "$SENT" "$NS" >"$OUT/insns-$c.meta"
	echo "  $SENT packets counted; symbols in build/bench/insns-$c.kallsyms"
}

# --- the rounds ----------------------------------------------------------------------------
# Every round runs every case once. On the instruction clock a case's cost does not depend on
# what else the host runs, so the order does not matter; rounds are there for what varies in
# the guest itself (a timer or a worker landing in one run, random flows).
read -r -a CASES <<<"${KMAGLEV_BENCH_CASES:-gen plain ipvs ipvs-nodf nonvip ipip gre dr ipip-ing ipip-ing-nodf gre-ing dr-ing steady rebuild ipvs-new new new-ing new-quota-ing new-full new-flood ipvs-new-500k new-500k new-500k-ing}"
echo "== per-packet cost on the instruction clock: $ROUNDS rounds, $NPKTS packets a run" \
	"($NNEW for new flows), 64-byte UDP"
echo "   module ${KO:-(none)}"
if [[ -n $PROFILE ]]; then
	profile "$PROFILE"
	kmg_unload
	exit 0
fi
if [[ -n $INSNS ]]; then
	insns "$INSNS"
	kmg_unload
	exit 0
fi
for ((r = 1; r <= ROUNDS; r++)); do
	echo "-- round $r/$ROUNDS ($((SECONDS - T0))s)"
	for c in "${CASES[@]}"; do
		[[ $c != *-500k* ]] || ((r <= FILL_ROUNDS)) || continue
		run "$c" "$r"
	done
done

# --- cases 8 and 9: 1M connection entries: bytes per entry, then forwarding over them ---------
conn_fill() {
	local out t n b cli p0
	echo "== connection table: $NFLOWS_1M distinct UDP flows, one packet each, to $VIP_CONN:$PORT ($((SECONDS - T0))s)"
	kmg_fresh || { fail conn "$KMG_ERR"; return 1; }
	out=$("$CLI" config set conn-max 2000000 timeout-udp 1h 2>&1) ||
		{ fail conn "kmaglev config set conn-max 2000000 timeout-udp 1h: $out"; return 1; }
	gen_flows "${FLOWS_1M[@]}"
	gen_dst $VIP_CONN $PORT
	read -r p0 </sys/class/net/bk0/statistics/tx_packets
	t=$SECONDS
	gen_run $NFLOWS_1M
	read -r n </sys/class/net/bk0/statistics/tx_packets
	echo "  sent $SENT packets in $((SECONDS - t))s; $((n - p0)) left toward the backend"
	((n - p0 > 0)) || { fail conn "zero packets left toward the backend: kmaglev forwarded nothing"; return 1; }
	((n - p0 >= NFLOWS_1M * 99 / 100)) ||
		NOTE[conn]="only $((n - p0)) of $NFLOWS_1M packets left toward the backend"
	out=$(cat /sys/kernel/debug/kmaglev/objects 2>&1) ||
		{ fail conn "cannot read /sys/kernel/debug/kmaglev/objects: $out"; return 1; }
	echo "$out" | sed 's/^/  debugfs objects: /'
	n=$(awk '$1 == "conns" { print $2 }' <<<"$out")
	b=$(awk '$1 == "conn_bytes" { print $2 }' <<<"$out")
	out=$("$CLI" config show 2>&1)
	cli=$(grep -oE '(^| )conns [0-9]+' <<<"$out" | head -n1 | tr -dc 0-9)
	if [[ -z $n || -z $b ]]; then
		fail conn "no 'conns N' and 'conn_bytes B' lines in /sys/kernel/debug/kmaglev/objects"
		return 1
	elif ((n < 1000000)); then
		fail conn "only $n connection entries after $NFLOWS_1M distinct flows (need >= 1000000)"
	fi
	if [[ -z $cli ]]; then
		NOTE[conn]="'kmaglev config show' has no conns count to cross-check"
	elif [[ $cli != "$n" ]]; then
		NOTE[conn]="'kmaglev config show' says conns $cli, debugfs says $n"
	fi
	printf 'CONN\t%s\t%s\t%s\n' "$n" "$b" "$cli" >>"$STATUS"
	[[ -z ${FAIL[conn]:-} ]]
}

# conn1m cycles through the 1,088,000 established flows (each packet finds a different
# entry), ipip-ref the 1000 flows of case 3, both in the same module with the same table.
run1m() {
	local c=$1 r=$2 g0
	[[ -z ${FAIL[$c]:-} ]] || return 0
	kmg_loaded || { fail "$c" "kmaglev was unloaded during the phase"; return; }
	if [[ $c == conn1m ]]; then
		gen_flows "${FLOWS_1M[@]}"
		gen_dst $VIP_CONN $PORT
		g0=$(gstats)
		measure conn1m "$r" bk0 20 "$NPKTS" &&
			path_check conn1m "conn-hit" "$(gdelta "$g0" "$(gstats)" conn-hit)" "$SENT"
	else
		gen_flows "${FLOWS_1K[@]}"
		gen_dst $VIP_IPIP $PORT
		gen_run $WARM
		measure ipip-ref "$r" bk0 20 "$NPKTS"
	fi
}

if [[ ${KMAGLEV_BENCH_CONN:-1} != 0 ]]; then
	if conn_fill; then
		echo "== forwarding over the 1M entries: $ROUNDS_1M rounds ($((SECONDS - T0))s)"
		for ((r = 1; r <= ROUNDS_1M; r++)); do
			run1m ipip-ref "$r"
			run1m conn1m "$r"
		done
	else
		fail conn1m "the 1M-entry table could not be filled: ${FAIL[conn]:-}"
		fail ipip-ref "the 1M-entry table could not be filled"
	fi
fi

# --- TCP through a VIP: iperf3, one stream, GSO on ------------------------------------------
# iperf3 from CL to BE_TCP directly (tcp-direct: the LB forwards it as a router) and to the VIP
# (tcp-vip: kmaglev in ingress mode on lbin, IPIP to BE_TCP, which answers the client
# directly), alternately, ROUNDS_TCP rounds of TCP_SECS guest seconds each. The veths keep
# their offloads (TSO, GSO, GRO): kmaglev sees the client's 64 KB aggregates. On one vCPU the
# client, the LB and the server share the instruction clock, so a run's figure is guest
# nanoseconds per kilobyte received of the whole path; its inverse is the throughput.
TCP_PID=/tmp/kmaglev-bench-iperf3.pid
tcp_run() {
	local c=$1 r=$2 dst=$3 out g0 kb='' ns='' pk
	g0=$(gstats)
	if ! out=$(timeout 120 ip netns exec $CL iperf3 -c "$dst" -p $TCP_PORT -t "$TCP_SECS" -J \
		--connect-timeout 5000 2>&1); then
		fail "$c" "iperf3 -c $dst failed: $(echo "$out" | grep -m1 -E '"error"|error' || echo "$out" | tail -n1)"
		return 1
	fi
	# (no process substitution: the guest has no /dev/fd)
	read -r kb ns <<<"$(python3 -c 'import json, sys
s = json.load(sys.stdin)["end"]["sum_received"]
print(int(s["bytes"]) // 1000, int(s["seconds"] * 1e9))' <<<"$out" 2>/dev/null)"
	if [[ -z $kb || -z $ns ]] || ((kb == 0 || ns == 0)); then
		fail "$c" "no bytes received in iperf3's report"
		return 1
	fi
	printf '  %4ds round %d %-13s %6d ns/KB (%d KB in %d ms, %s Mbit/s of the guest clock)\n' \
		$((SECONDS - T0)) "$r" "$c" $((ns / kb)) "$kb" $((ns / 1000000)) \
		"$(awk -v b="$kb" -v t="$ns" 'BEGIN { printf "%.0f", b * 8e3 / t * 1e3 }')"
	if [[ $c == tcp-vip ]]; then
		# GSO on: kmaglev sees the client's aggregates, not 1500-byte packets
		pk=$(gdelta "$g0" "$(gstats)" rx-ingress)
		((pk <= 0)) || echo "         kmaglev took $pk packets, $((kb / pk)) KB each on average"
		path_check "$c" "rx-ingress" "$pk" 1 || return 1
		[[ -z ${FAIL[$c]:-} ]] || return 1
	fi
	printf '%d\t%s\t%d\t%d\t0\t0\n' "$r" "$c" "$kb" "$ns" >>"$RUNS"
}
tcp_phase() {
	local r out
	echo "== TCP through a VIP: iperf3, $ROUNDS_TCP rounds of ${TCP_SECS}s ($((SECONDS - T0))s)"
	kmg_fresh || { fail tcp-vip "$KMG_ERR"; }
	if kmg_loaded && ! out=$("$CLI" service add $VIP_TCP:$TCP_PORT/tcp backend $BE_TCP encap ipip 2>&1); then
		fail tcp-vip "kmaglev service add $VIP_TCP:$TCP_PORT/tcp: $out"
	fi
	[[ -n ${FAIL[tcp-vip]:-} ]] || hook_ingress || fail tcp-vip "$HOOK_ERR"
	rm -f $TCP_PID
	ip netns exec $BE iperf3 -s -D -p $TCP_PORT -I $TCP_PID ||
		{ fail tcp-direct "iperf3 -s failed"; fail tcp-vip "iperf3 -s failed"; return; }
	sleep 1
	for ((r = 1; r <= ROUNDS_TCP; r++)); do
		if ((r % 2)); then
			tcp_run tcp-direct "$r" $BE_TCP
			[[ -n ${FAIL[tcp-vip]:-} ]] || tcp_run tcp-vip "$r" $VIP_TCP
		else
			[[ -n ${FAIL[tcp-vip]:-} ]] || tcp_run tcp-vip "$r" $VIP_TCP
			tcp_run tcp-direct "$r" $BE_TCP
		fi
	done
	[[ -s $TCP_PID ]] && kill "$(cat $TCP_PID)" 2>/dev/null
	kmg_loaded && hook_prerouting
}
((ROUNDS_TCP == 0)) || tcp_phase
kmg_unload

for c in "${!FAIL[@]}"; do printf 'FAIL\t%s\t%s\n' "$c" "${FAIL[$c]}"; done >>"$STATUS"
for c in "${!NOTE[@]}"; do printf 'NOTE\t%s\t%s\n' "$c" "${NOTE[$c]}"; done >>"$STATUS"
echo "== done ($((SECONDS - T0))s of guest time)"
