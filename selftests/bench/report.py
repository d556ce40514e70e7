#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of `make bench`, from the raw results of bench-vm.sh (and vcpu-time.py).

    report.py DIR

DIR holds pktrate-runs.tsv and pktrate-status.tsv (from the guest) and, if the host could
watch the VM, vcpu.tsv. A run's rate is its packets over the host CPU time of the vCPU that ran
pktgen (vcpu.tsv), or over wall-clock time when that is missing. Exit status 1 when a case
could not be measured.
"""
import csv
import os
import statistics
import sys
import textwrap

CASES = [
    ("plain", "1 plain IP forwarding"),
    ("ipvs", "2 IPVS mh, tunnel (-i)"),
    ("ipip", "3 kmaglev IPIP"),
    ("gre", "4 kmaglev GRE"),
    ("nonvip", "5 non-VIP, 1000 VIPs"),
    ("steady", "6 kmaglev 100 be, steady"),
    ("rebuild", "6 kmaglev 100 be, rebuilds"),
]
LABEL = dict(CASES)
LABEL["conn"] = "7 bytes per conn entry"
# Ratios a target depends on: their quartiles over rounds are printed, to judge the noise.
SPREAD = {"ipvs/plain", "ipip/plain", "ipip/ipvs", "gre/plain", "gre/ipvs", "nonvip/plain",
          "rebuild/steady"}
LOOPED = {"steady", "rebuild"}  # CPU 1 busy too: not used to find pktgen's vCPU


def read_tsv(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return [row for row in csv.reader(f, delimiter="\t")]


def vcpu_times(path, notes):
    """{(case, round): (cpu_s, wall_s)} of the vCPU that ran pktgen, or {} with a note."""
    rows = read_tsv(path)
    if not rows:
        notes.append("no vCPU CPU times from the host (vcpu.tsv): rates are per wall-clock second")
        return {}
    start, win = {}, {}
    for row in rows:
        if len(row) != 3:
            continue
        kind, case, rnd = row[0].split()
        th = {int(t): int(ns) for t, ns in (x.split(":") for x in row[2].split(",") if x)}
        if kind == "start":
            start[(case, rnd)] = (int(row[1]), th)
        elif (case, rnd) in start:
            ns0, th0 = start.pop((case, rnd))
            win[(case, rnd)] = ((int(row[1]) - ns0) / 1e9,
                                {t: (ns - th0.get(t, 0)) / 1e9 for t, ns in th.items()})
    plain = [d for (c, _), (_, d) in win.items() if c not in LOOPED]
    if not plain:
        notes.append("vcpu.tsv has no usable windows: rates are per wall-clock second")
        return {}
    total = {}
    for d in plain:
        for t, s in d.items():
            total[t] = total.get(t, 0) + s
    tid = max(total, key=total.get)
    top = sum(1 for d in plain if max(d, key=d.get) == tid)
    if top < 0.8 * len(plain):
        notes.append(f"no single host thread ran pktgen's vCPU ({top}/{len(plain)} windows): "
                     "rates are per wall-clock second")
        return {}
    return {k: (d.get(tid, 0), wall) for k, (wall, d) in win.items()}


def fmt_ratio(x):
    return f"{x:.2f}x" if x is not None else "-"


def main():
    out = sys.argv[1]
    notes = []
    runs = read_tsv(os.path.join(out, "pktrate-runs.tsv"))
    status = read_tsv(os.path.join(out, "pktrate-status.tsv"))
    if runs is None or status is None:
        print("bench: no results from the VM (pktrate-runs.tsv, pktrate-status.tsv)")
        return 1
    fail, note, conn = {}, {}, None
    for row in status:
        if row[0] == "FAIL":
            fail[row[1]] = row[2]
        elif row[0] == "NOTE":
            note[row[1]] = row[2]
        elif row[0] == "CONN":
            conn = row[1:]
    vcpu = vcpu_times(os.path.join(out, "vcpu.tsv"), notes)

    pps, wall, rebuilds, share = {}, {}, {}, []
    for row in runs[1:]:
        rnd, case, wpps, _, _, rb, pkts, secs = row
        key = (case, rnd)
        wall[key] = float(wpps)
        rebuilds[key] = int(rb) / float(secs)
        pps[key] = float(wpps)
        if vcpu:
            cpu, hwall = vcpu.get(key, (0, 0))
            if cpu < 0.2 * float(secs):
                notes.append(f"round {rnd} {case}: no vCPU time for its window, wall-clock rate used")
            else:
                pps[key] = int(pkts) / cpu
                share.append(cpu / hwall)
    rounds = sorted({r for (_, r) in pps}, key=int)

    def vals(case, d=pps):
        return [d[(case, r)] for r in rounds if (case, r) in d]

    spreads = []

    def ratios(a, b):
        return [pps[(a, r)] / pps[(b, r)] for r in rounds if (a, r) in pps and (b, r) in pps]

    def quartiles(x):
        if len(x) < 2:
            return x[0], x[0]
        q = statistics.quantiles(x, n=4, method="inclusive")
        return q[0], q[2]

    def ratio(a, b):
        x = ratios(a, b)
        if not x:
            return None
        if f"{a}/{b}" in SPREAD:
            lo, hi = quartiles(x)
            spreads.append(f"{a}/{b} {statistics.median(x):.3f} [{lo:.3f}-{hi:.3f}]")
        return statistics.median(x)

    missed, failed = [], []

    def verdict(case, v, op, target, unit, quart=None, digits=2):
        """Record a missed target, by how much, and whether the noise covers it."""
        if v is None:
            return
        v = round(v, digits)
        noise = ""
        if quart and quart[0] <= target <= quart[1]:
            noise = " (inconclusive: the target is within the middle half of the rounds)"
        if op == ">=" and v < target:
            missed.append(f"{LABEL[case]}: {v:.2f}{unit}, target >= {target:.2f}{unit}: "
                          f"short by {(target - v) / target * 100:.1f}%{noise}")
        elif op == "<=" and v > target:
            missed.append(f"{LABEL[case]}: {v:.1f}{unit}, target <= {target:g}{unit}: "
                          f"over by {v - target:.1f} points{noise}")

    def quart(a, b, f=lambda x: x):
        x = ratios(a, b)
        return tuple(sorted(map(f, quartiles(x)))) if x else None

    metric = "pps/vCPU-s" if vcpu else "pps (wall)"
    print(f"{'case':<28} {metric:>10} {'min-max':>13} {'wall pps':>9} {'vs plain':>8} "
          f"{'vs IPVS':>8}  target")
    for case, label in CASES:
        v = vals(case)
        if case in fail or not v:
            failed.append(f"{label}: {fail.get(case, 'no runs')}")
            print(f"{label:<28} {'-':>10} {'-':>13} {'-':>9} {'-':>8} {'-':>8}  NOT MEASURED")
            continue
        vp, vi = ratio(case, "plain"), ratio(case, "ipvs")
        if case in ("plain", "ipvs"):
            tgt = "(baseline)"
        elif case in ("ipip", "gre"):
            tgt = ">= 1.00x plain, >= 1.40x IPVS"
            verdict(case, vp, ">=", 1.0, "x plain", quart(case, "plain"))
            verdict(case, vi, ">=", 1.4, "x IPVS", quart(case, "ipvs"))
        elif case == "nonvip":
            ov = (1 - vp) * 100 if vp is not None else None
            tgt = f"overhead {ov:.1f}% vs unloaded (target <= 3%)" if ov is not None else "?"
            verdict(case, ov, "<=", 3, "% overhead", quart(case, "plain", lambda x: (1 - x) * 100), 1)
        elif case == "steady":
            tgt = "(baseline of case 6)"
        else:
            vs = ratio("rebuild", "steady")
            rbs = statistics.median(vals("rebuild", rebuilds))
            tgt = f"{fmt_ratio(vs)} steady at {rbs:.0f} rebuilds/s (target >= 0.95x)"
            verdict(case, vs, ">=", 0.95, "x steady", quart("rebuild", "steady"))
        print(f"{label:<28} {statistics.median(v):>10.0f} {min(v):>6.0f}-{max(v):<6.0f} "
              f"{statistics.median(vals(case, wall)):>9.0f} {fmt_ratio(vp):>8} {fmt_ratio(vi):>8}  {tgt}")
    if "conn" in fail:
        failed.append(f"{LABEL['conn']}: {fail['conn']}")
        print(f"{LABEL['conn']:<28} NOT MEASURED")
    if conn and conn[0] and conn[1]:
        n, b = int(conn[0]), int(conn[1])
        print(f"{LABEL['conn']:<28} {b / n:.1f} B/entry ({b} B for {n} entries"
              f"{', kmaglev config show: ' + conn[2] if len(conn) > 2 and conn[2] else ''})")
    elif "conn" not in fail:
        failed.append(f"{LABEL['conn']}: no result")

    print()
    if vcpu:
        print(f"{metric}: packets per second of host CPU time given to the vCPU that ran pktgen; "
              f"the host gave it {statistics.median(share) * 100:.0f}% of wall time (median).")
    print(f"Medians over {len(rounds)} rounds; a ratio is the median of per-round ratios.")
    if spreads:
        print(textwrap.fill("Per-round ratios, median [quartiles]: " + "; ".join(spreads),
                            width=100, subsequent_indent="  "))
    for n in notes:
        print(f"note: {n}")
    for case, text in sorted(note.items()):
        print(f"note: {LABEL.get(case, case)}: {text}")
    print()
    if not missed and not failed:
        print("all targets met")
    for m in missed:
        print(f"TARGET MISSED: {m}")
    for f in failed:
        print(f"NOT MEASURED: {f}")
    if failed:
        print(f"bench: FAILED: {len(failed)} case(s) could not be measured")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
