#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: the load balancer end to end in a VM. On the host: install what is missing
# (selftests/vm/deps.sh), build kmaglev.ko for Debian's stock kernel (as selftests/check.sh
# does, into build/stock) and the kmaglev CLI; then run selftests/demo/demo-vm.sh in a stock
# kernel VM: namespaces for a client, a router, two LBs and three backends, one VIP, real
# curl traffic, drain, removal, and a connection moved between LBs. A few minutes without KVM.
# Exits non-zero if the build fails or a property the demo shows does not hold.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
VM=$TOP/selftests/vm
LOG=$TOP/build/demo
cd "$TOP" || exit 1
mkdir -p "$LOG"

# step DESC LOG CMD...: run quietly; on failure show the log's tail and stop.
step() {
	local desc=$1 log=$2
	shift 2
	echo "demo: $desc"
	if ! "$@" >"$log" 2>&1; then
		tail -n 30 "$log" | sed 's/^/    /'
		echo "demo: failed: $desc (log: ${log#"$TOP"/})" >&2
		exit 1
	fi
}

# The module for the stock kernel, from the sources only, as selftests/check.sh builds it.
build_stock() {
	local kdir dir=$TOP/build/stock
	kdir=$("$VM/kernel.sh" stock-kdir) || return 1
	mkdir -p "$dir"
	tar -C "$TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers --exclude='*.a' \
		Kbuild kmod uapi | tar -C "$dir" -xf -
	make -C "$kdir" M="$dir" -j"$(nproc)" modules
}

step "dependencies (selftests/vm/deps.sh)" "$LOG/deps.log" "$VM/deps.sh"
step "stock kernel and its initrd" "$LOG/kernel.log" "$VM/kernel.sh" stock-initrd
step "kmaglev.ko for $("$VM/kernel.sh" stock) (build/stock)" "$LOG/build.log" build_stock
step "the kmaglev CLI (userland/)" "$LOG/userland.log" make -C userland -j"$(nproc)"
echo "demo: starting a VM with the stock kernel (no KVM: this takes a few minutes)"
echo
KMAGLEV_KO=$TOP/build/stock/kmod/kmaglev.ko "$VM/run" --kernel stock --timeout 900 -- \
	"$TOP/selftests/demo/demo-vm.sh"
rc=$?
echo
if [[ $rc -eq 0 ]]; then
	echo "demo: done"
else
	echo "demo: FAILED (exit $rc)" >&2
fi
exit $rc
