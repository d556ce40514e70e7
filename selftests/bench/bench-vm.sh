#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of `make bench`: selftests/bench/bench.sh boots Debian's stock kernel and runs this
# as root in the VM; see bench.sh for what is measured and why. It loads and unloads modules
# and runs pktgen: do not run it on a real host.
#
#   bench-vm.sh            set up the namespaces, then re-run itself inside the LB netns
#   bench-vm.sh inner      the measurements proper (in the LB netns)
#
# It writes raw results to KMAGLEV_BENCH_OUT (default build/bench), which report.py turns
# into the table:
#   pktrate-runs.tsv   one line per measured run
#   pktrate-status.tsv FAIL (a case could not be measured, and why), NOTE, and CONN lines
# and, if KMAGLEV_BENCH_MARKS names a file, appends "start|end CASE ROUND" to it around every
# measured window, for the host's vcpu-time.py.
# Environment: KMAGLEV_KO (module; empty: there is none), KMAGLEV_BENCH_ROUNDS (10: rounds at
# most), KMAGLEV_BENCH_ROUNDS_UNTIL (780: no pair of rounds starts later, in seconds since the
# start, once 4 rounds have run), KMAGLEV_BENCH_SECS (3: measured seconds per run),
# KMAGLEV_BENCH_CASES (a subset of the cases of the rounds), KMAGLEV_BENCH_NONVIP_MAX (40:
# rounds of the non-VIP pair at most), KMAGLEV_BENCH_NONVIP_SECS (300: seconds its extra
# rounds may take), KMAGLEV_BENCH_NONVIP_UNTIL (1050: no extra round starts later),
# KMAGLEV_BENCH_1M_ROUNDS (6: rounds of the 1M-entry pair at most), KMAGLEV_BENCH_1M_UNTIL
# (1320: no pair of them starts later, once 2 have run), KMAGLEV_BENCH_CONN (0: skip the
# 1M-entry phase). The time limits keep the whole bench under 25 minutes on a loaded host.
# Exit status: 0 when the raw results are complete (cases that could not be measured are in
# the status file), 1 when the run itself broke.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KO=${KMAGLEV_KO-$TOP/build/stock/kmod/kmaglev.ko}
CLI=$TOP/build/kmaglev
ROUNDS=${KMAGLEV_BENCH_ROUNDS:-10}
ROUNDS_UNTIL=${KMAGLEV_BENCH_ROUNDS_UNTIL:-780}
SECS=${KMAGLEV_BENCH_SECS:-3}
NV_MAX=${KMAGLEV_BENCH_NONVIP_MAX:-40}
NV_SECS=${KMAGLEV_BENCH_NONVIP_SECS:-300}
NV_UNTIL=${KMAGLEV_BENCH_NONVIP_UNTIL:-1050}
ROUNDS_1M=${KMAGLEV_BENCH_1M_ROUNDS:-6}
UNTIL_1M=${KMAGLEV_BENCH_1M_UNTIL:-1320}
WARM=0.5			# seconds of traffic before each measured window
OUT=${KMAGLEV_BENCH_OUT:-$TOP/build/bench}
MARKS=${KMAGLEV_BENCH_MARKS:-}
LB=kmg-lb CL=kmg-cl		# network namespaces: load balancer, client

die() { echo "bench: FATAL: $*" >&2; exit 1; }

T0=$SECONDS	# (SECONDS counts from the start of the inner script)

# --- addresses ---------------------------------------------------------------------------
# lbin (LB) <-veth-> cl0 (client netns): clients are 10.1.0.0/16; pktgen injects on lbin.
# New-flow clients are anywhere in 11.0.0.0/8 (a /8 that holds no address of the bench),
# routed back through lbin.
# sink0 (dummy, LB): 198.51.100.0/24, where plain (non-VIP) traffic goes.
# bk0 (dummy, LB): 10.200.0.0/16, every backend. A dummy counts a packet and frees it.
DST_PLAIN=198.51.100.1
VIP_IPVS=10.100.0.1		# IPVS: a local address of the LB netns
VIP_IPIP=10.100.1.1		# kmaglev VIPs: not local, and no route in the LB netns
VIP_GRE=10.100.1.2
VIP_RB=10.100.1.3		# 100 backends; its table is rebuilt during case 6
VIP_NEW=10.100.1.4		# the new-flow cases (7)
VIP_CONN=10.100.1.7		# the 1M-entry phase (8, 9)
PORT=5000
BE_IPVS=10.200.0.1 BE_IPIP=10.200.0.2 BE_GRE=10.200.0.3 BE_NEW=10.200.0.4 BE_CONN=10.200.0.7
BE_FILL=10.200.2.1
RB_BACKENDS=100			# 10.200.1.1 .. 10.200.1.100
NVIPS=1000			# kmaglev services configured in every loaded run
FRAME=64			# pktgen pkt_size: the frame, as the devices count it

# Flows: pktgen steps the source address and the source port by one each packet, so A
# addresses and P ports, A and P coprime, cycle through exactly A * P distinct 5-tuples.
FLOWS_1K=(10.1.0.1 10.1.0.8 10000 10125)	# 8 x 125 = 1000 flows (max port exclusive)
FLOWS_1M=(10.1.1.1 10.1.1.17 1024 65024)	# 17 x 64000 = 1,088,000 flows
NFLOWS_1M=1088000
# New flows: a random source address in the /8 and a random source port for every packet
# (pktgen's IPSRC_RND and UDPSRC_RND): 2^40 5-tuples, so every packet starts a flow.
FLOWS_NEW=(11.0.0.1 11.255.255.254 1024 65535)
NEW_CONN_MAX=4000000		# conn-max above the flow count (a run sends well under 1M)
FULL_CONN_MAX=1000		# conn-max below it: the table is full within a millisecond
FLOOD_RATE=10			# flood-rate: new entries per second before flood mode

if [[ ${1:-} != inner ]]; then
	[[ $(id -u) -eq 0 ]] || die "must run as root (in the VM)"
	modprobe -a pktgen dummy veth ip_vs ip_vs_mh ip_tunnel ip6_tunnel tunnel4 tunnel6 gre \
		ip_gre ip6_gre ipip nf_defrag_ipv4 nf_defrag_ipv6 || die "modprobe failed"
	for ns in $LB $CL; do
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
	# This shell and all it starts stay off CPU 0, where pktgen's thread runs.
	taskset -pc 1 $$ >/dev/null || die "taskset"
	ip netns exec $LB "$0" inner
	rc=$?
	ip netns del $LB
	ip netns del $CL
	exit $rc
fi

# --- inside the LB netns ---------------------------------------------------------------
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p "$OUT" || die "cannot create $OUT"
RUNS=$OUT/pktrate-runs.tsv
STATUS=$OUT/pktrate-status.tsv
printf 'round\tcase\tpps\tgenerated_pps\tbytes_per_pkt\trebuilds\tpackets\tsecs\n' >"$RUNS"
: >"$STATUS"

PGCTRL=/proc/net/pktgen/pgctrl
PGTHR=/proc/net/pktgen/kpktgend_0
PGDEV=/proc/net/pktgen/lbin
PG_PID=
LOOP_PIDS=()

pg() { echo "$*" >"$PGDEV" || die "pktgen: '$*' refused"; }
pg_start() { echo start >"$PGCTRL" & PG_PID=$!; }
pg_stop() { echo stop >"$PGCTRL"; wait "$PG_PID" 2>/dev/null; PG_PID=; }
# pkts-sofar of the pktgen device, into SOFAR; no fork, so samples are tight.
pg_sofar() {
	local l
	SOFAR=0
	while read -r l; do
		[[ $l =~ ^pkts-sofar:\ ([0-9]+) ]] && { SOFAR=${BASH_REMATCH[1]}; return; }
	done <"$PGDEV"
}
pg_range() { pg "src_min $1"; pg "src_max $2"; pg "udp_src_min $3"; pg "udp_src_max $4"; }
# Stepped flows (see FLOWS_1K), or random ones (FLOWS_NEW).
pg_flows() { pg "flag !IPSRC_RND"; pg "flag !UDPSRC_RND"; pg_range "$@"; }
pg_rnd() { pg_range "$@"; pg "flag IPSRC_RND"; pg "flag UDPSRC_RND"; }
pg_dst() { pg "dst_min $1"; pg "dst_max $1"; pg "udp_dst_min $2"; pg "udp_dst_max $2"; }

mark() { [[ -z $MARKS ]] || echo "$*" >>"$MARKS"; }
# sleep without a fork and exec (which take a while on a busy TCG guest): wait on a FIFO that
# is never written.
NAP=/tmp/kmaglev-bench.nap
rm -f "$NAP" && mkfifo "$NAP" && exec 9<>"$NAP" || die "mkfifo $NAP"
nap() { read -r -t "$1" -u 9 _; :; }

cleanup() {
	[[ -n $PG_PID ]] && pg_stop
	[[ ${#LOOP_PIDS[@]} -eq 0 ]] || loop_stop
}
trap cleanup EXIT

echo rem_device_all >"$PGTHR" && echo "add_device lbin" >"$PGTHR" || die "pktgen: add_device lbin"
read -r LBIN_MAC </sys/class/net/lbin/address
pg "xmit_mode netif_receive"
pg "count 0"
pg "pkt_size $FRAME"
pg "burst 1"
pg "delay 0"
pg "dst_mac $LBIN_MAC"
pg "flag NO_TIMESTAMP"

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
gstats() {
	"$CLI" stats 2>/dev/null | awk -f "$TOP/selftests/net/gstats.awk"
}
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
# IPVS's connections to its real server (ActiveConn + InActConn: exact at once, where the
# --stats counters wait for its 2-second estimator), into IPVS_CONNS (-1: unknown).
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

# measure CASE ROUND EGRESS EXTRA_BYTES [SERVICE]: one run, pktgen already set up. The rate
# is what left via EGRESS in the window. The case fails if nothing or too little of what pktgen
# generated over the whole run left (exact: pktgen's thread has finished every packet when it
# stops), or if packets to a backend leave without an outer header. With SERVICE, counts its
# table rebuilds (generations) in the window. SOFAR is then what pktgen sent in the run.
# A device's transmitted packets and bytes from one read of /proc/net/dev, so both counters
# are of the same instant (two sysfs reads apart, a loaded guest skews bytes per packet).
txstat() {
	local line
	line=$(grep -E "^ *$1:" /proc/net/dev)
	read -r TXB TXP <<<"$(echo "${line#*:}" | awk '{ print $9, $10 }')"
}

REBUILDS=0
measure() {
	local c=$1 r=$2 eg=$3 extra=$4 svc=${5:-} t0 t1 p0 p1 b0 b1 g0 g1 gen0=0 gen1=0 pre post
	local st=/sys/class/net/$eg/statistics pkts secs pps gpps bpp fwd exp=$((FRAME + extra))
	read -r pre <"$st/tx_packets"
	pg_start
	nap "$WARM"
	[[ -z $svc ]] || { svc_gen "$svc"; gen0=$GEN; }
	mark "start $c $r"
	t0=$EPOCHREALTIME
	txstat "$eg"; p0=$TXP b0=$TXB; pg_sofar; g0=$SOFAR
	nap "$SECS"
	mark "end $c $r"
	t1=$EPOCHREALTIME
	txstat "$eg"; p1=$TXP b1=$TXB; pg_sofar; g1=$SOFAR
	[[ -z $svc ]] || { svc_gen "$svc"; gen1=$GEN; }
	pg_stop
	pg_sofar
	read -r post <"$st/tx_packets"
	pkts=$((p1 - p0)) REBUILDS=$((gen1 - gen0))
	# (no process substitution: the guest has no /dev/fd)
	read -r secs pps gpps bpp fwd <<<"$(awk -v t0="$t0" -v t1="$t1" -v p=$pkts -v b=$((b1 - b0)) \
		-v g=$((g1 - g0)) -v all=$((post - pre)) -v sent="$SOFAR" 'BEGIN {
		d = t1 - t0
		printf "%.6f %.0f %.0f %.1f %.1f\n", d, p / d, g / d, (p ? b / p : 0), (sent ? 100 * all / sent : 0)
	}')"
	printf '  %4ds round %d %-9s %7d pps wall (generated %d, %s%% forwarded, %s B/pkt%s)\n' \
		$((SECONDS - T0)) "$r" "$c" "$pps" "$gpps" "$fwd" "$bpp" "${svc:+, $REBUILDS rebuilds}"
	if ((SOFAR == 0)); then
		fail "$c" "pktgen generated no packets"
	elif awk -v f="$fwd" 'BEGIN { exit !(f < 1) }'; then
		fail "$c" "nothing was forwarded: pktgen sent $SOFAR packets, $((post - pre)) left via $eg$(
			[[ $c != @(plain|ipvs|ipvs-new) ]] && echo " (kmaglev forwarded nothing)")"
	elif awk -v f="$fwd" 'BEGIN { exit !(f < 99) }'; then
		fail "$c" "only $fwd% of the packets pktgen sent left via $eg ($((post - pre)) of $SOFAR)"
	elif ((extra)) && awk -v b="$bpp" -v m=$((FRAME + 20)) 'BEGIN { exit !(b < m - 0.5) }'; then
		fail "$c" "packets leave via $eg with $bpp bytes, expected $exp: not encapsulated"
	elif awk -v b="$bpp" -v e=$exp 'BEGIN { exit !(b < e - 0.5 || b > e + 0.5) }'; then
		NOTE[$c]="$bpp bytes per packet via $eg, expected $exp"
	fi
	[[ -z ${FAIL[$c]:-} ]] || return 1
	printf '%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n' "$r" "$c" "$pps" "$gpps" "$bpp" "$REBUILDS" \
		"$pkts" "$secs" >>"$RUNS"
}

# --- kmaglev: one configuration for every loaded run --------------------------------------
CONF=/tmp/kmaglev-bench.conf
NFIXED=5	# the services below before the fillers
{
	echo "service add $VIP_IPIP:$PORT/udp backend $BE_IPIP encap ipip"
	echo "service add $VIP_GRE:$PORT/udp backend $BE_GRE encap gre"
	printf 'service add %s:%d/udp' $VIP_RB $PORT
	for ((i = 1; i <= RB_BACKENDS; i++)); do printf ' backend 10.200.1.%d encap ipip' "$i"; done
	echo
	echo "service add $VIP_NEW:$PORT/udp backend $BE_NEW encap ipip"
	echo "service add $VIP_CONN:$PORT/udp backend $BE_CONN encap ipip"
	# The rest of the NVIPS services, on the port and protocol of the non-VIP traffic, so
	# that a miss cannot be decided on the port alone. Small tables: no packet of the bench
	# uses them, and 995 default tables would take 3-4 s more to build at every load.
	for ((i = 0; i < NVIPS - NFIXED; i++)); do
		echo "service add 10.100.$((2 + i / 250)).$((1 + i % 250)):$PORT/udp table-size 251 backend $BE_FILL"
	done
} >"$CONF"

KMG_ERR=		# why kmaglev cannot be loaded or configured: every kmaglev case fails
CONN_MAX_DEF=		# the module's default conn-max (restored after the new-flow cases)
kmg_loaded() { [[ -d /sys/module/kmaglev ]]; }
kmg_load() {
	kmg_loaded && return 0
	[[ -z $KMG_ERR ]] || return 1
	local out t=$SECONDS
	if [[ -z $KO || ! -f $KO ]]; then
		KMG_ERR="no kmaglev.ko (${KO:-the module did not build})"
	elif ! out=$(insmod "$KO" 2>&1); then
		KMG_ERR="insmod $KO failed: $out"
	elif ! out=$("$CLI" -b "$CONF" 2>&1); then
		KMG_ERR="configuring $NVIPS services failed: $out"
	else
		[[ -n $CONN_MAX_DEF ]] ||
			CONN_MAX_DEF=$("$CLI" config show | grep -oE '(^| )conn-max [0-9]+' | tr -dc 0-9)
		echo "  $((SECONDS - T0))s kmaglev loaded, $NVIPS services configured in $((SECONDS - t))s"
		return 0
	fi
	return 1
}
kmg_unload() {
	kmg_loaded || return 0
	"$CLI" service flush >/dev/null 2>&1
	rmmod kmaglev || die "rmmod kmaglev failed: the unloaded baselines cannot be measured"
}

# Ingress mode (cases 3i, 4i): kmaglev's hook at NF_NETDEV_INGRESS on lbin instead of
# PRE_ROUTING. A module or CLI without it refuses the setting: those cases are not measured.
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

# Case 6 keeps CPU 1 busy with a userspace spin loop in both runs: under TCG a busy vCPU takes
# a host core that the vCPU running pktgen may need, so both runs must load the host alike
# whether the rebuilds keep CPU 1 busy or mostly sleep. "rebuild" adds, also on CPU 1, one
# batch-mode CLI fed an endless stream of weight changes of one backend, 1 -> 2 -> 1 ...;
# each change is one build of the 65537-slot table, published with an RCU pointer swap.
# Both run at nice 19, so that this shell still samples its counters on time.
LOOP_FIFO=/tmp/kmaglev-bench-loop.fifo
LOOP_ERR=/tmp/kmaglev-bench-loop.err
loop_start() {
	: >"$LOOP_ERR"
	nice -n 19 bash -c 'while :; do :; done' &
	LOOP_PIDS=($!)
	[[ $1 == rebuild ]] || return 0
	rm -f "$LOOP_FIFO" && mkfifo "$LOOP_FIFO" || die "mkfifo"
	nice -n 19 "$CLI" -b "$LOOP_FIFO" >/dev/null 2>"$LOOP_ERR" &
	LOOP_PIDS+=($!)
	{ while :; do
		echo "backend set $VIP_RB:$PORT/udp 10.200.1.1 weight 2"
		echo "backend set $VIP_RB:$PORT/udp 10.200.1.1 weight 1"
	done >"$LOOP_FIFO"; } 2>/dev/null &
	LOOP_PIDS+=($!)
}
loop_stop() {
	local p
	# All of them: the CLI would otherwise work through the changes still in the pipe.
	for p in "${LOOP_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${LOOP_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	LOOP_PIDS=()
}
# The rebuilds have begun (the CLI takes a while to start on a busy guest): up to 20 s.
loop_wait() {
	local g t=$((SECONDS + 20))
	svc_gen "$1"; g=$GEN
	while ((SECONDS < t)); do
		nap 0.2
		svc_gen "$1"
		((GEN == g)) || return 0
	done
	return 1
}

ipvs_setup() {
	modprobe -a ip_vs ip_vs_mh && ipvsadm -C && ipvsadm -A -u $VIP_IPVS:$PORT -s mh &&
		ipvsadm -a -u $VIP_IPVS:$PORT -r $BE_IPVS -i
}

# run CASE ROUND: set up and measure one case, unless it has failed before.
run() {
	local c=$1 r=$2 g0 g1 i0 cfg
	[[ -z ${FAIL[$c]:-} ]] || return 0
	pg_flows "${FLOWS_1K[@]}"
	case $c in
	plain)
		kmg_unload
		pg_dst $DST_PLAIN $PORT
		measure plain "$r" sink0 0 ;;
	ipvs|ipvs-new)
		kmg_unload
		if ! ipvs_setup; then
			fail "$c" "ipvsadm could not configure the service"
			ipvsadm -C
			return
		fi
		pg_dst $VIP_IPVS $PORT
		if [[ $c == ipvs ]]; then
			measure ipvs "$r" bk0 20
			ipvsadm -C
			return
		fi
		pg_rnd "${FLOWS_NEW[@]}"
		ipvs_conns; i0=$IPVS_CONNS
		measure ipvs-new "$r" bk0 20 && ipvs_conns &&
			path_check ipvs-new "IPVS's connection count" \
				$((i0 < 0 || IPVS_CONNS < 0 ? -1 : IPVS_CONNS - i0)) "$SOFAR"
		# Its connections stay for the UDP timeout (5 min): unloading IPVS drops them,
		# so that they do not pile up over the rounds nor expire during other cases.
		i0=$SECONDS
		ipvsadm -C
		rmmod ip_vs_mh ip_vs || NOTE[ipvs-new]="rmmod ip_vs failed: its connections stay"
		echo "  $((SECONDS - T0))s IPVS unloaded with its connections in $((SECONDS - i0))s" ;;
	*)
		kmg_load || { fail "$c" "$KMG_ERR"; return; }
		case $c in
		nonvip) pg_dst $DST_PLAIN $PORT; measure nonvip "$r" sink0 0 ;;
		ipip) pg_dst $VIP_IPIP $PORT; measure ipip "$r" bk0 20 ;;
		gre) pg_dst $VIP_GRE $PORT; measure gre "$r" bk0 24 ;;
		ipip-ing|gre-ing)
			hook_ingress || { fail "$c" "$HOOK_ERR"; return; }
			if [[ $c == ipip-ing ]]; then
				pg_dst $VIP_IPIP $PORT; cfg=20
			else
				pg_dst $VIP_GRE $PORT; cfg=24
			fi
			g0=$(gstats)
			inreceives; i0=$INRECV
			measure "$c" "$r" bk0 "$cfg" && {
				inreceives
				g1=$(gstats)
				# The early path counts what it takes in rx-ingress, and those
				# packets never reach ip_rcv (Ip InReceives).
				path_check "$c" "rx-ingress" "$(gdelta "$g0" "$g1" rx-ingress)" "$SOFAR"
				i0=$((INRECV - i0))
				((i0 < SOFAR / 10)) || fail "$c" \
					"$i0 of the $SOFAR packets went through ip_rcv: ingress mode did not take them"
			}
			hook_prerouting ;;
		steady|rebuild)
			pg_dst $VIP_RB $PORT
			loop_start "$c"
			if [[ $c == rebuild ]] && ! loop_wait "$VIP_RB:$PORT/udp"; then
				fail rebuild "no table was rebuilt in the 20 s after the weight-change loop started$(
					[[ -s $LOOP_ERR ]] && echo ": $(head -n1 "$LOOP_ERR")")"
				loop_stop
				return
			fi
			measure "$c" "$r" bk0 20 "$VIP_RB:$PORT/udp"
			loop_stop
			[[ -z ${FAIL[$c]:-} ]] || return
			if [[ $c == rebuild && -s $LOOP_ERR ]]; then
				fail rebuild "the weight-change loop failed: $(head -n1 "$LOOP_ERR")"
			elif [[ $c == rebuild && $REBUILDS -eq 0 ]]; then
				fail rebuild "no table was rebuilt in the window (the generation did not move)"
			elif [[ $c == steady && $REBUILDS -ne 0 ]]; then
				NOTE[steady]="the table was rebuilt during a steady run"
			fi ;;
		new|new-full|new-flood)
			case $c in
			new) cfg="conn-max $NEW_CONN_MAX flood-rate 0" ;;
			new-full) cfg="conn-max $FULL_CONN_MAX flood-rate 0" ;;
			new-flood) cfg="conn-max $NEW_CONN_MAX flood-rate $FLOOD_RATE" ;;
			esac
			# shellcheck disable=SC2086
			if ! i0=$("$CLI" config set $cfg 2>&1); then
				fail "$c" "kmaglev config set $cfg: $i0"
				return
			fi
			pg_rnd "${FLOWS_NEW[@]}"
			pg_dst $VIP_NEW $PORT
			g0=$(gstats)
			measure "$c" "$r" bk0 20 && {
				g1=$(gstats)
				case $c in
				new) path_check new "conn-new" "$(gdelta "$g0" "$g1" conn-new)" "$SOFAR" ;;
				new-full) path_check new-full "conn-table-full" \
					"$(gdelta "$g0" "$g1" conn-table-full)" "$SOFAR" ;;
				new-flood) path_check new-flood "conn-flood" \
					"$(gdelta "$g0" "$g1" conn-flood)" "$SOFAR" ;;
				esac
			}
			"$CLI" config set conn-max "${CONN_MAX_DEF:-1048576}" flood-rate 0 >/dev/null ||
				kmg_unload ;;
		esac ;;
	esac
}

# --- the rounds ----------------------------------------------------------------------------
# Three groups, each next to its baseline: kmaglev's new-flow cases (module loaded), the
# unloaded cases (IPVS new flows next to them, plain next to nonvip), and kmaglev's
# 1000-flow cases. Odd rounds run the list forwards, even rounds backwards (ABBA): no case
# always runs first, the module is loaded twice every two rounds, and the new-flow cases
# never share a load with the 1000-flow ones (their entries would stay in the table).
# KMAGLEV_BENCH_CASES picks a subset (for quick comparisons while developing).
read -r -a CASES <<<"${KMAGLEV_BENCH_CASES:-new new-full new-flood ipvs-new ipvs plain nonvip ipip gre ipip-ing gre-ing steady rebuild}"
has_case() { [[ " ${CASES[*]} " == *" $1 "* ]]; }
echo "== packet rate: $ROUNDS rounds of ${SECS}s runs (after ${WARM}s of warm-up), 64-byte UDP, 1000 flows"
echo "   module ${KO:-(none)}"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2 && r > 4 && SECONDS - T0 > ROUNDS_UNTIL)); then
		echo "-- no more rounds: the bench has run for ${ROUNDS_UNTIL}s"
		break
	fi
	echo "-- round $r/$ROUNDS ($((SECONDS - T0))s)"
	for ((i = 0; i < ${#CASES[@]}; i++)); do
		if ((r % 2)); then c=${CASES[i]}; else c=${CASES[${#CASES[@]} - 1 - i]}; fi
		run "$c" "$r"
	done
done
NRUN=$((r - 1))
printf 'ROUNDS\t%s\t%s\n' "$NRUN" "$ROUNDS" >>"$STATUS"

# --- case 5: more rounds of the non-VIP pair until its ratio is settled ----------------------
# report.py --settle decides on the same per-round ratios (per vCPU-second when the host's
# vcpu.tsv has the windows) as the report: settled, once there are 10 rounds, when the
# interquartile range of nonvip/plain is under 3% of its median or the middle half of the
# rounds is on one side of 3% overhead.
# At most NV_MAX rounds in all, NV_SECS seconds of extra rounds, and none starts after NV_UNTIL
# seconds of the bench (the 1M-entry phase that follows takes about 3 minutes).
nonvip_settle() {
	local out n=0 med q1 q3 iqr settled why t=$SECONDS r=$NRUN
	while :; do
		nap 0.3		# the host's vcpu-time.py records the last window's end
		out=$(python3 "$HERE/report.py" --settle "$OUT" nonvip plain 3 2>&1)
		read -r n med q1 q3 iqr settled why <<<"$out"
		[[ $settled == [01] ]] || { echo "  report.py --settle: $out"; why="report.py failed"; break; }
		echo "  nonvip/plain after $n rounds: median $med, quartiles $q1-$q3, IQR $iqr: $why"
		((settled)) && break
		((r < NV_MAX)) || { why="unsettled at the cap of $NV_MAX rounds"; break; }
		((SECONDS - t < NV_SECS)) || { why="unsettled after ${NV_SECS}s of extra rounds"; break; }
		((SECONDS - T0 < NV_UNTIL)) ||
			{ why="unsettled, and the bench has run for ${NV_UNTIL}s"; break; }
		r=$((r + 1))
		if ((r % 2)); then run plain "$r"; run nonvip "$r"; else run nonvip "$r"; run plain "$r"; fi
		[[ -z ${FAIL[plain]:-}${FAIL[nonvip]:-} ]] || { why="a run failed"; break; }
	done
	printf 'NONVIP\t%s\t%s\n' "$n" "$why" >>"$STATUS"
}
if has_case nonvip && has_case plain && [[ -z ${FAIL[plain]:-}${FAIL[nonvip]:-} ]]; then
	echo "== non-VIP overhead: rounds until settled ($((SECONDS - T0))s)"
	nonvip_settle
fi

# --- cases 8 and 9: 1M connection entries: bytes per entry, then forwarding over them ---------
conn_fill() {
	local out t deadline p0 p1 n b cli
	echo "== connection table: $NFLOWS_1M distinct UDP flows, one packet each, to $VIP_CONN:$PORT ($((SECONDS - T0))s)"
	kmg_unload	# a fresh module: no entries left from the rounds
	kmg_load || { fail conn "$KMG_ERR"; return 1; }
	# timeout-udp 1h: no entry expires during the phase, however slow the host
	out=$("$CLI" config set conn-max 2000000 timeout-udp 1h 2>&1) ||
		{ fail conn "kmaglev config set conn-max 2000000 timeout-udp 1h: $out"; return 1; }
	pg_flows "${FLOWS_1M[@]}"
	pg_dst $VIP_CONN $PORT
	pg "count $NFLOWS_1M"
	read -r p0 </sys/class/net/bk0/statistics/tx_packets
	t=$SECONDS deadline=$((SECONDS + 300))
	pg_start
	while nap 1; do
		pg_sofar
		((SOFAR < NFLOWS_1M)) || break
		((SECONDS < deadline)) ||
			{ fail conn "pktgen sent only $SOFAR of $NFLOWS_1M packets in 300s"; break; }
	done
	pg_stop
	pg "count 0"
	read -r p1 </sys/class/net/bk0/statistics/tx_packets
	echo "  sent $SOFAR packets in $((SECONDS - t))s; $((p1 - p0)) left toward the backend"
	[[ -z ${FAIL[conn]:-} ]] || return 1
	((p1 - p0 > 0)) || { fail conn "zero packets left toward the backend: kmaglev forwarded nothing"; return 1; }
	((p1 - p0 >= NFLOWS_1M * 99 / 100)) ||
		NOTE[conn]="only $((p1 - p0)) of $NFLOWS_1M packets left toward the backend"
	out=$(cat /sys/kernel/debug/kmaglev/objects 2>&1) ||
		{ fail conn "cannot read /sys/kernel/debug/kmaglev/objects: $out"; return 1; }
	echo "$out" | sed 's/^/  debugfs objects: /'
	n=$(awk '$1 == "conns" { print $2 }' <<<"$out")
	b=$(awk '$1 == "conn_bytes" { print $2 }' <<<"$out")
	out=$("$CLI" config show 2>&1)
	echo "  kmaglev config show: $out"
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

# run1m CASE ROUND: "conn1m" cycles through the 1,088,000 established flows (each packet
# finds a different entry, cache-cold), "ipip-ref" the 1000 flows of case 3, both in the
# same module with the same 1M-entry table.
run1m() {
	local c=$1 r=$2 g0 g1
	[[ -z ${FAIL[$c]:-} ]] || return 0
	kmg_loaded || { fail "$c" "kmaglev was unloaded during the phase"; return; }
	if [[ $c == conn1m ]]; then
		pg_flows "${FLOWS_1M[@]}"
		pg_dst $VIP_CONN $PORT
		g0=$(gstats)
		measure conn1m "$r" bk0 20 &&
			g1=$(gstats) &&
			path_check conn1m "conn-hit" "$(gdelta "$g0" "$g1" conn-hit)" "$SOFAR"
	else
		pg_flows "${FLOWS_1K[@]}"
		pg_dst $VIP_IPIP $PORT
		measure ipip-ref "$r" bk0 20
	fi
}

if [[ ${KMAGLEV_BENCH_CONN:-1} != 0 ]]; then
	if conn_fill; then
		echo "== forwarding over the 1M entries: $ROUNDS_1M rounds ($((SECONDS - T0))s)"
		for ((r = 1; r <= ROUNDS_1M; r++)); do
			((r % 2 == 0 || r < 3 || SECONDS - T0 <= UNTIL_1M)) || break
			if ((r % 2)); then run1m ipip-ref "$r"; run1m conn1m "$r"; else run1m conn1m "$r"; run1m ipip-ref "$r"; fi
		done
	else
		fail conn1m "the 1M-entry table could not be filled: ${FAIL[conn]:-}"
		fail ipip-ref "the 1M-entry table could not be filled"
	fi
fi
kmg_unload

for c in "${!FAIL[@]}"; do printf 'FAIL\t%s\t%s\n' "$c" "${FAIL[$c]}"; done >>"$STATUS"
for c in "${!NOTE[@]}"; do printf 'NOTE\t%s\t%s\n' "$c" "${NOTE[$c]}"; done >>"$STATUS"
echo "== done ($((SECONDS - T0))s)"
