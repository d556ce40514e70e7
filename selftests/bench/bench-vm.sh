#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of `make bench`: selftests/bench/bench.sh boots Debian's stock kernel and runs this
# as root in the VM; see bench.sh for what is measured and why. It loads and unloads modules
# and runs pktgen: do not run it on a real host.
#
#   bench-vm.sh            set up the namespaces, then re-run itself inside the LB netns
#   bench-vm.sh inner      the measurements proper (in the LB netns)
#
# It writes raw results to KMAGLEV_BENCH_OUT (default .build/bench), which report.py turns
# into the table:
#   pktrate-runs.tsv   one line per measured run
#   pktrate-status.tsv FAIL (a case could not be measured, and why), NOTE, and CONN lines
# and, if KMAGLEV_BENCH_MARKS names a file, appends "start|end CASE ROUND" to it around every
# measured window, for the host's vcpu-time.py.
# Environment: KMAGLEV_KO (module; empty: there is none), KMAGLEV_BENCH_ROUNDS (10),
# KMAGLEV_BENCH_SECS (3: measured seconds per run).
# Exit status: 0 when the raw results are complete (cases that could not be measured are in
# the status file), 1 when the run itself broke.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
KO=${KMAGLEV_KO-$TOP/.build/stock/kmod/kmaglev.ko}
CLI=$TOP/userland/kmaglev
ROUNDS=${KMAGLEV_BENCH_ROUNDS:-10}
SECS=${KMAGLEV_BENCH_SECS:-3}
WARM=0.5			# seconds of traffic before each measured window
OUT=${KMAGLEV_BENCH_OUT:-$TOP/.build/bench}
MARKS=${KMAGLEV_BENCH_MARKS:-}
LB=kmg-lb CL=kmg-cl		# network namespaces: load balancer, client

die() { echo "bench: FATAL: $*" >&2; exit 1; }

# --- addresses ---------------------------------------------------------------------------
# lbin (LB) <-veth-> cl0 (client netns): clients are 10.1.0.0/16; pktgen injects on lbin.
# sink0 (dummy, LB): 198.51.100.0/24, where plain (non-VIP) traffic goes.
# bk0 (dummy, LB): 10.200.0.0/16, every backend. A dummy counts a packet and frees it.
DST_PLAIN=198.51.100.1
VIP_IPVS=10.100.0.1		# IPVS: a local address of the LB netns
VIP_IPIP=10.100.1.1		# kmaglev VIPs: not local, and no route in the LB netns
VIP_GRE=10.100.1.2
VIP_RB=10.100.1.3		# 100 backends; its table is rebuilt during case 6
VIP_CONN=10.100.1.7		# case 7
PORT=5000
BE_IPVS=10.200.0.1 BE_IPIP=10.200.0.2 BE_GRE=10.200.0.3 BE_CONN=10.200.0.7 BE_FILL=10.200.2.1
RB_BACKENDS=100			# 10.200.1.1 .. 10.200.1.100
NVIPS=1000			# kmaglev services configured in every loaded run
FRAME=64			# pktgen pkt_size: the frame, as the devices count it

# Flows: pktgen steps the source address and the source port by one each packet, so A
# addresses and P ports, A and P coprime, cycle through exactly A * P distinct 5-tuples.
FLOWS_1K=(10.1.0.1 10.1.0.8 10000 10125)	# 8 x 125 = 1000 flows (max port exclusive)
FLOWS_1M=(10.1.1.1 10.1.1.17 1024 65024)	# 17 x 64000 = 1,088,000 flows
NFLOWS_1M=1088000

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
pg_flows() { pg "src_min $1"; pg "src_max $2"; pg "udp_src_min $3"; pg "udp_src_max $4"; }
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

# measure CASE ROUND EGRESS EXTRA_BYTES [SERVICE]: one run, pktgen already set up. The rate
# is what left via EGRESS in the window. The case fails if nothing or too little of what pktgen
# generated over the whole run left (exact: pktgen's thread has finished every packet when it
# stops), or if packets to a backend leave without an outer header. With SERVICE, counts its
# table rebuilds (generations) in the window.
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
	printf '  round %d %-8s %7d pps wall (generated %d, %s%% forwarded, %s B/pkt%s)\n' \
		"$r" "$c" "$pps" "$gpps" "$fwd" "$bpp" "${svc:+, $REBUILDS rebuilds}"
	if ((SOFAR == 0)); then
		fail "$c" "pktgen generated no packets"
	elif awk -v f="$fwd" 'BEGIN { exit !(f < 1) }'; then
		fail "$c" "nothing was forwarded: pktgen sent $SOFAR packets, $((post - pre)) left via $eg$(
			[[ $c == @(ipip|gre|steady|rebuild) ]] && echo " (kmaglev forwarded nothing)")"
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
{
	echo "service add $VIP_IPIP:$PORT/udp backend $BE_IPIP encap ipip"
	echo "service add $VIP_GRE:$PORT/udp backend $BE_GRE encap gre"
	printf 'service add %s:%d/udp' $VIP_RB $PORT
	for ((i = 1; i <= RB_BACKENDS; i++)); do printf ' backend 10.200.1.%d encap ipip' "$i"; done
	echo
	# The rest of the NVIPS services, on the port and protocol of the non-VIP traffic, so
	# that a miss cannot be decided on the port alone. Small tables: no packet of the bench
	# uses them, and 997 default tables would take 3-4 s more to build at every load.
	for ((i = 0; i < NVIPS - 3; i++)); do
		echo "service add 10.100.$((2 + i / 250)).$((1 + i % 250)):$PORT/udp table-size 251 backend $BE_FILL"
	done
} >"$CONF"

KMG_ERR=		# why kmaglev cannot be loaded or configured: every kmaglev case fails
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
		echo "  kmaglev loaded, $NVIPS services configured in $((SECONDS - t))s"
		return 0
	fi
	return 1
}
kmg_unload() {
	kmg_loaded || return 0
	"$CLI" service flush >/dev/null 2>&1
	rmmod kmaglev || die "rmmod kmaglev failed: the unloaded baselines cannot be measured"
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

# run CASE ROUND: set up and measure one case, unless it has failed before.
run() {
	local c=$1 r=$2
	[[ -z ${FAIL[$c]:-} ]] || return 0
	pg_flows "${FLOWS_1K[@]}"
	case $c in
	plain)
		kmg_unload
		pg_dst $DST_PLAIN $PORT
		measure plain "$r" sink0 0 ;;
	ipvs)
		kmg_unload
		if ! { ipvsadm -C && ipvsadm -A -u $VIP_IPVS:$PORT -s mh &&
			ipvsadm -a -u $VIP_IPVS:$PORT -r $BE_IPVS -i; }; then
			fail ipvs "ipvsadm could not configure the service"
		else
			pg_dst $VIP_IPVS $PORT
			measure ipvs "$r" bk0 20
		fi
		ipvsadm -C ;;
	*)
		kmg_load || { fail "$c" "$KMG_ERR"; return; }
		case $c in
		nonvip) pg_dst $DST_PLAIN $PORT; measure nonvip "$r" sink0 0 ;;
		ipip) pg_dst $VIP_IPIP $PORT; measure ipip "$r" bk0 20 ;;
		gre) pg_dst $VIP_GRE $PORT; measure gre "$r" bk0 24 ;;
		steady|rebuild)
			pg_dst $VIP_RB $PORT
			loop_start "$c"
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
		esac ;;
	esac
}

# The unloaded cases first, plain next to nonvip (the pair of case 5).
# KMAGLEV_BENCH_CASES picks a subset (for quick comparisons while developing).
read -r -a CASES <<<"${KMAGLEV_BENCH_CASES:-ipvs plain nonvip ipip gre steady rebuild}"
echo "== packet rate: $ROUNDS rounds of ${SECS}s runs (after ${WARM}s of warm-up), 64-byte UDP, 1000 flows"
echo "   module ${KO:-(none)}"
for ((r = 1; r <= ROUNDS; r++)); do
	echo "-- round $r/$ROUNDS"
	# Odd rounds in one order, even rounds in the reverse order (ABBA): no case always runs
	# first, and the module is loaded or unloaded once per round.
	for ((i = 0; i < ${#CASES[@]}; i++)); do
		if ((r % 2)); then c=${CASES[i]}; else c=${CASES[${#CASES[@]} - 1 - i]}; fi
		run "$c" "$r"
	done
done

# --- case 7: bytes per connection entry at 1M entries -------------------------------------
conn_case() {
	local out t deadline p0 p1 n b cli
	echo "== connection table: $NFLOWS_1M distinct UDP flows, one packet each, to $VIP_CONN:$PORT"
	kmg_unload	# a fresh module: no entries left from the rounds
	kmg_load || { fail conn "$KMG_ERR"; return; }
	out=$("$CLI" config set conn-max 2000000 2>&1) ||
		{ fail conn "kmaglev config set conn-max 2000000: $out"; return; }
	out=$("$CLI" service add $VIP_CONN:$PORT/udp backend $BE_CONN encap ipip 2>&1) ||
		{ fail conn "kmaglev service add: $out"; return; }
	pg_flows "${FLOWS_1M[@]}"
	pg_dst $VIP_CONN $PORT
	pg "count $NFLOWS_1M"
	read -r p0 </sys/class/net/bk0/statistics/tx_packets
	t=$SECONDS deadline=$((SECONDS + 240))
	pg_start
	while nap 1; do
		pg_sofar
		((SOFAR < NFLOWS_1M)) || break
		((SECONDS < deadline)) ||
			{ fail conn "pktgen sent only $SOFAR of $NFLOWS_1M packets in 240s"; break; }
	done
	pg_stop
	pg "count 0"
	read -r p1 </sys/class/net/bk0/statistics/tx_packets
	echo "  sent $SOFAR packets in $((SECONDS - t))s; $((p1 - p0)) left toward the backend"
	[[ -z ${FAIL[conn]:-} ]] || return
	((p1 - p0 > 0)) || { fail conn "zero packets left toward the backend: kmaglev forwarded nothing"; return; }
	((p1 - p0 >= NFLOWS_1M * 99 / 100)) ||
		NOTE[conn]="only $((p1 - p0)) of $NFLOWS_1M packets left toward the backend"
	out=$(cat /sys/kernel/debug/kmaglev/objects 2>&1) ||
		{ fail conn "cannot read /sys/kernel/debug/kmaglev/objects: $out"; return; }
	echo "$out" | sed 's/^/  debugfs objects: /'
	n=$(awk '$1 == "conns" { print $2 }' <<<"$out")
	b=$(awk '$1 == "conn_bytes" { print $2 }' <<<"$out")
	out=$("$CLI" config show 2>&1)
	echo "  kmaglev config show: $out"
	cli=$(grep -oE '(^| )conns [0-9]+' <<<"$out" | head -n1 | tr -dc 0-9)
	if [[ -z $n || -z $b ]]; then
		fail conn "no 'conns N' and 'conn_bytes B' lines in /sys/kernel/debug/kmaglev/objects"
		return
	elif ((n < 1000000)); then
		fail conn "only $n connection entries after $NFLOWS_1M distinct flows (need >= 1000000)"
	fi
	if [[ -z $cli ]]; then
		NOTE[conn]="'kmaglev config show' has no conns count to cross-check"
	elif [[ $cli != "$n" ]]; then
		NOTE[conn]="'kmaglev config show' says conns $cli, debugfs says $n"
	fi
	printf 'CONN\t%s\t%s\t%s\n' "$n" "$b" "$cli" >>"$STATUS"
}
[[ ${KMAGLEV_BENCH_CONN:-1} == 0 ]] || conn_case
kmg_unload

for c in "${!FAIL[@]}"; do printf 'FAIL\t%s\t%s\n' "$c" "${FAIL[$c]}"; done >>"$STATUS"
for c in "${!NOTE[@]}"; do printf 'NOTE\t%s\t%s\n' "$c" "${NOTE[$c]}"; done >>"$STATUS"
echo "== done"
