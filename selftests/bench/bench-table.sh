#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-table`: Maglev table build time for M=65537 and M=655373 with N=1000, in
# userspace and in the kernel (Debian's stock, non-debug kernel, in a VM), each against the
# paper's pseudocode in the same run. Prints times, ratios and bytes per slot.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
VM=$TOP/selftests/vm
OUT=$TOP/build/bench
mkdir -p "$OUT"
"$VM/deps.sh"

echo "== userspace"
gcc -O2 -Wall -Werror -I"$TOP/kmod" -I"$TOP/userland/lib" -o "$OUT/table_bench" \
	"$TOP/selftests/bench/table_bench.c" "$TOP/kmod/maglev.c" "$TOP/kmod/maglev_ref.c" -lsodium
"$OUT/table_bench"

echo "== kernel ($("$VM/kernel.sh" stock), stock Debian kernel under QEMU)"
dir=$TOP/build/stock
mkdir -p "$dir"
tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' Kbuild kmod uapi |
	tar -C "$dir" -xf -
make -s -C "$("$VM/kernel.sh" stock-kdir)" M="$dir" modules >"$OUT/build.log" 2>&1 ||
	{ cat "$OUT/build.log"; exit 1; }
# kmg_load_module (selftests/net/lib.sh) loads the modules kmaglev.ko needs first.
KMAGLEV_KO=$dir/kmod/kmaglev.ko "$VM/run" --kernel stock -- bash -c "
	source $TOP/selftests/net/lib.sh &&
	kmg_load_module && insmod $dir/kmod/kmaglev_bench.ko &&
	cat /sys/kernel/debug/kmaglev_bench/table; rc=\$?
	rmmod kmaglev_bench; rmmod kmaglev; exit \$rc"
echo "target: kmaglev <= 0.5x textbook; 2 bytes per slot"
