#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check` and `make check-full`: kmaglev's tests in two tiers, with a per-phase timing
# table and one final line "N passed, N failed". Exits non-zero if anything failed.
# Documentation/testing.rst says what runs in which tier, for how long, and why.
#
#   selftests/check.sh          the quick tier (make check; .ci/run): before every commit.
#                               Stock 6.1 and one compiled kernel, the 6.12 debug kernel (KASAN,
#                               UBSAN, KMEMLEAK, lockdep). Target: 15 min warm (kernel cached),
#                               30 min cold on 2 cores; a warm run over KMAGLEV_CHECK_BUDGET
#                               seconds fails (default 900).
#   selftests/check.sh --full   the full tier (make check-full): before a release. Every
#                               kselftest on 6.1 and on 6.12 (Debian's own prebuilt 6.12,
#                               deb612, in place of a compiled non-debug one), the soaks, the
#                               fuzzers at 100,000 each, fail-nth on every config op, install
#                               and DKMS, the host's BGP peers. Its only compiled kernel is the
#                               debug one: lockdep and kmemleak on 6.12 come from it alone.
#
#   deps (the kernel build's packages; the debug kernel cached, or its build started in the
#   background at normal priority; the other packages while it builds) -> kernels (the stock
#   kernel's initrd; in the full tier Debian's 6.12 fetched and unpacked) -> build (CLI, test
#   tools) -> warm: build-6.12 (the module for each 6.12 kernel, sparse) and the debug
#   kernel's VMs at once -> build-stock (the module for the stock kernel with sparse and
#   -Wmaybe-uninitialized in one pass, checkpatch, generated code) -> the other jobs, as many
#   at a time as their vCPUs fit in KMAGLEV_CHECK_VCPUS: the userland unit tests and libFuzzer
#   runs, and KUnit and the kselftests in VMs -> cold: build-6.12 once the kernel is built, then
#   the debug kernel's VMs -> the results, the hardening figures and "N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/selftests/vm
TIER=quick
case "${1:-}" in
"") ;;
--full) TIER=full ;;
*) echo "usage: $0 [--full]" >&2; exit 2 ;;
esac
OUT=$TOP/build/check-$TIER
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

# The quick tier's budget: a warm run (nothing installed, no kernel built) that takes longer
# than KMAGLEV_CHECK_BUDGET seconds fails, so that a test that grows `make check` is noticed the
# day it lands. A cold run is only told how it did against its 30 minutes.
# 900 s (15 min) by default: a warm run took 820 s on 2 cores at 76b7867
# (Documentation/testing.rst has the latest figures).
BUDGET=${KMAGLEV_CHECK_BUDGET:-900}
COLD_BUDGET=1800
WARM=0
budget() {
	local m="$((SECONDS / 60)) min $((SECONDS % 60)) s"
	[[ $TIER == quick ]] || { echo "make check-full took $m"; return; }
	if [[ $WARM != 1 ]]; then
		echo "make check took $m, cold (packages installed or a kernel built): its budget is $((COLD_BUDGET / 60)) min$( ((SECONDS > COLD_BUDGET)) && echo ", EXCEEDED")"
	elif ((SECONDS > BUDGET)); then
		TOTAL_FAIL=$((TOTAL_FAIL + 1))
		echo "FAIL make check took $m warm, over its budget of $BUDGET s (KMAGLEV_CHECK_BUDGET):"
		echo "     a test that grew the quick tier belongs in make check-full (Documentation/testing.rst)"
	else
		echo "make check took $m warm, within its budget of $BUDGET s"
	fi
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
	budget
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
	[[ $TOTAL_FAIL -eq 0 ]]
}
trap 'summary; exit $?' EXIT

# cpu_of FILE: the children's user and system seconds from the output of `times` in FILE
cpu_of() {
	awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$1"
}

# --- deps -------------------------------------------------------------------------------
# The packages the kernel build needs first. The compiled 6.12 kernel (the debug one) comes
# from the cache (keyed by its configuration), or is built in the background at normal
# priority before anything else starts: on a cold machine it is the critical path (its VMs can
# only start once it is there). The other packages are installed while it builds, and the stock
# kernel's work goes on beside it; in the full tier Debian's prebuilt 6.12 (deb612) is fetched
# and unpacked (a download and a minute's work, not a build). The results of the builds count
# in the phase build-6.12.
phase deps
step "packages for the kernel build (selftests/vm/deps.sh --kernel)" "$OUT/deps-kernel.log" \
	"$VM/deps.sh" --kernel || exit
# A warm run is one that installed nothing and built no kernel: the budget applies to it.
WARM=1
grep -q '^deps: installing' "$OUT/deps-kernel.log" && WARM=0
# The source in the foreground: the kernel builds, checkpatch and the YNL generator all read
# it, and two extractions at once would race.
step "Debian's linux-source-6.12, extracted" "$OUT/kernel-src.log" "$VM/kernel.sh" src || exit
KERNELS=debug
# Debian's 6.12 stands in for a compiled non-debug 6.12: the distribution's own config, every
# driver a module, and nothing to build. (Neither tier builds kernel.sh's lockdep test kernel;
# `make KERNEL=test` builds the module against it.)
FETCHED=
[[ $TIER == full ]] && FETCHED=deb612
KERNELS_CACHED=1
for k in $KERNELS; do "$VM/kernel.sh" cached $k || KERNELS_CACHED=0; done
[[ $KERNELS_CACHED == 1 ]] || WARM=0
(
	for k in $KERNELS; do
		start=$SECONDS
		# in a subshell of its own, so that `times` gives this build's CPU alone
		(
			"$VM/kernel.sh" $k >/dev/null 2>"$OUT/kernel-$k.log"
			rc=$?
			times >"$OUT/kernel-$k.times"
			exit $rc
		)
		echo "$? $((SECONDS - start)) $(cpu_of "$OUT/kernel-$k.times")" >"$OUT/kernel-$k.rc"
	done
) &
KBUILD_PID=$!
step "dependencies installed (selftests/vm/deps.sh)" "$OUT/deps.log" "$VM/deps.sh" || exit
grep -q '^deps: installing' "$OUT/deps.log" && WARM=0
phase_end

# --- kernels ----------------------------------------------------------------------------
phase kernels
step "stock kernel and initrd" "$OUT/kernel-stock.log" "$VM/kernel.sh" stock-initrd
for k in $FETCHED; do
	"$VM/kernel.sh" cached "$k" || WARM=0
	step "Debian's prebuilt 6.12 ($k), fetched and unpacked, and its initrd" \
		"$OUT/kernel-$k.log" "$VM/kernel.sh" "$k-initrd"
done
if [[ $KERNELS_CACHED == 1 ]]; then
	echo "     the 6.12 kernels ($KERNELS): cached"
else
	echo "     the 6.12 kernels ($KERNELS): not all cached, building in the background"
fi
phase_end

# --- build ------------------------------------------------------------------------------
phase build
KDIR_stock=$("$VM/kernel.sh" stock-kdir 2>/dev/null)
# build_for NAME KDIR [MAKE ARGS...]: the module from a copy of the sources in build/NAME
build_for() {
	local k=$1 kdir=$2 dir=$TOP/build/$1
	shift 2
	mkdir -p "$dir"
	# Sources only: an in-tree build's objects belong to another kernel.
	tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		Kbuild kmod uapi | tar -C "$dir" -xf -
	make -C "$kdir" M="$dir" -j"$(nproc)" "$@" modules
}
# sparse_in LOG: the sparse warnings of a build made with C=2 (-Werror made every compiler
# warning an error, so what is left is sparse's)
sparse_in() {
	cat "$1"
	! grep -E 'warning:|error:' "$1" | grep -v "^make"
}
# build_module K: the module for kernel K (stock, debug, deb612), with sparse (C=2) in the same
# pass once per kernel version: on the stock kernel (6.1) and on the first 6.12 kernel built
# (the debug one). On the stock kernel with -Wmaybe-uninitialized too: the kernel's own build
# turns it off (too many false positives tree-wide); kmaglev's code must be clean with it on.
SPARSE_612=
build_module() {
	local k=$1 kd=KDIR_$1 sparse=0 desc=-Werror args=()
	# No VM job runs on a kernel its module did not build for (vm_job).
	rm -f "$TOP/build/$k/kmod/kmaglev.ko"
	if [[ -z ${!kd} ]]; then
		notok "no $k kernel to build against"
		return
	fi
	if [[ $k == stock ]]; then
		sparse=1 desc+=", -Wmaybe-uninitialized" args+=(KCFLAGS=-Wmaybe-uninitialized)
	elif [[ -z $SPARSE_612 ]]; then
		sparse=1 SPARSE_612=$k
	fi
	((sparse)) && args+=(C=2 "CHECK=sparse -Wno-decl")
	step "module builds against $k kernel ($desc)" "$OUT/build-$k.log" \
		build_for "$k" "${!kd}" "${args[@]}" || return
	((sparse)) && step "sparse clean on $k kernel" "$OUT/sparse-$k.log" sparse_in "$OUT/build-$k.log"
}
step "CLI builds (-Werror)" "$OUT/userland.log" make -C userland -j"$(nproc)"
# `make` on a host without the running kernel's headers (RUNNING_KDIR pointed at nothing, as
# there): it stops before building anything, within seconds, and names the package and KDIR=
no_headers() {
	local out t0=$SECONDS kver
	kver=$(uname -r)
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KDIR -u KERNEL \
		make -C "$TOP" -j2 RUNNING_KDIR=/nonexistent/build 2>&1) &&
		{ echo "make succeeded without headers"; return 1; }
	echo "$out"
	grep -qF "apt-get install linux-headers-$kver" <<<"$out" && grep -qF "KDIR=" <<<"$out" &&
		! grep -q "userland" <<<"$out" && ((SECONDS - t0 < 10))
}
step "make without the running kernel's headers stops at once: names linux-headers-\$(uname -r) and KDIR=" \
	"$OUT/no-headers.log" no_headers
# The hardening tests' programs (fuzzers, fault injector, soak drivers): the guests see the
# host root read-only, so they are built here.
step "test tools build (-Werror, selftests/tools)" "$OUT/tools.log" make -C selftests/tools -j"$(nproc)"
phase_end

# build-stock: the module for the stock kernel and the source checks. On a warm run it goes on
# beside the debug kernel's VMs, which start first: they are the longest.
build_stock() {
	phase build-stock
	build_module stock
	SRC=$("$VM/kernel.sh" src 2>/dev/null)
	# Hand-written kernel code only: files generated by ynl-gen-c.py carry a YNL-GEN marker and
	# are checked against the spec instead.
	step "checkpatch --strict clean (kmod/, uapi/)" "$OUT/checkpatch.log" \
		"$SRC/scripts/checkpatch.pl" --no-tree --strict --terse --show-types -q \
		--ignore FILE_PATH_CHANGES \
		--file $(find kmod uapi -name '*.[ch]' ! -name '*.mod.c' -exec grep -L 'YNL-GEN' {} + | sort)
	step "generated netlink code matches the YNL spec" "$OUT/ynl.log" "$TOP/selftests/ynl.sh" verify
	# Documentation/architecture.rst: from the objects just built, no call circle in kmod/ or
	# userland/, and userland's calls go down its rooms
	step "no call circles; calls go down the rooms (selftests/layering.py)" "$OUT/layering.log" \
		"$TOP/selftests/layering.py"
	# install.sh's host half (full tier): dkms add/build and make for the stock kernel into
	# build/install, in a private mount namespace (the host's /lib/modules, /var/lib/dkms and
	# /usr stay as they are); the guest runs dkms install, make install and uninstall on an
	# overlay.
	# deb.sh's (full tier): make deb, lintian, and the packages of a release bumped from the
	# same tree, in build/deb-test; the guest installs them, and DKMS builds there.
	if [[ $TIER == full ]]; then
		step "DKMS tree and make-install tree for the stock kernel (selftests/install-prep.sh)" \
			"$OUT/install-prep.log" "$TOP/selftests/install-prep.sh"
		step "Debian packages, N and N+1, lintian clean (selftests/deb-prep.sh)" \
			"$OUT/deb-prep.log" "$TOP/selftests/deb-prep.sh"
	fi
	phase_end
}

# --- userland unit tests, libFuzzer and host kselftests: a job beside the VMs -------------
# Userland unit tests (cmocka); the BGP message parser, kmod/parse.c and kmod/maglev.c under
# libFuzzer (clang's -fsanitize=fuzzer,address,undefined), each from its committed corpus for a
# bounded time (5 s in the quick tier, 30 s in the full one; `make fuzz`: 10 min): a crash or a
# sanitizer report fails it. In the full tier, then the kselftests that need no kernel module,
# on the host: real BGP daemons (BIRD 2, FRR, GoBGP) in network namespaces, the peers' library
# checked against itself, and the routes mode's BIRD and FRR snippets exporting to a router.
HOST_NET=
[[ $TIER == full ]] && HOST_NET="bgp_lib_selftest bgp_snippets"
FUZZ_SECONDS=${KMAGLEV_FUZZ_SECONDS:-5}
[[ $TIER == full ]] && FUZZ_SECONDS=${KMAGLEV_FUZZ_SECONDS:-30}
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
	[[ -n $HOST_NET ]] || return 0
	phase host
	for t in $HOST_NET; do
		rc=$(cat "$OUT/host-$t.rc" 2>/dev/null || echo 1)
		# exit 4: the whole script skipped (its daemons are missing); its plan says so
		vm_results "$t.sh on the host" "$OUT/host-$t.log" $((rc == 4 ? 0 : rc))
	done
	phase_end "$(cat "$OUT/host.secs" 2>/dev/null || echo 0)"
}

# --- tests in VMs: KUnit and the kselftests ------------------------------------------------
# TCG is CPU-bound: every guest vCPU is a host thread. Jobs start while the vCPUs of those
# running (the unit job counts one, a kernel build in the background one) fit in
# KMAGLEV_CHECK_VCPUS (default 4 on 2 cores: the stock kernel's guests spend about half of their
# time waiting), the longest first, so that each VM gets most of a core and its time limits keep
# their meaning. Each job's wall time and the CPU time its QEMU used are in the table.
#
# Two vCPUs where concurrency is what is tested: the data path on two CPUs at once (the SYN
# flood soak found conn-max exceeded by one entry per CPU inserting at once), unloads with
# packets in flight, the netlink fuzzer's workers beside netns churn and traffic, teardown and
# KUnit under KASAN. One vCPU for the rest: under TCG on a loaded host, a guest's second vCPU
# spins in IPIs and TLB shootdowns while its peer waits for a host core, and the same test
# costs about half as much CPU again.
#
# What runs where, quick tier (make check):
# - stock kernel (Debian's 6.1), one vCPU each: one VM with the control plane as a user
#   namespace's root and as the host's (userns: every op, the dumps and events, the caps and
#   their extack errors; module_load), `kmaglev daemon` with its health checks (daemon: tcp,
#   http, agent; daemon_checks: https with a private CA, udp, dns with dnsmasq, exec), the
#   BGP speaker against BIRD (bgp) and ECMP failover over two LBs in the built-in mode, for
#   an IPv4 and an IPv6 VIP (bgp_ecmp); one VM with the data plane, dp_basic in both hook
#   modes, dp_quota (per-source quotas) in mode prerouting, dp_shed (load shedding) and
#   dp_dr (L2 direct routing) in mode ingress. control_plane.sh runs once, on the debug
#   kernel: on 6.1 it is in the full tier (Documentation/testing.rst, "Paying once").
# - debug kernel (6.12 with KASAN, KMEMLEAK, UBSAN, lockdep, full preemption, fault
#   injection; a process costs three to four times what it does on stock): KUnit, control_plane
#   and teardown, at reduced sizes, two vCPUs; the netlink fuzzer and the packet fuzzer (10,000
#   each) and fail-nth on the most used config ops, one vCPU. The data path on this kernel is
#   the packet fuzzer's (both hook modes, valid flows answered through IPIP and GRE before and
#   after the malformed ones) and teardown's (flows through deletes, unloads and netns exits);
#   dp_basic runs on it in the full tier. The hardening VM ends with a kmemleak scan (the other
#   runs with kmemleak=off), and any splat in a guest's kernel log fails its VM.
# Full tier (make check-full): every kselftest on the stock kernel (the dp_* in mode
# prerouting, dp_badpkt in ingress too; the soaks: SYN flood, 1,000 netns and 50 unloads;
# install and DKMS); on Debian's prebuilt 6.12 (deb612: no lockdep, no kmemleak, as users run
# it) the functional kselftests, the dp_* in mode ingress, the backend churn soak and the
# netns and unload soak at full size (its object counters and slab checks; the kmemleak checks
# skip, saying so); on the debug kernel KUnit and control_plane/teardown at larger sizes, the
# fuzzers at 100,000 each with the netns and unload soak (the kmemleak scans), fail-nth on
# every config op.
VCPUS=${KMAGLEV_CHECK_VCPUS:-4}
HOOK_STOCK=prerouting
HOOK_TEST=ingress
DP_ALL=$(cd "$TOP/selftests/net" && ls dp_*.sh | sed 's/\.sh$//' | grep -vx dp_lib | tr '\n' ' ')
# The functional kselftests: every script that is not a data-plane test, a soak, a hardening
# test of the debug kernel, install.sh, deb.sh or a host test.
FUNC_ALL=$(cd "$TOP/selftests/net" && ls *.sh | sed 's/\.sh$//' |
	grep -vxE "lib|dp_.*|bgp_lib|bgp_lib_selftest|bgp_snippets|run_tests|soak_.*|faults|fuzz_netlink|fuzz_packets|install|deb" |
	tr '\n' ' ')
STOCK_DP="${DP_ALL}dp_badpkt@ingress"
# The soaks but the churn one (deb612's): the SYN flood, the netns and unload soak.
STOCK_SOAK=$(cd "$TOP/selftests/net" && ls soak_*.sh | sed 's/\.sh$//' | grep -vx soak_churn | tr '\n' ' ')
# Debian's 6.12: the dp_*.sh tests, halved, the churn soak with one half.
DEB612_A="dp_basic dp_badpkt dp_acl dp_conntable soak_churn"
DEB612_B=$(tr ' ' '\n' <<<"$DP_ALL" | grep -vxE "${DEB612_A// /|}" | tr '\n' ' ')
# The quick tier's sets
QUICK_CTL="userns module_load daemon daemon_checks bgp bgp_ecmp"
QUICK_DP="dp_basic@$HOOK_STOCK dp_basic@$HOOK_TEST dp_quota@$HOOK_STOCK dp_shed@$HOOK_TEST dp_dr@$HOOK_TEST"
QUICK_DEBUG="control_plane teardown"

declare -a J_NAME J_DESC
declare -A J_VCPUS=()
# running_vcpus: RUNNING, the vCPUs of the jobs still running (the shell's running jobs, not pids polled
# with kill -0: a cold run's kernel builds wrap the pid space); the kernel build counts one
running_vcpus() {
	local p run
	RUNNING=0
	run=" $(jobs -rp | tr '\n' ' ') "
	for p in "${!J_VCPUS[@]}"; do
		if [[ $run == *" $p "* ]]; then
			RUNNING=$((RUNNING + J_VCPUS[$p]))
		else
			unset "J_VCPUS[$p]"
		fi
	done
	[[ $run == *" $KBUILD_PID "* ]] && RUNNING=$((RUNNING + 1))
}
# wait_slot N: until a job of N vCPUs fits (or nothing else runs)
wait_slot() {
	while running_vcpus; [[ $RUNNING -gt 0 && $((RUNNING + $1)) -gt $VCPUS ]]; do
		sleep 2
	done
}
# vm_job NAME KERNEL DESC CMD...: run CMD in a VM in the background once its vCPUs fit; its log
# in $OUT/NAME.log, "EXIT WALL-SECONDS CPU-SECONDS" in $OUT/NAME.rc. The VM's vCPUs and extra
# kernel arguments: KMAGLEV_VM_CPUS and KMAGLEV_VM_APPEND (selftests/vm/run).
# No VM for a kernel kmaglev did not build for: the job fails at once.
vm_job() {
	local name=$1 k=$2 desc=$3 cpus=${KMAGLEV_VM_CPUS:-2}
	shift 3
	rm -f "$OUT/$name.rc"
	desc+=", $cpus vCPU"
	[[ $cpus == 1 ]] || desc+=s
	[[ -n ${KMAGLEV_VM_APPEND:-} ]] && desc+=", $KMAGLEV_VM_APPEND"
	J_NAME+=("$name") J_DESC+=("$desc")
	if [[ ! -f $TOP/build/$k/kmod/kmaglev.ko ]]; then
		echo "vm: not run: no module built for the $k kernel" >"$OUT/$name.log"
		echo "1 0 0" >"$OUT/$name.rc"
		return
	fi
	wait_slot "$cpus"
	echo "     $(date +%T) $name: $desc"
	(
		start=$SECONDS
		KMAGLEV_VM_TIMEOUT=${KMAGLEV_VM_TIMEOUT:-3600} KMAGLEV_VM_CPUS=$cpus \
			KMAGLEV_KO=$TOP/build/$k/kmod/kmaglev.ko "$VM/run" --kernel "$k" -- "$@" \
			>"$OUT/$name.log" 2>&1
		rc=$?
		# the children's user and system time: QEMU's, all of it the guest's
		times >"$OUT/$name.times"	# not in a pipe: a subshell's children are not ours
		echo "$rc $((SECONDS - start)) $(cpu_of "$OUT/$name.times")" >"$OUT/$name.rc"
	) &
	J_VCPUS[$!]=$cpus
}
# The unit job, in a slot of one vCPU
unit_job() {
	wait_slot 1
	echo "     $(date +%T) unit: userland unit tests, libFuzzer ${FUZZ_SECONDS}s each${HOST_NET:+, host kselftests ($HOST_NET)}"
	unit_host &
	J_VCPUS[$!]=1
}
# Per test, 1800 s rather than run_tests.sh's 900.
export KMAGLEV_TEST_TIMEOUT=${KMAGLEV_TEST_TIMEOUT:-1800}

# --- the quick tier's jobs ---
# The debug kernel: KUnit, the control plane and teardown (the tests that found the
# use-after-frees), two vCPUs. Sizes: control_plane.sh's large cases (still several dump
# messages each), teardown.sh's netns destroyed with live flows and its rounds; every rejected
# request's state compared once per block (KMAGLEV_CP_STATE_EACH=0: the stock kernel's run
# compares after each). Booted with kmemleak=off: kmemleak's bookkeeping of every allocation
# costs this VM about a fifth of its CPU, and the quick tier's kmemleak scan is the hardening
# VM's, after the fault injection, where the error paths free what they allocated (or not).
# The full tier's debug VM scans these tests too.
job_q_debug() {
	KMAGLEV_TEARDOWN_NETNS=${KMAGLEV_TEARDOWN_NETNS:-10} KMAGLEV_TEARDOWN_ROUNDS=1 \
	KMAGLEV_CP_STATS_BACKENDS=150 KMAGLEV_CP_DUMP_BACKENDS=1000 KMAGLEV_CP_SERVICES=20 \
	KMAGLEV_CP_STATE_EACH=0 KMAGLEV_TEST_TIMEOUT=1500 KMAGLEV_VM_APPEND=kmemleak=off \
		vm_job q-debug debug "KUnit and kselftests on debug kernel ($QUICK_DEBUG)" \
		bash -c '"$1" "$2"; a=$?; shift 2; "$@"; b=$?; exit $((a | b))' - \
		"$TOP/selftests/kunit.sh" "$TOP/build/debug/kmod" "$TOP/selftests/net/run_tests.sh" $QUICK_DEBUG
}
# The hardening suite, bounded: the netlink fuzzer (10,000 messages, with its netns churn,
# user-namespace and unprivileged fuzzers and traffic), fail-nth on the most used config ops
# (a service added, a backend added, a weight changed, a service deleted with connections;
# services of 10 backends, mode once; the state compared through the netlink dumps, not the
# CLI's output too: KMAGLEV_FAULTS_CLI=0) and the packet fuzzer (10,000 frames over both
# modes), one vCPU. One kmemleak scan, the VM's at the end (selftests/vm/guest-init), covers
# all three: faults.sh's own (one before, two after) are left out (KMAGLEV_FAULTS_KMEMLEAK=0).
# 2 GiB rather than the debug kernel's 3: each scan walks every page's struct page, and a
# scan of 3 GiB took 13 to 19 s under emulation, of 1.5 GiB 7 to 10 s; the three tests at these
# sizes fit in 2 GiB with the KASAN shadow.
FAULTS_QUICK="service-new/first backend-new backend-set/weight service-del/conns"
job_q_hardening() {
	KMAGLEV_FUZZ_MSGS=10000 KMAGLEV_FUZZ_PKTS=10000 KMAGLEV_FUZZ_NETNS_MIN=2 \
	KMAGLEV_FAULTS_BACKENDS=10 KMAGLEV_FAULTS_MODES=once KMAGLEV_FAULTS_ONLY=$FAULTS_QUICK \
	KMAGLEV_FAULTS_CLI=0 KMAGLEV_FAULTS_KMEMLEAK=0 KMAGLEV_VM_MEM=2048M \
	KMAGLEV_TEST_TIMEOUT=1500 KMAGLEV_VM_CPUS=1 \
		vm_job q-hardening debug "hardening kselftests on debug kernel (fuzz_netlink faults fuzz_packets)" \
		"$TOP/selftests/net/run_tests.sh" fuzz_netlink faults fuzz_packets
}
# User namespaces, the daemon and BGP on the stock kernel: BIRD alone as the peer, ECMP
# failover in the built-in speaker's mode, IPv4 and IPv6 (the IPv6 pass adds about 25 s,
# 15 s of CPU: Documentation/testing.rst).
job_q_stock_ctl() {
	KMAGLEV_BGP_PEERS=bird KMAGLEV_ECMP_MODES=builtin KMAGLEV_ECMP_FAMILIES="4 6" \
	KMAGLEV_VM_CPUS=1 \
		vm_job q-stock-ctl stock "kselftests on stock kernel ($QUICK_CTL)" \
		"$TOP/selftests/net/run_tests.sh" $QUICK_CTL
}
job_q_stock_dp() {
	KMAGLEV_VM_CPUS=1 \
		vm_job q-stock-dp stock "data-plane kselftests on stock kernel, both hook modes ($QUICK_DP)" \
		"$TOP/selftests/net/run_tests.sh" $QUICK_DP
}

# --- the full tier's jobs ---
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
DEBUG_SET="control_plane dp_basic@$HOOK_TEST teardown"
job_debug() {
	KMAGLEV_TEARDOWN_NETNS=20 KMAGLEV_TEARDOWN_ROUNDS=2 KMAGLEV_CP_STATS_BACKENDS=1000 \
	KMAGLEV_CP_DUMP_BACKENDS=5000 KMAGLEV_CP_SERVICES=100 KMAGLEV_TEST_TIMEOUT=2400 \
		vm_job debug debug "KUnit and kselftests on debug kernel ($DEBUG_SET)" \
		bash -c '"$1" "$2"; a=$?; shift 2; "$@"; b=$?; exit $((a | b))' - \
		"$TOP/selftests/kunit.sh" "$TOP/build/debug/kmod" "$TOP/selftests/net/run_tests.sh" $DEBUG_SET
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
		vm_job kselftest-stock-ctl stock "kselftests on stock kernel ($FUNC_ALL)" \
		"$TOP/selftests/net/run_tests.sh" $FUNC_ALL
}
# The functional kselftests on 6.12 too (every kselftest on every kernel), on Debian's build
# of it (no kmemleak there: the debug kernel's VMs scan the same code).
job_deb612_ctl() {
	KMAGLEV_TEARDOWN_NETNS=50 KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-deb612-ctl deb612 "kselftests on Debian's 6.12 ($FUNC_ALL)" \
		"$TOP/selftests/net/run_tests.sh" $FUNC_ALL
}
job_deb612_a() {
	KMAGLEV_DP_HOOK=$HOOK_TEST \
		vm_job kselftest-deb612-a deb612 "kselftests on Debian's 6.12, dp_* in mode $HOOK_TEST ($DEB612_A)" \
		"$TOP/selftests/net/run_tests.sh" $DEB612_A
}
job_stock_dp() {
	KMAGLEV_DP_HOOK=$HOOK_STOCK KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-stock-dp stock "kselftests on stock kernel, dp_* in mode $HOOK_STOCK ($STOCK_DP)" \
		"$TOP/selftests/net/run_tests.sh" $STOCK_DP
}
# The SYN flood, and 50 module unloads under traffic after 1,000 namespaces, on 6.1.
job_soak_stock() {
	KMAGLEV_DP_HOOK=$HOOK_STOCK KMAGLEV_SOAK_NETNS=${KMAGLEV_SOAK_NETNS:-1000} \
	KMAGLEV_SOAK_UNLOADS=${KMAGLEV_SOAK_UNLOADS:-50} \
		vm_job soak-stock stock "soaks on stock kernel, mode $HOOK_STOCK ($STOCK_SOAK)" \
		"$TOP/selftests/net/run_tests.sh" $STOCK_SOAK
}
# The functional data-plane tests on one vCPU: the concurrent ones (the connection table, the
# churn soak) are in deb612-a, on two.
job_deb612_b() {
	KMAGLEV_DP_HOOK=$HOOK_TEST KMAGLEV_VM_CPUS=1 \
		vm_job kselftest-deb612-b deb612 "kselftests on Debian's 6.12, dp_* in mode $HOOK_TEST ($DEB612_B)" \
		"$TOP/selftests/net/run_tests.sh" $DEB612_B
}
# make install, make uninstall and DKMS on a writable overlay (mostly dkms's own shell work,
# depmod over the stock kernel's modules and kbuild's no-op passes).
job_install() {
	KMAGLEV_TEST_TIMEOUT=3000 KMAGLEV_VM_CPUS=1 \
		vm_job install stock "make install and DKMS on stock kernel (install)" \
		"$TOP/selftests/net/run_tests.sh" install
}
# The Debian packages (deb-prep.sh built them): install, DKMS's build in the guest (twice, N
# and N+1: 15 min each under TCG on a busy host), upgrade under traffic, remove, purge.
job_deb() {
	KMAGLEV_TEST_TIMEOUT=4500 KMAGLEV_VM_TIMEOUT=4800 KMAGLEV_VM_CPUS=1 \
		vm_job deb stock "Debian packages on stock kernel: install, upgrade, purge (deb)" \
		"$TOP/selftests/net/run_tests.sh" deb
}
# The netns and unload soak on 6.12 at full size: 1,000 namespaces and 10 unloads, checked by
# the module's object counters, its refcount and the slabs. Debian's kernel has no kmemleak:
# soak_netns.sh skips its two leak scans there, saying so (the debug kernel's hardening job
# runs the same soak, smaller, with the scans).
job_soak_deb612() {
	KMAGLEV_DP_HOOK=$HOOK_TEST KMAGLEV_SOAK_NETNS=1000 KMAGLEV_SOAK_UNLOADS=10 \
		vm_job soak-deb612 deb612 "netns and unload soak on Debian's 6.12, mode $HOOK_TEST (soak_netns)" \
		"$TOP/selftests/net/run_tests.sh" soak_netns
}

# build-6.12: the compiled 6.12 kernels (waited for), Debian's (unpacked in the phase kernels),
# the module for each
build_612() {
	local k rc secs how kd
	phase build-6.12
	wait "$KBUILD_PID"
	for k in $KERNELS; do
		read -r rc secs cpu 2>/dev/null <"$OUT/kernel-$k.rc" || { rc=1 secs=0 cpu=0; }
		how="built in $secs s, $cpu s of CPU"
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
	for k in $FETCHED; do
		kd=KDIR_$k
		printf -v "$kd" ''
		# (not fetched again here: the phase kernels said why it failed)
		"$VM/kernel.sh" cached "$k" && printf -v "$kd" '%s' "$("$VM/kernel.sh" "$k" 2>/dev/null)"
		[[ -n ${!kd} ]] && ok "$k kernel $(basename "${!kd}") (Debian's packages, unpacked)"
		build_module "$k"
	done
	phase_end
}

# The 6.12 kernels cached: their modules first and the debug kernel's jobs (the longest) at
# once, the stock kernel's module and the source checks beside them, then every other job, the
# longest first, so that the last to start are short. Not cached: the stock kernel's jobs run
# while the kernels build.
if [[ $KERNELS_CACHED == 1 ]]; then
	build_612
	echo "=== the debug kernel's VMs first, as many at a time as fit in $VCPUS vCPUs"
	if [[ $TIER == quick ]]; then
		job_q_debug; job_q_hardening
	else
		job_hardening; job_debug; job_faults
	fi
fi
build_stock
echo "=== KUnit and kselftests in VMs, as many at a time as fit in $VCPUS vCPUs"
if [[ $TIER == quick ]]; then
	if [[ $KERNELS_CACHED == 1 ]]; then
		job_q_stock_ctl; unit_job; job_q_stock_dp
	else
		job_q_stock_ctl; unit_job; job_q_stock_dp
		build_612
		job_q_debug; job_q_hardening
	fi
else
	if [[ $KERNELS_CACHED == 1 ]]; then
		job_stock_ctl; job_deb612_ctl; job_deb612_a
		job_stock_dp; job_soak_stock; job_deb612_b; job_install; job_deb; job_soak_deb612; unit_job
	else
		job_stock_ctl; job_stock_dp; job_soak_stock; job_install; job_deb; unit_job
		build_612
		job_hardening; job_debug; job_faults; job_deb612_ctl; job_deb612_a; job_deb612_b; job_soak_deb612
	fi
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
