#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: the data path's cost per packet against plain IP forwarding and IPVS, all
# measured in one boot of Debian's stock (non-debug) 6.1 kernel under QEMU. The guest half is
# bench-vm.sh, the tables report.py.
#
#   bench.sh                    every case (6 to 10 minutes on 2 cores: 5m37s, 5m43s, 10m1s)
#   bench.sh --quick [CASE...]  gen, plain, ipvs and the CASEs (default ipip-ing), 3 rounds of
#                               20,000 packets, no fills (about 2 minutes): for iterating on one mode
#   bench.sh --profile CASE     perf record of one run of CASE: build/bench/profile-CASE.txt
#   bench.sh --insns CASE       exact instructions per packet of each function, one run of
#                               CASE: build/bench/insns-CASE.txt (see "Where the time goes")
#
# The clock: QEMU runs the guest on its instruction counter (-icount shift=0,sleep=on, one
# vCPU): guest time advances 1 ns per guest instruction and skips idle time, so the time
# the generator measures for a run is the number of instructions the guest executed for it, whatever
# else the host runs. A case's figure is nanoseconds of that clock per packet, i.e.
# instructions per packet. Two runs of the same commit agree to a fraction of a percent on the
# steady cases (Documentation/perf.rst shows two). The price: every instruction weighs the
# same, so cache misses, branch mispredictions and the cost of a `rep stos` (one
# "instruction" per iteration) are not weighed as a real CPU would; wall-clock rates under TCG
# are no better (they are what the host has to spare), which is why there are none.
#
# What is measured (64-byte UDP; the LB is a network namespace). "1000 flows": 8 source
# addresses (10.1.0.1-8) x 125 source ports, exactly 1000 distinct 5-tuples.
#   gen   the generator alone: it hands each packet to the LB's receive path with a
#         destination MAC that is not the device's, and ip_rcv() drops it at its first check.
#         Its cost is taken off every other case's for that case's own ("corrected") cost.
#   plain plain IP forwarding, 1000 flows, out of a dummy device               (baseline)
#   ipvs  IPVS, mh scheduler, tunnel mode (-i), one real server, 1000 flows, connection hash
#         of 2^20 buckets; the VIP is local to the LB; entries made by the warm-up (baseline)
#   ipip, gre        kmaglev, one backend, 1000 flows, at PRE_ROUTING (the VIP is not local)
#   dr    kmaglev encap dr (L2 direct routing): the packet unchanged to the backend's address
#         on bk0 (a dummy: no neighbour resolution), at PRE_ROUTING
#   ipip-ing, gre-ing, dr-ing  the same in ingress mode (NF_NETDEV_INGRESS on lbin, before ip_rcv);
#         a run counts only if rx-ingress counted 90% of the packets and ip_rcv under a tenth
#   ipvs-nodf, ipip-ing-nodf  ipvs and ipip-ing with frames without DF. Every other case's
#         frames carry DF, as TCP's, QUIC's and Linux's UDP senders' do, so IPVS and kmaglev
#         give the outer header ID 0 (RFC 6864); without DF both take the kernel's ID
#         generator (__ip_select_ident(): a SipHash and a shared atomic per packet)
#   nonvip  the traffic of plain with kmaglev loaded and 1000 VIPs configured (those of the
#         other cases and 995 more on the same port and protocol)
#   steady, rebuild  a 100-backend service; rebuild: while a batch CLI at nice 19 changes one
#         backend's weight 1 -> 2 -> 1 ... (each change rebuilds its 65537-slot table); on one
#         vCPU the rebuilds' instructions are in the run's time
#   new-flow cases: every packet a new flow (source address and port at random: 2^40
#         5-tuples), 100,000 of them, each run in an empty table:
#     ipvs-new     IPVS as ipvs (a connection per flow), module reloaded before each run
#     new, new-ing kmaglev conn-max 4,000,000 (every packet inserts an entry), at PRE_ROUTING
#                  and in ingress mode
#     new-quota-ing  new-ing with per-source quotas on (quota-rate 1,000,000, burst 10,000,000,
#                  quota-prefix4 16: every new flow checked against one of 256 buckets, none
#                  refused; quota-drop must not grow)
#     new-full     conn-max 1000: the table is full, every packet takes the stateless fallback
#     new-flood    flood-rate 10: flood mode, untracked
#     ipvs-new-500k, new-500k, new-500k-ing: the same after 500,000 established flows were
#                  made (one packet each, not timed); 2 rounds
#     Each run must show its path in the counters for 90% of its packets (IPVS's connection
#     count; kmaglev's conn-new, conn-table-full, conn-flood) or it is NOT MEASURED.
#   conn1m, ipip-ref  1,088,000 entries (17 source addresses x 64000 ports, one packet each,
#         timeout-udp 1h) in one module; then conn1m steps through all of them (each packet
#         another entry) and ipip-ref sends the 1000 flows of ipip; 3 rounds
#   conn  bytes per connection entry at those entries: conn_bytes / conns from
#         /sys/kernel/debug/kmaglev/objects (entries as allocated plus the rhashtable's bucket
#         arrays), cross-checked with the conns of `kmaglev config show`
#   tcp-direct, tcp-vip  iperf3, one TCP stream, GSO and TSO on, from the client netns to a
#         real backend netns (it decapsulates IPIP and answers directly): routed by the LB to
#         the backend's own address, or through the VIP (kmaglev, ingress mode, IPIP); 3
#         rounds of 2 guest seconds. Its figure is guest ns per KB received for the whole path
#         (client, LB and server share the vCPU); its inverse is the throughput.
#         `--quick tcp` runs it alone (2 rounds).
#
# How packets are generated: kmaglev_inject.ko (kmod/tests/bench_inject.c), in the bench
# shell's write(): COUNT packets a run (50,000 for the steady cases, after 2,000 of warm-up),
# each a fresh skb handed to the LB's ingress veth's receive path as a NIC driver does, so
# nothing is queued or dropped on the way in. A run's time is the injector's own (ktime
# around its loop). KMAGLEV_BENCH_GEN=pktgen uses pktgen's netif_receive mode instead, which
# hands the stack the same skb again and again with an extra reference, so the stack copies
# its header before changing it (ip_rcv's skb_share_check(), then pskb_expand_head()) in
# plain, ipvs and kmaglev alike, not in gen; its frames carry no DF.
#
# --insns CASE: exact instruction counts. QEMU loads selftests/bench/insn-count.c (a TCG
# plugin, built into build/bench/) that counts each instruction address the vCPU executes
# between two markers, which kmaglev_inject.ko executes around the measured packets of the
# case's second run (mark=1). insns.py maps the addresses to the guest's symbols
# (/proc/kallsyms, modules included) and prints instructions per packet per function, and
# the window's total beside the injector's own timing of the loop (they agree within a
# fraction of a percent). The plugin counts a translation block's instructions as the block
# starts, so a block left midway counts its rest too: against a count made per instruction
# (a slower plugin, tried and not kept) that was 2-3 instructions a packet too many, in
# functions such as kmem_cache_alloc_node(). Everything the vCPU runs in the window counts: a timer or a worker
# that runs meanwhile shows up under its own name. perf record (--profile) samples on the
# same clock, but its shares are not instruction shares under TCG (skb_scrub_packet showed
# 4.8% of an ipip-ing packet, ~180 instructions; it executes 22): use --insns for costs.
#
# How packets are counted: the LB sends to dummy devices, sink0 (plain traffic) and bk0 (every
# backend), which count and free. A run fails (NOT MEASURED) if under 99% of its packets left
# or if packets to a backend lack the outer header (tx_bytes per packet: 64 plain, +20 IPIP,
# +24 GRE).
#
# Figures: a steady case's figure is its cheapest round (a timer or a worker that lands in
# one run only adds), a new-flow case's the mean of its rounds (its runs differ in which
# random flows they draw). The spread of the rounds is printed beside each.
#
# Targets (reported, never enforced): ingress mode's corrected cost <= 0.8x plain's, and
# >= 1.6x IPVS's rate; PRE_ROUTING >= 1.0x plain's rate; GRE within 5% of IPIP; non-VIP
# >= 0.99x; rebuilds >= 0.95x steady; new flows >= 2x IPVS's in both modes, empty and with
# 500k entries; 1M entries >= 0.9x the 1000 flows; <= 64 bytes per IPv4 entry. A case that
# cannot be measured is printed as NOT MEASURED with the reason, and the script exits 1.
#
# Output: the tables on stdout and in build/bench/report.txt, the summary alone in
# build/bench/summary.txt; the VM's log in build/bench/bench.log; raw results in
# build/bench/pktrate-*.tsv. `report.py --compare DIR1 DIR2` sets two runs side by side.
# KMAGLEV_KO=/path/to/kmaglev.ko benchmarks that module instead of building kmod/; the
# environment variables at the top of bench-vm.sh change counts, rounds and cases.
set -uo pipefail

MODE= LIMIT=1500
usage() { echo "usage: $0 [--quick [CASE...] | --profile CASE | --insns CASE]" >&2; exit 2; }
case ${1:-} in
--quick)
	MODE=--quick LIMIT=400
	shift
	cases=" ${*:-ipip-ing} " tcp=0
	[[ $cases != *" tcp "* ]] || { cases=${cases/ tcp / }; tcp=2; }
	# a -nodf case is compared with IPVS's own frames without DF
	[[ $cases != *-nodf\ * || $cases == *" ipvs-nodf "* ]] || cases+="ipvs-nodf "
	export KMAGLEV_BENCH_CASES="gen plain ipvs $cases" KMAGLEV_BENCH_ROUNDS=3 \
		KMAGLEV_BENCH_PKTS=20000 KMAGLEV_BENCH_NEW=20000 KMAGLEV_BENCH_FILL_ROUNDS=0 \
		KMAGLEV_BENCH_CONN=0 KMAGLEV_BENCH_TCP=$tcp ;;
--profile)
	[[ -n ${2:-} ]] || usage
	MODE="--profile $2" LIMIT=600
	export KMAGLEV_BENCH_PROFILE=$2 ;;
--insns)
	[[ -n ${2:-} ]] || usage
	MODE="--insns $2" LIMIT=900
	export KMAGLEV_BENCH_INSNS=$2 KMAGLEV_BENCH_PKTS=20000 KMAGLEV_BENCH_NEW=20000 ;;
"") ;;
*) usage ;;
esac

TOP=$(cd "$(dirname "$0")/../.." && pwd)
VM=$TOP/selftests/vm
OUT=$TOP/build/bench
mkdir -p "$OUT"
"$VM/deps.sh" || exit 1
KVER=$("$VM/kernel.sh" stock) || exit 1
"$VM/kernel.sh" stock-initrd >/dev/null || exit 1

# The module, built for the stock kernel as `make check` builds it (sources only, so objects
# of another kernel never leak in), unless KMAGLEV_KO names one already built. If it does not
# build, the baselines still run.
dir=$TOP/build/stock
if [[ -n ${KMAGLEV_KO:-} ]]; then
	[[ -f $KMAGLEV_KO ]] || { echo "bench: KMAGLEV_KO=$KMAGLEV_KO does not exist"; exit 1; }
	echo "bench: using KMAGLEV_KO=$KMAGLEV_KO"
	export KMAGLEV_KO
else
	mkdir -p "$dir"
	tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		Kbuild kmod uapi | tar -C "$dir" -xf -
	if make -C "$("$VM/kernel.sh" stock-kdir)" M="$dir" -j"$(nproc)" modules >"$OUT/build.log" 2>&1; then
		export KMAGLEV_KO=$dir/kmod/kmaglev.ko
	else
		tail -n 20 "$OUT/build.log"
		echo "bench: kmaglev.ko does not build for $KVER (log: build/bench/build.log);" \
			"the kmaglev cases will not be measured"
		export KMAGLEV_KO=
	fi
fi
make -s -C "$TOP/userland" -j"$(nproc)" >"$OUT/userland.log" 2>&1 ||
	{ cat "$OUT/userland.log"; echo "bench: the kmaglev CLI does not build"; exit 1; }

rm -f "$OUT"/pktrate-runs.tsv "$OUT"/pktrate-status.tsv
export KMAGLEV_BENCH_OUT=$OUT
# --insns: the counting plugin, built here (QEMU loads it on the host)
PLUGIN=()
if [[ -n ${KMAGLEV_BENCH_INSNS:-} ]]; then
	c=$KMAGLEV_BENCH_INSNS
	rm -f "$OUT/insns-$c".*
	gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$OUT/insn-count.so" \
		"$TOP/selftests/bench/insn-count.c" || { echo "bench: insn-count.so does not build"; exit 1; }
	PLUGIN=(--plugin "$OUT/insn-count.so,out=$OUT/insns-$c.raw")
fi
echo "== make bench${MODE:+ $MODE}: kernel $KVER (Debian stock) under QEMU on its instruction clock; log: build/bench/bench.log"
"$VM/run" --kernel stock --icount "${PLUGIN[@]}" --mem 4G --timeout "$LIMIT" -- \
	"$TOP/selftests/bench/bench-vm.sh" 2>&1 |
	tee "$OUT/bench.log"
rc=${PIPESTATUS[0]}
echo
if [[ -n ${KMAGLEV_BENCH_INSNS:-} ]]; then
	c=$KMAGLEV_BENCH_INSNS
	[[ $rc -eq 0 && -s $OUT/insns-$c.raw && -s $OUT/insns-$c.meta ]] ||
		{ echo "bench: the instruction count failed"; exit 1; }
	python3 "$TOP/selftests/bench/insns.py" "$OUT" "$c" >"$OUT/insns-$c.txt" || exit 1
	head -n 60 "$OUT/insns-$c.txt"
	exit 0
fi
if [[ -n ${KMAGLEV_BENCH_PROFILE:-} ]]; then
	[[ $rc -eq 0 && -s $OUT/profile-$KMAGLEV_BENCH_PROFILE.txt ]] || { echo "bench: the profile failed"; exit 1; }
	head -n 60 "$OUT/profile-$KMAGLEV_BENCH_PROFILE.txt"
	exit 0
fi
if [[ $rc -ne 0 ]]; then
	echo "bench: the VM run failed (exit $rc, log: build/bench/bench.log)"
	[[ -s $OUT/pktrate-status.tsv ]] || exit 1
fi
python3 "$TOP/selftests/bench/report.py" "$OUT" | tee "$OUT/report.txt"
rrc=${PIPESTATUS[0]}
echo "bench: took $((SECONDS / 60))m$((SECONDS % 60))s" | tee -a "$OUT/report.txt"
[[ $rc -eq 0 ]] || rrc=1
exit "$rrc"
