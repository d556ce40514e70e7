#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make fuzz`: the fuzzers of `make check`, run longer. On the host, every libFuzzer target of
# userland (the BGP message parser, kmod/parse.c and kmod/maglev.c built for userspace) for
# KMAGLEV_FUZZ_SECONDS each (default 600); then, in one VM on the debug kernel (KASAN,
# KMEMLEAK, UBSAN, lockdep), the netlink fuzzer and the packet fuzzer with ten times the
# messages and packets of `make check` (KMAGLEV_FUZZ_MSGS, KMAGLEV_FUZZ_PKTS: default 1,000,000
# each). A crash, a sanitizer report, a kernel splat or a kmemleak report fails it.
# Exits non-zero if anything failed; the last line is "N passed, N failed" as in `make check`.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/selftests/vm
OUT=$TOP/.build/fuzz
cd "$TOP" || exit 1
mkdir -p "$OUT"
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
	local kdir dir=$TOP/.build/debug
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
step "netlink and packet fuzzers on the debug kernel ($KMAGLEV_FUZZ_MSGS messages, $KMAGLEV_FUZZ_PKTS packets)" \
	"$OUT/vm.log" env KMAGLEV_TEST_TIMEOUT=14400 KMAGLEV_KO="$TOP/.build/debug/kmod/kmaglev.ko" \
	"$VM/run" --kernel debug --timeout 15000 -- "$TOP/selftests/net/run_tests.sh" fuzz_netlink fuzz_packets
