#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per packet of each function, from `bench.sh --insns CASE`.

    insns.py DIR CASE

Reads DIR/insns-CASE.raw (insn-count.so: "vaddr count" per instruction address executed
between the markers), DIR/insns-CASE.kallsyms (the guest's /proc/kallsyms, modules included)
and DIR/insns-CASE.meta (the run's packets and its timed nanoseconds), and prints every
function's instructions per packet, most first, with the totals by module. The window's total
and the injector's own timing of the same loop (on the instruction clock, 1 ns = 1
instruction) should agree: the difference is the few instructions outside the timed loop
but inside the window, and the clock's rounding.
"""
import bisect
import collections
import sys


def load_symbols(path):
    """Sorted (address, name, module) of the text symbols."""
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            addr = int(p[0], 16)
            if addr == 0:
                continue
            mod = p[3].strip("[]") if len(p) > 3 else ""
            syms.append((addr, p[2], mod))
    syms.sort()
    return syms


def main(d, case):
    base = f"{d}/insns-{case}"
    with open(base + ".meta") as f:
        meta = f.read().split()
    packets, ns = int(meta[1]), int(meta[3])
    syms = load_symbols(base + ".kallsyms")
    if not syms:
        sys.exit("insns: no symbols in " + base + ".kallsyms (kptr_restrict?)")
    addrs = [s[0] for s in syms]
    per_fn = collections.Counter()
    mod_of = {}
    total = 0
    with open(base + ".raw") as f:
        for line in f:
            if line.startswith("#"):
                continue
            va, n = line.split()
            va, n = int(va, 16), int(n)
            total += n
            if va < 0xFFFF800000000000:
                name, mod = "[user space]", "user"
            else:
                i = bisect.bisect_right(addrs, va) - 1
                if i < 0:
                    name, mod = "[kernel, no symbol]", "kernel"
                else:
                    name, mod = syms[i][1], syms[i][2] or "kernel"
            per_fn[name] += n
            mod_of[name] = mod
    if not total or not packets:
        sys.exit("insns: nothing counted")
    by_mod = collections.Counter()
    for name, n in per_fn.items():
        by_mod[mod_of[name]] += n
    out = []
    out.append(f"# case {case}: {packets} packets; instructions between the markers "
               f"{total}, {total / packets:.1f} per packet; the injector's timing of the same "
               f"loop {ns / packets:.1f} ns per packet (differ {100.0 * (total - ns) / ns:+.2f}%)")
    out.append("# by module (instructions per packet, share)")
    for mod, n in by_mod.most_common():
        out.append(f"  {mod:<24} {n / packets:9.1f}  {100.0 * n / total:5.1f}%")
    out.append("# by function, most first (instructions per packet, share, cumulative share, module)")
    cum = 0
    for name, n in per_fn.most_common():
        cum += n
        if n / packets < 0.5:
            break
        out.append(f"  {name:<44} {n / packets:8.1f}  {100.0 * n / total:5.1f}%  "
                   f"{100.0 * cum / total:5.1f}%  {mod_of[name]}")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
