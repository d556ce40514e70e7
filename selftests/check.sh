#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: every test kmaglev has, in order, with a per-phase timing table and one final
# line "N passed, N failed". Exits non-zero if anything failed.
#
#   deps -> kernels (the stock one; the 6.12 test and debug kernels from the cache, or built
#   in the background) -> build (the module for the stock kernel, sparse, -Wmaybe-uninitialized,
#   checkpatch, CLI, generated code, the test tools, install.sh's DKMS tree) -> build-6.12 (the
#   module for the test and debug kernels) -> in parallel, three at a time: the userland unit
#   tests, the parsers' fuzzers (BGP, kmod/parse.c, kmod/maglev.c) and the kselftests that need
#   no module (BGP peers in namespaces) on the host, in one slot; KUnit and kselftests in ten
#   VMs (on the stock kernel the functional kselftests, the data-plane ones and the soaks in
#   three, install.sh in a fourth; on the test kernel the data-plane ones in two and the netns
#   soak with kmemleak in one; on the debug kernel (KASAN, KMEMLEAK, UBSAN) KUnit and a subset
#   of the kselftests in one and the hardening suite in two more). With the 6.12 kernels to
#   build, the stock kernel's VMs run while they build and build-6.12 comes after them. The
#   data-plane kselftests run in both of kmaglev's modes: prerouting on the stock kernel,
#   ingress on the test kernel, and dp_badpkt in mode ingress on the stock kernel too. Last,
#   the results in that order, the hardening figures (Documentation/reliability.rst) and the
#   line "N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/selftests/vm
OUT=$TOP/.build/check
mkdir -p "$OUT"
# A previous run's logs (jobs since renamed included) would add their figures to this run's.
rm -f "$OUT"/*.log "$OUT"/*.rc "$OUT"/*.times "$OUT"/*.secs "$OUT"/reliability.txt
cd "$TOP" || exit 1

declare -a T_NAME T_SECS T_CPU T_PASS T_FAIL T_SKIP
TOTAL_PASS=0
TOTAL_FAIL=0

# Count KTAP/TAP results in a log: leaves count as pass/fail/skip; a failed parent whose
# children all passed (a crashed script) counts as one failure. "not ok ... # TODO" is a known
# bug, open and documented (an expected failure): counted with the skipped, listed as XFAIL.
ktap_count() {
	awk '
	/^ *(not )?ok [0-9]+/ {
		match($0, /^ */); ind = RLENGTH
		notok = ($0 ~ /^ *not ok/); skip = ($0 ~ /# (SKIP|TODO)/)
		kids = 0; kidfail = 0
		for (k in cnt) if (k + 0 > ind) { kids += cnt[k]; kidfail += fl[k]; delete cnt[k]; delete fl[k] }
		if (kids == 0) { if (skip) S++; else if (notok) F++; else P++ }
		else if (notok && kidfail == 0) F++
		cnt[ind]++; if (notok && !skip) fl[ind]++
	}
	END { printf "%d %d %d\n", P, F, S }' "$1"
}

# phase NAME: start timing; phase_end records counts accumulated with ok/notok/skip.
PH_NAME= PH_START= PH_P=0 PH_F=0 PH_S=0
phase() {
	PH_NAME=$1 PH_START=$SECONDS PH_P=0 PH_F=0 PH_S=0
	echo "=== $PH_NAME"
}
# phase_end [SECONDS [CPU-SECONDS]]: the phase's time, measured here unless given, and for a
# VM the CPU time it used
phase_end() {
	T_NAME+=("$PH_NAME"); T_SECS+=("${1:-$((SECONDS - PH_START))}"); T_CPU+=("${2:--}")
	T_PASS+=("$PH_P"); T_FAIL+=("$PH_F"); T_SKIP+=("$PH_S")
	TOTAL_PASS=$((TOTAL_PASS + PH_P)); TOTAL_FAIL=$((TOTAL_FAIL + PH_F))
}
ok() { PH_P=$((PH_P + 1)); echo "ok   $*"; }
notok() { PH_F=$((PH_F + 1)); echo "FAIL $*"; }
add_counts() { PH_P=$((PH_P + $1)); PH_F=$((PH_F + $2)); PH_S=$((PH_S + $3)); }

# step DESC LOG CMD...: one pass/fail check; on failure show the log's tail.
step() {
	local desc=$1 log=$2; shift 2
	if "$@" >"$log" 2>&1; then
		ok "$desc"
		return 0
	fi
	notok "$desc (log: ${log#"$TOP"/})"
	tail -n 30 "$log" | sed 's/^/    /'
	return 1
}

# A results log from a VM run: count it, and show failures with their context. A kernel splat,
# a guest panic or a hang is a failure of its own, whatever the tests said.
vm_results() {
	local desc=$1 log=$2 rc=$3 p f s
	if [[ ! -f $log ]]; then
		notok "$desc: no log (${log#"$TOP"/})"
		return
	fi
	read -r p f s < <(ktap_count "$log")
	p=${p:-0} f=${f:-0} s=${s:-0}
	add_counts "$p" "$f" "$s"
	grep -E '^ *not ok' "$log" | grep -vE '# (SKIP|TODO)' | sed 's/^ */    FAIL /'
	grep -E '^ *not ok.*# TODO' "$log" | sed 's/^ */    XFAIL /'
	if grep -q '^vm: kernel splat' "$log"; then
		notok "$desc: kernel splat (log: ${log#"$TOP"/})"
		sed -n '/^vm: kernel splat/,/^vm: end of splat/p' "$log" | head -n 45 | sed 's/^/    /'
	fi
	if grep -qE '^vm: guest (hung|died)' "$log"; then
		notok "$desc: guest panicked or hung (log: ${log#"$TOP"/})"
		sed -n '/^vm: guest \(hung\|died\)/,$p' "$log" | tail -n 40 | sed 's/^/    /'
	elif [[ $rc -ne 0 && $f -eq 0 ]] && ! grep -q '^vm: kernel splat' "$log"; then
		notok "$desc: run failed (exit $rc) (log: ${log#"$TOP"/})"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
	echo "     $desc: $p passed, $f failed, $s skipped"
}

# The hardening figures: every "# reliability: SCENARIO | LOAD | DURATION | FAULTS | RESULT"
# line the tests printed (Documentation/reliability.rst has the table of a full run).
reliability() {
	local lines
	lines=$(grep -h '# reliability:' "$OUT"/*.log 2>/dev/null | sed 's/^.*# reliability: *//')
	[[ -n $lines ]] || return 0
	echo
	echo "reliability (scenario | load | duration | faults | result):"
	awk -F' *[|] *' '{ printf "  %-34s %-40s %-10s %-22s %s\n", $1, $2, $3, $4, $5 }' \
		<<<"$lines" | tee "$OUT/reliability.txt"
}

summary() {
	local i
	reliability
	echo
	printf '%-20s %7s %7s %7s %7s %7s\n' phase seconds cpu passed failed skipped
	for i in "${!T_NAME[@]}"; do
		printf '%-20s %7d %7s %7d %7d %7d\n' "${T_NAME[$i]}" "${T_SECS[$i]}" "${T_CPU[$i]}" \
			"${T_PASS[$i]}" "${T_FAIL[$i]}" "${T_SKIP[$i]}"
	done
	printf '%-20s %7d\n' total "$SECONDS"
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
	[[ $TOTAL_FAIL -eq 0 ]]
}
trap 'summary; exit $?' EXIT

# --- deps -------------------------------------------------------------------------------
phase deps
step "dependencies installed (selftests/vm/deps.sh)" "$OUT/deps.log" "$VM/deps.sh" || exit
phase_end

# --- kernels ----------------------------------------------------------------------------
# The 6.12 test and debug kernels come from the cache, or are built in the background (cold, on
# 2 cores and alone: about 10 min for the test kernel, 18 for the debug one: KASAN), niced, while
# everything that needs only the stock kernel goes on: its module builds, the userland tests
# and the stock kernel's VMs. Their results count in the phase build-6.12.
phase kernels
step "stock kernel and initrd" "$OUT/kernel-stock.log" "$VM/kernel.sh" stock-initrd
step "Debian's linux-source-6.12, extracted" "$OUT/kernel-src.log" "$VM/kernel.sh" src
KERNELS_CACHED=1
for k in test debug; do "$VM/kernel.sh" cached $k || KERNELS_CACHED=0; done
(
	for k in test debug; do
		start=$SECONDS
		nice -n 10 "$VM/kernel.sh" $k >/dev/null 2>"$OUT/kernel-$k.log"
		echo "$? $((SECONDS - start))" >"$OUT/kernel-$k.rc"
	done
) &
KBUILD_PID=$!
if [[ $KERNELS_CACHED == 1 ]]; then
	echo "     the 6.12 test and debug kernels: cached"
else
	echo "     the 6.12 test and debug kernels: not cached, building in the background (niced)"
fi
phase_end

# --- build ------------------------------------------------------------------------------
phase build
KDIR_stock=$("$VM/kernel.sh" stock-kdir 2>/dev/null)
# build_for NAME KDIR [MAKE ARGS...]: the module from a copy of the sources in .build/NAME
build_for() {
	local k=$1 kdir=$2 dir=$TOP/.build/$1
	shift 2
	mkdir -p "$dir"
	# Sources only: an in-tree build's objects belong to another kernel.
	tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		Kbuild kmod uapi | tar -C "$dir" -xf -
	make -C "$kdir" M="$dir" -j"$(nproc)" "$@" modules
}
sparse_for() {
	local k=$1 kdir=$2 dir=$TOP/.build/$1 log
	log=$(make -C "$kdir" M="$dir" C=2 CHECK="sparse -Wno-decl" modules 2>&1)
	echo "$log"
	! echo "$log" | grep -E 'warning:|error:' | grep -v "^make"
}
# build_module K: the module for kernel K (stock, test, debug), and sparse on it once per kernel
# version (the debug kernel is 6.12 like the test kernel)
build_module() {
	local k=$1 kd=KDIR_$1
	# No VM job runs on a kernel its module did not build for (vm_job).
	rm -f "$TOP/.build/$k/kmod/kmaglev.ko"
	if [[ -n ${!kd} ]]; then
		step "module builds against $k kernel (-Werror)" "$OUT/build-$k.log" build_for "$k" "${!kd}" &&
			[[ $k != debug ]] &&
			step "sparse clean on $k kernel" "$OUT/sparse-$k.log" sparse_for "$k" "${!kd}"
	else
		notok "no $k kernel to build against"
	fi
}
build_module stock
# The kernel's own build turns -Wmaybe-uninitialized off (too many false positives tree-wide);
# kmaglev's code must be clean with it on.
[[ -n $KDIR_stock ]] &&
	step "module builds with -Wmaybe-uninitialized (stock kernel)" "$OUT/build-maybe-uninit.log" \
		build_for stock-maybe-uninit "$KDIR_stock" KCFLAGS=-Wmaybe-uninitialized
SRC=$("$VM/kernel.sh" src 2>/dev/null)
# Hand-written kernel code only: files generated by ynl-gen-c.py carry a YNL-GEN marker and are
# checked against the spec instead.
step "checkpatch --strict clean (kmod/, uapi/)" "$OUT/checkpatch.log" \
	"$SRC/scripts/checkpatch.pl" --no-tree --strict --terse --show-types -q \
	--ignore FILE_PATH_CHANGES \
	--file $(find kmod uapi -name '*.[ch]' ! -name '*.mod.c' -exec grep -L 'YNL-GEN' {} + | sort)
step "generated netlink code matches the YNL spec" "$OUT/ynl.log" "$TOP/selftests/ynl.sh" verify
step "CLI builds (-Werror)" "$OUT/userland.log" make -C userland -j"$(nproc)"
# The hardening tests' programs (fuzzers, fault injector, soak drivers): the guests see the
# host root read-only, so they are built here.
step "test tools build (-Werror, selftests/tools)" "$OUT/tools.log" make -C selftests/tools -j"$(nproc)"
# install.sh's host half: dkms add/build and make for the stock kernel into .build/install,
# in a private mount namespace (the host's /lib/modules, /var/lib/dkms and /usr stay as they
# are); the guest runs dkms install, make install and uninstall on an overlay.
step "DKMS tree and make-install tree for the stock kernel (selftests/install-prep.sh)" \
	"$OUT/install-prep.log" "$TOP/selftests/install-prep.sh"
phase_end

# --- userland unit tests and host kselftests: in the background, beside the first VMs -----
# Userland unit tests; the BGP message parser, kmod/parse.c and kmod/maglev.c under libFuzzer
# (clang's -fsanitize=fuzzer,address,undefined), each from its committed corpus for a bounded
# time: a crash or a sanitizer report fails it. Then the kselftests that need no kernel module,
# on the host: real BGP daemons (BIRD 2, FRR, GoBGP) in network namespaces, the peers' library
# checked against itself, and the routes mode's BIRD and FRR snippets exporting to a router.
# Neither rebuilds what the VMs run (userland/kmaglev is built already). They take a VM slot.
HOST_NET="bgp_lib_selftest bgp_snippets"
FUZZ_SECONDS=${KMAGLEV_FUZZ_SECONDS:-30}
unit_host() {
	local start=$SECONDS t
	make -C userland -s check >"$OUT/unit.log" 2>&1
	echo $? >"$OUT/unit.rc"
	make -C userland -s fuzz FUZZ_SECONDS="$FUZZ_SECONDS" >"$OUT/fuzz.log" 2>&1
	echo $? >"$OUT/fuzz.rc"
	echo $((SECONDS - start)) >"$OUT/unit.secs"
	start=$SECONDS
	for t in $HOST_NET; do
		"$TOP/selftests/net/$t.sh" >"$OUT/host-$t.log" 2>&1
		echo $? >"$OUT/host-$t.rc"
	done
	echo $((SECONDS - start)) >"$OUT/host.secs"
}
# their results, as the phases unit and host
unit_host_results() {
	local rc
	phase unit
	vm_results "userland unit tests" "$OUT/unit.log" "$(cat "$OUT/unit.rc" 2>/dev/null || echo 1)"
	if [[ $(cat "$OUT/fuzz.rc" 2>/dev/null) == 0 ]]; then
		ok "parsers fuzzed ${FUZZ_SECONDS}s each: BGP, packet, Maglev (userland/fuzz)"
		grep -E '^fuzz_[a-z]+: ' "$OUT/fuzz.log" | sed 's/^/     /'
	else
		notok "parsers fuzzed ${FUZZ_SECONDS}s each: BGP, packet, Maglev (userland/fuzz) (log: ${OUT#"$TOP"/}/fuzz.log)"
		tail -n 30 "$OUT/fuzz.log" | sed 's/^/    /'
	fi
	phase_end "$(cat "$OUT/unit.secs" 2>/dev/null || echo 0)"
	phase host
	for t in $HOST_NET; do
		rc=$(cat "$OUT/host-$t.rc" 2>/dev/null || echo 1)
		# exit 4: the whole script skipped (its daemons are missing); its plan says so
		vm_results "$t.sh on the host" "$OUT/host-$t.log" $((rc == 4 ? 0 : rc))
	done
	phase_end "$(cat "$OUT/host.secs" 2>/dev/null || echo 0)"
}

# --- tests in VMs: KUnit and the kselftests, a few VMs at a time --------------------------
# TCG is CPU-bound: every guest vCPU is a host thread. KMAGLEV_CHECK_VMS VMs run at once
# (default 3: the stock kernel's guests spend part of their time waiting, the debug kernel's
# hardly ever), the longest first, so that each VM gets most of a core and its time limits
# keep their meaning (eight at once on two cores starved them all past an hour). Each job's
# wall time and the CPU time its QEMU used are in the table.
#
# Two vCPUs where concurrency is what is tested: the data path on two CPUs at once (the SYN
# flood soak found conn-max exceeded by one entry per CPU inserting at once), unloads with
# packets in flight, the netlink fuzzer's workers beside netns churn and traffic, teardown and
# KUnit under KASAN. One vCPU for the rest: under TCG on a loaded host, a guest's second vCPU
# spins in IPIs and TLB shootdowns while its peer waits for a host core, and the same test
# costs about half as much CPU again (control_plane.sh and userns.sh on the stock kernel,
# three VMs at once: 316 s of CPU with two vCPUs, 220 s with one).
#
# What runs where:
# - debug kernel (KASAN, KMEMLEAK, UBSAN, lockdep, full preemption; about ten times slower than
#   stock): KUnit, control_plane and teardown; the netlink fuzzer (100,000 messages) with the
#   netns and unload soak at debug sizes; fault injection and the packet fuzzer (100,000
#   frames), one vCPU (each fault and each frame is one sequential path). The harness fails a
#   VM on any splat in its console or kernel log and asks kmemleak for a scan at its end.
# - stock kernel (Debian's 6.1): every functional kselftest, one vCPU; the dp_*.sh ones in
#   mode prerouting and dp_badpkt in mode ingress too (6.1's netdev hooks, the compat build),
#   one vCPU; the SYN flood and the netns soak (1,000 namespaces) with the module unloaded 50
#   times under traffic, two vCPUs; make install and DKMS, one vCPU.
# - test kernel (6.12, lockdep, kmemleak): the dp_*.sh tests in mode ingress and the backend
#   churn soak (two vCPUs for dp_conntable and the soak's half, one for the other), with
#   kmemleak off (kmemleak=off: it costs a fifth of their CPU and
#   they ask it nothing; the debug kernel's VMs scan the same code); the netns soak with
#   kmemleak scans (1,000 namespaces, 10 unloads). 6.12's control plane runs on the debug
#   kernel.
VM_SLOTS=${KMAGLEV_CHECK_VMS:-3}
HOOK_STOCK=prerouting
HOOK_TEST=ingress
DP_ALL=$(cd "$TOP/selftests/net" && ls dp_*.sh | sed 's/\.sh$//' | grep -vx dp_lib | tr '\n' ' ')
# The stock kernel's functional kselftests: every script that is not a data-plane test, a soak,
# a hardening test of the debug kernel, install.sh or a host test.
STOCK_CTL=$(cd "$TOP/selftests/net" && ls *.sh | sed 's/\.sh$//' |
	grep -vxE "lib|dp_.*|bgp_lib|run_tests|${HOST_NET// /|}|soak_.*|faults|fuzz_netlink|fuzz_packets|install" |
	tr '\n' ' ')
STOCK_DP="${DP_ALL}dp_badpkt@ingress"
# The soaks but the churn one (the test kernel's): the SYN flood, the netns and unload soak.
STOCK_SOAK=$(cd "$TOP/selftests/net" && ls soak_*.sh | sed 's/\.sh$//' | grep -vx soak_churn | tr '\n' ' ')
# The test kernel: the dp_*.sh tests, halved, the churn soak with one half.
TEST_A="dp_basic dp_badpkt dp_acl dp_conntable soak_churn"
TEST_B=$(tr ' ' '\n' <<<"$DP_ALL" | grep -vxE "${TEST_A// /|}" | tr '\n' ' ')
DEBUG_SET=${KMAGLEV_DEBUG_SET:-"control_plane teardown"}

declare -a J_NAME J_DESC
# wait_slot: until fewer than VM_SLOTS of the VMs (and the unit/host job) run: the shell's
# running jobs but the kernel build (not pids polled with kill -0: a cold run's kernel builds
# wrap the pid space)
wait_slot() {
	while [[ $(jobs -rp | grep -cvxF "$KBUILD_PID") -ge $VM_SLOTS ]]; do
		sleep 2
	done
}
# vm_job NAME KERNEL DESC CMD...: run CMD in a VM in the background once fewer than VM_SLOTS
# run; its log in $OUT/NAME.log, "EXIT WALL-SECONDS CPU-SECONDS" in $OUT/NAME.rc. The VM's
# vCPUs and extra kernel arguments: KMAGLEV_VM_CPUS and KMAGLEV_VM_APPEND (selftests/vm/run).
# No VM for a kernel kmaglev did not build for: the job fails at once.
vm_job() {
	local name=$1 k=$2 desc=$3
	shift 3
	rm -f "$OUT/$name.rc"
	desc+=", ${KMAGLEV_VM_CPUS:-2} vCPU"
	[[ ${KMAGLEV_VM_CPUS:-2} == 1 ]] || desc+=s
	[[ -n ${KMAGLEV_VM_APPEND:-} ]] && desc+=", $KMAGLEV_VM_APPEND"
	J_NAME+=("$name") J_DESC+=("$desc")
	if [[ ! -f $TOP/.build/$k/kmod/kmaglev.ko ]]; then
		echo "vm: not run: no module built for the $k kernel" >"$OUT/$name.log"
		echo "1 0 0" >"$OUT/$name.rc"
		return
	fi
	wait_slot
	echo "     $(date +%T) $name: $desc"
	(
		start=$SECONDS
		KMAGLEV_VM_TIMEOUT=${KMAGLEV_VM_TIMEOUT:-3600} \
			KMAGLEV_KO=$TOP/.build/$k/kmod/kmaglev.ko "$VM/run" --kernel "$k" -- "$@" \
			>"$OUT/$name.log" 2>&1
		rc=$?
		# the children's user and system time: QEMU's, all of it the guest's
		times >"$OUT/$name.times"	# not in a pipe: a subshell's children are not ours
		cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$OUT/$name.times")
		echo "$rc $((SECONDS - start)) $cpu" >"$OUT/$name.rc"
	) &
}
# Per test on the stock and test kernels, 1800 s rather than run_tests.sh's 900.
export KMAGLEV_TEST_TIMEOUT=${KMAGLEV_TEST_TIMEOUT:-1800}

# The jobs. What runs where is said above; each function queues one VM.
# The hardening suite on the debug kernel: the netlink fuzzer (100,000 messages) with the netns
# and unload soak at debug sizes (50 namespaces and 3 unloads at 150 packets/s: at 1,200 no
# round finished in 10 min).
job_hardening() {
	KMAGLEV_FUZZ_MSGS=100000 KMAGLEV_SOAK_NETNS=50 KMAGLEV_SOAK_UNLOADS=3 KMAGLEV_SOAK_PPS=150 \
	KMAGLEV_TEST_TIMEOUT=2400 \
		vm_job hardening debug "hardening kselftests on debug kernel (fuzz_netlink soak_netns)" \
		"$TOP/selftests/net/run_tests.sh" fuzz_netlink soak_netns
}
# Sizes on the debug kernel. teardown.sh: how many netns it creates and destroys with live
# flows (each a fork, an exec and a netns under emulation), in how many rounds;
# control_plane.sh: its large cases (still several dump messages each).
job_debug() {
	KMAGLEV_TEARDOWN_NETNS=20 KMAGLEV_TEARDOWN_ROUNDS=2 KMAGLEV_CP_STATS_BACKENDS=1000 \
	KMAGLEV_CP_DUMP_BACKENDS=5000 KMAGLEV_CP_SERVICES=100 KMAGLEV_TEST_TIMEOUT=2400 \
		vm_job debug debug "KUnit and kselftests on debug kernel ($DEBUG_SET)" \
		bash -c '"$1" "$2"; a=$?; shift 2; "$@"; b=$?; exit $((a | b))' - \
		"$TOP/selftests/kunit.sh" "$TOP/.build/debug/kmod" "$TOP/selftests/net/run_tests.sh" $DEBUG_SET
}
# Fault injection, each allocation failed in turn in one scenario of each config op (both of
# backend-new's), services of 10 backends, mode once (the whole table of failnth, 32 scenarios
# with 200 backends and mode sticky too, takes hours there), with the packet fuzzer (100,000
# frames).
FAULTS_CI="service-new/first service-set/replace-set service-del/conns service-flush backend-new"
FAULTS_CI+=" backend-set/weight backend-del/conns config-set/hook-ingress-list"
job_faults() {
	KMAGLEV_FAULTS_BACKENDS=10 KMAGLEV_FAULTS_MODES=once KMAGLEV_FAULTS_ONLY=$FAULTS_CI \
	KMAGLEV_FUZZ_PKTS=100000 KMAGLEV_TEST_TIMEOUT=2400 KMAGLEV_VM_CPUS=1 \
		vm_job faults debug "hardening kselftests on debug kernel (faults fuzz_packets)" \
		"$TOP/selftests/net/run_tests.sh" faults fuzz_packets
}
job_stock_ctl() {
	KMAGLEV_TEARDOWN_NETNS=50 KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-stock-ctl stock "kselftests on stock kernel ($STOCK_CTL)" \
		"$TOP/selftests/net/run_tests.sh" $STOCK_CTL
}
job_test_a() {
	KMAGLEV_DP_HOOK=$HOOK_TEST KMAGLEV_VM_APPEND=kmemleak=off \
		vm_job kselftest-test-a test "kselftests on test kernel, dp_* in mode $HOOK_TEST ($TEST_A)" \
		"$TOP/selftests/net/run_tests.sh" $TEST_A
}
job_stock_dp() {
	KMAGLEV_DP_HOOK=$HOOK_STOCK KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-stock-dp stock "kselftests on stock kernel, dp_* in mode $HOOK_STOCK ($STOCK_DP)" \
		"$TOP/selftests/net/run_tests.sh" $STOCK_DP
}
# The SYN flood, and the issue's 50 module unloads under traffic after 1,000 namespaces, on
# 6.1.
job_soak_stock() {
	KMAGLEV_DP_HOOK=$HOOK_STOCK KMAGLEV_SOAK_NETNS=${KMAGLEV_SOAK_NETNS:-1000} \
	KMAGLEV_SOAK_UNLOADS=${KMAGLEV_SOAK_UNLOADS:-50} \
		vm_job soak-stock stock "soaks on stock kernel, mode $HOOK_STOCK ($STOCK_SOAK)" \
		"$TOP/selftests/net/run_tests.sh" $STOCK_SOAK
}
# The functional data-plane tests on one vCPU: the concurrent ones (the connection table, the
# churn soak) are in test-a, on two.
job_test_b() {
	KMAGLEV_DP_HOOK=$HOOK_TEST KMAGLEV_VM_APPEND=kmemleak=off KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-test-b test "kselftests on test kernel, dp_* in mode $HOOK_TEST ($TEST_B)" \
		"$TOP/selftests/net/run_tests.sh" $TEST_B
}
# make install, make uninstall and DKMS on a writable overlay (mostly dkms's own shell work,
# depmod over the stock kernel's modules and kbuild's no-op passes).
job_install() {
	KMAGLEV_TEST_TIMEOUT=3000 KMAGLEV_VM_CPUS=1 \
		vm_job install stock "make install and DKMS on stock kernel (install)" \
		"$TOP/selftests/net/run_tests.sh" install
}
# The netns soak on the test kernel: 1,000 namespaces and 10 unloads, each followed by a
# kmemleak scan.
job_soak_test() {
	KMAGLEV_DP_HOOK=$HOOK_TEST KMAGLEV_SOAK_NETNS=1000 KMAGLEV_SOAK_UNLOADS=10 \
		vm_job soak-test test "netns and unload soak on test kernel, mode $HOOK_TEST (soak_netns)" \
		"$TOP/selftests/net/run_tests.sh" soak_netns
}

# build-6.12: the 6.12 kernels (waited for), the module for each
build_612() {
	local k rc secs how kd
	phase build-6.12
	wait "$KBUILD_PID"
	for k in test debug; do
		read -r rc secs 2>/dev/null <"$OUT/kernel-$k.rc" || { rc=1 secs=0; }
		how="built in $secs s"
		[[ $KERNELS_CACHED == 1 ]] && how=cached
		kd=KDIR_$k
		printf -v "$kd" ''
		if [[ $rc == 0 ]]; then
			printf -v "$kd" '%s' "$("$VM/kernel.sh" $k 2>/dev/null)"
			ok "$k kernel $(basename "${!kd}") ($how)"
		else
			notok "$k kernel build (log: ${OUT#"$TOP"/}/kernel-$k.log)"
			tail -n 30 "$OUT/kernel-$k.log" | sed 's/^/    /'
		fi
		build_module $k
	done
	phase_end
}

# The 6.12 kernels cached: their modules first, then every VM, the longest first, so that the
# last to start are short. Not cached: the stock kernel's VMs run while they build.
[[ $KERNELS_CACHED == 1 ]] && build_612
echo "=== KUnit and kselftests: VMs $VM_SLOTS at a time (the userland and host tests in one slot)"
unit_host &
if [[ $KERNELS_CACHED == 1 ]]; then
	job_hardening; job_debug; job_faults; job_stock_ctl; job_test_a; job_stock_dp
	job_soak_stock; job_test_b; job_install; job_soak_test
else
	job_stock_ctl; job_stock_dp; job_soak_stock; job_install
	build_612
	job_hardening; job_debug; job_faults; job_test_a; job_test_b; job_soak_test
fi
wait
unit_host_results
for i in "${!J_NAME[@]}"; do
	name=${J_NAME[$i]}
	phase "$name"
	read -r rc secs cpu 2>/dev/null <"$OUT/$name.rc" || { rc=1 secs=0 cpu=0; }
	vm_results "${J_DESC[$i]}" "$OUT/$name.log" "$rc"
	phase_end "$secs" "$cpu"
done
