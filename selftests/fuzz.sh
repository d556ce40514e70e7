#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make fuzz`: the fuzzers of `make check`, run longer. On the host, every libFuzzer target of
# userland (the BGP message parser, kmod/parse.c and kmod/maglev.c built for userspace) for
# KMAGLEV_FUZZ_SECONDS each (default 600); then, on the debug kernel (KASAN, KMEMLEAK, UBSAN,
# lockdep), the netlink fuzzer and the packet fuzzer in a VM each, with ten times the
# messages and packets of `make check` (KMAGLEV_FUZZ_MSGS, KMAGLEV_FUZZ_PKTS: default 1,000,000
# each). A crash, a sanitizer report, a kernel splat or a kmemleak report fails it.
# Exits non-zero if anything failed; the last line is "N passed, N failed" as in `make check`.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/selftests/vm
OUT=$TOP/build/fuzz
cd "$TOP" || exit 1
mkdir -p "$OUT"
rm -f "$OUT"/*.log "$OUT"/*.rc "$OUT"/*.result	# a previous run's figures
PASS=0
FAIL=0

# step DESC LOG CMD...: one pass/fail check; on failure show the log's tail.
step() {
	local desc=$1 log=$2
	shift 2
	echo "fuzz: $desc"
	if "$@" >"$log" 2>&1; then
		PASS=$((PASS + 1))
		return 0
	fi
	FAIL=$((FAIL + 1))
	tail -n 30 "$log" | sed 's/^/    /'
	echo "fuzz: FAIL $desc (log: ${log#"$TOP"/})"
	return 1
}
finish() {
	grep -h '# reliability:' "$OUT"/*.log 2>/dev/null | sed 's/^.*# reliability: */  /'
	echo "$PASS passed, $FAIL failed"
	[[ $FAIL -eq 0 ]]
}
trap 'finish; exit $?' EXIT

build_debug() {
	local kdir dir=$TOP/build/debug
	kdir=$("$VM/kernel.sh" debug) || return 1
	mkdir -p "$dir"
	tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		Kbuild kmod uapi | tar -C "$dir" -xf -
	make -C "$kdir" M="$dir" -j"$(nproc)" modules
}

step "dependencies (selftests/vm/deps.sh)" "$OUT/deps.log" "$VM/deps.sh" || exit
SECS=${KMAGLEV_FUZZ_SECONDS:-600}
step "userland libFuzzer targets, ${SECS}s each" "$OUT/userland.log" \
	make -C userland -s fuzz FUZZ_SECONDS="$SECS" &&
	grep -E '^(Done|#[0-9]+ +DONE)' "$OUT/userland.log" | sed 's/^/     /'
step "debug kernel (cold: about 20 min)" "$OUT/kernel.log" "$VM/kernel.sh" debug || exit
step "module for the debug kernel" "$OUT/build-debug.log" build_debug || exit
step "CLI and test tools" "$OUT/tools.log" \
	bash -c "make -C '$TOP/userland' -j$(nproc) && make -C '$TOP/selftests/tools' -j$(nproc)" || exit
export KMAGLEV_FUZZ_MSGS=${KMAGLEV_FUZZ_MSGS:-1000000}
export KMAGLEV_FUZZ_PKTS=${KMAGLEV_FUZZ_PKTS:-1000000}
# The two fuzzers in two VMs at once (the packet fuzzer's on one vCPU, as in `make check`):
# about 124 messages and 380 frames a second there, so two and a bit hours for the netlink
# fuzzer's million, 45 minutes for the packets'.
fuzz_vm() {
	local name=$1 cpus=$2 test=$3
	env KMAGLEV_TEST_TIMEOUT=14400 KMAGLEV_KO="$TOP/build/debug/kmod/kmaglev.ko" \
		"$VM/run" --kernel debug --cpus "$cpus" --timeout 15000 -- \
		"$TOP/selftests/net/run_tests.sh" "$test" >"$OUT/vm-$name.log" 2>&1
	echo $? >"$OUT/vm-$name.rc"
}
echo "fuzz: netlink fuzzer ($KMAGLEV_FUZZ_MSGS messages) and packet fuzzer ($KMAGLEV_FUZZ_PKTS packets) on the debug kernel, two VMs"
fuzz_vm netlink 2 fuzz_netlink &
fuzz_vm packets 1 fuzz_packets &
wait
# vm_ok NAME: the VM exited 0 (no splat, no kmemleak report) and its test passed, not
# skipped; the log for step to show
vm_ok() {
	cat "$OUT/vm-$1.log"
	[[ $(cat "$OUT/vm-$1.rc") == 0 ]] && grep -q '^ok 1 ' "$OUT/vm-$1.log" &&
		! grep -q '^ok 1 .*# SKIP' "$OUT/vm-$1.log"
}
for name in netlink packets; do
	step "fuzz_$name.sh on the debug kernel" "$OUT/vm-$name.result" vm_ok "$name"
done
