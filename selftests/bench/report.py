#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables of `make bench`, from the raw results of bench-vm.sh (and vcpu-time.py).

    report.py DIR
    report.py --settle DIR A B OVERHEAD

DIR holds pktrate-runs.tsv and pktrate-status.tsv (from the guest) and, if the host could
watch the VM, vcpu.tsv. A run's rate is its packets over the host CPU time of the vCPU that ran
pktgen (vcpu.tsv), or over wall-clock time when that is missing.

The first form prints the rates of every case, then the summary table (every ratio with its
quartiles, target and verdict), and writes the summary table to DIR/summary.txt too. Exit
status 1 when a case could not be measured.

The second form is what the guest asks while it adds rounds of a pair: it prints "N MEDIAN Q1
Q3 IQR SETTLED WHY" for the per-round ratios A/B, computed exactly as the report computes
them; SETTLED is 1, once there are 10 rounds, when the interquartile range is under 3% of the
median or the middle half of the rounds lies on one side of OVERHEAD% (1 - A/B).
"""
import csv
import os
import statistics
import sys
import textwrap

CASES = [
    ("plain", "1  plain IP forwarding"),
    ("ipvs", "2  IPVS mh, tunnel (-i)"),
    ("ipip", "3  kmaglev IPIP, prerouting"),
    ("gre", "4  kmaglev GRE, prerouting"),
    ("ipip-ing", "3i kmaglev IPIP, ingress"),
    ("gre-ing", "4i kmaglev GRE, ingress"),
    ("nonvip", "5  non-VIP, 1000 VIPs"),
    ("steady", "6  kmaglev 100 be, steady"),
    ("rebuild", "6  kmaglev 100 be, rebuilds"),
    ("ipvs-new", "7a IPVS, new flows"),
    ("new", "7b kmaglev, new flows"),
    ("new-full", "7c kmaglev, new, table full"),
    ("new-flood", "7d kmaglev, new, flood mode"),
    ("ipip-ref", "8a kmaglev, 1000 fl, 1M table"),
    ("conn1m", "8b kmaglev, over 1M entries"),
]
LABEL = dict(CASES)
LABEL["conn"] = "9  bytes per conn entry"
LOOPED = {"steady", "rebuild"}  # CPU 1 busy too: not used to find pktgen's vCPU

# The summary: (label, numerator, denominator, target: minimum ratio or None).
SUMMARY = [
    ("IPVS / plain", "ipvs", "plain", None),
    ("IPIP prerouting / plain", "ipip", "plain", 1.00),
    ("IPIP prerouting / IPVS", "ipip", "ipvs", None),
    ("GRE / IPIP, prerouting", "gre", "ipip", 0.95),
    ("IPIP ingress / plain", "ipip-ing", "plain", 1.25),
    ("IPIP ingress / IPVS", "ipip-ing", "ipvs", 1.60),
    ("GRE / IPIP, ingress", "gre-ing", "ipip-ing", 0.95),
    ("non-VIP, 1000 VIPs / unloaded", "nonvip", "plain", 0.97),
    ("rebuilds / steady", "rebuild", "steady", 0.95),
    ("new flows / IPVS new flows", "new", "ipvs-new", 2.00),
    ("new, table full / IPVS new", "new-full", "ipvs-new", 2.00),
    ("new, flood mode / IPVS new", "new-flood", "ipvs-new", 2.00),
    ("1M entries / 1000 flows", "conn1m", "ipip-ref", 0.90),
]
CONN_TARGET = 72  # bytes per entry, hash table share included
IQR_SETTLED = 3.0  # percent of the median
SETTLE_MIN = 10  # rounds before either rule may settle a pair


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
        try:
            kind, case, rnd = row[0].split()
        except ValueError:
            continue
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


class Results:
    """The runs of one bench: rates per (case, round), per vCPU-second where known."""

    def __init__(self, out, vcpu_ok=True):
        self.notes = []
        self.runs = read_tsv(os.path.join(out, "pktrate-runs.tsv"))
        self.status = read_tsv(os.path.join(out, "pktrate-status.tsv")) or []
        self.vcpu = vcpu_times(os.path.join(out, "vcpu.tsv"), self.notes) if vcpu_ok else {}
        self.pps, self.wall, self.rebuilds, self.share = {}, {}, {}, []
        for row in (self.runs or [])[1:]:
            rnd, case, wpps, _, _, rb, pkts, secs = row
            key = (case, rnd)
            self.wall[key] = float(wpps)
            self.rebuilds[key] = int(rb) / float(secs)
            if not self.vcpu:
                self.pps[key] = float(wpps)
                continue
            # A window whose vCPU ran under a fifth of it (the host starved the VM, or the
            # host missed a mark) is left out: its wall-clock rate is not comparable.
            cpu, hwall = self.vcpu.get(key, (0, 0))
            if cpu < 0.2 * float(secs):
                self.notes.append(f"round {rnd} {case}: its vCPU ran {cpu:.2f}s of a "
                                  f"{float(secs):.1f}s window: left out")
            else:
                self.pps[key] = int(pkts) / cpu
                self.share.append(cpu / hwall)
        self.rounds = sorted({r for (_, r) in self.pps}, key=int)

    def vals(self, case, d=None):
        d = self.pps if d is None else d
        return [d[(case, r)] for r in self.rounds if (case, r) in d]

    def ratios(self, a, b):
        """Per-round ratios a/b, over the rounds that measured both."""
        return [self.pps[(a, r)] / self.pps[(b, r)] for r in self.rounds
                if (a, r) in self.pps and (b, r) in self.pps]


def quartiles(x):
    if len(x) < 2:
        return x[0], x[0]
    q = statistics.quantiles(x, n=4, method="inclusive")
    return q[0], q[2]


def spread(x):
    """(n, median, q1, q3, IQR as % of the median) of a list of ratios."""
    med = statistics.median(x)
    q1, q3 = quartiles(x)
    return len(x), med, q1, q3, (q3 - q1) / med * 100 if med else 0.0


def verdict(med, q1, q3, target):
    """met / missed (the median, the target outside the middle half) or inconclusive."""
    if target is None:
        return "-"
    if q1 <= target <= q3 and q1 < q3:
        return "inconclusive (median " + ("meets" if med >= target else "misses") + ")"
    return "met" if med >= target else "missed"


def settle(argv):
    out, a, b, target = argv[0], argv[1], argv[2], float(argv[3])
    x = Results(out).ratios(a, b)
    if not x:
        print("0 - - - - 0 no rounds yet")
        return 0
    n, med, q1, q3, iqr = spread(x)
    lo, hi = (1 - q3) * 100, (1 - q1) * 100  # overhead quartiles, percent
    if n < SETTLE_MIN:
        ok, why = 0, f"fewer than {SETTLE_MIN} rounds"
    elif iqr < IQR_SETTLED:
        ok, why = 1, f"IQR under {IQR_SETTLED:g}%"
    elif hi < target:
        ok, why = 1, f"the middle half of the rounds is under {target:g}% overhead"
    elif lo > target:
        ok, why = 1, f"the middle half of the rounds is over {target:g}% overhead"
    else:
        ok, why = 0, f"IQR {iqr:.1f}% and {target:g}% overhead within the quartiles"
    print(f"{n} {med:.4f} {q1:.4f} {q3:.4f} {iqr:.1f}% {ok} {why}")
    return 0


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--settle":
        return settle(sys.argv[2:])
    out = sys.argv[1]
    res = Results(out)
    if res.runs is None or not os.path.exists(os.path.join(out, "pktrate-status.tsv")):
        print("bench: no results from the VM (pktrate-runs.tsv, pktrate-status.tsv)")
        return 1
    fail, note, conn, nonvip, rounds = {}, {}, None, None, None
    for row in res.status:
        if row[0] == "FAIL":
            fail[row[1]] = row[2]
        elif row[0] == "NOTE":
            note[row[1]] = row[2]
        elif row[0] == "CONN":
            conn = row[1:]
        elif row[0] == "NONVIP":
            nonvip = row[1:]
        elif row[0] == "ROUNDS":
            rounds = row[1:]
    notes = res.notes
    failed = []

    # --- the rates ---------------------------------------------------------------------------
    metric = "pps/vCPU-s" if res.vcpu else "pps (wall)"
    print(f"{'case':<31} {metric:>10} {'min-max':>15} {'wall pps':>9} {'rounds':>6}")
    for case, label in CASES:
        v = res.vals(case)
        if case in fail or not v:
            failed.append((case, fail.get(case, "no runs")))
            print(f"{label:<31} {'-':>10} {'-':>15} {'-':>9} {'-':>6}  NOT MEASURED")
            continue
        print(f"{label:<31} {statistics.median(v):>10.0f} {min(v):>7.0f}-{max(v):<7.0f} "
              f"{statistics.median(res.vals(case, res.wall)):>9.0f} {len(v):>6}")
    print()
    if res.vcpu:
        print(f"{metric}: packets per second of host CPU time given to the vCPU that ran "
              f"pktgen; the host gave it {statistics.median(res.share) * 100:.0f}% of wall time "
              "(median). Rates are medians over rounds.")
    rb = res.vals("rebuild", res.rebuilds)
    if rb and "rebuild" not in fail:
        print(f"Case 6: {statistics.median(rb):.0f} table rebuilds per second (median).")
    if "conn1m" not in fail and "ipip" not in fail and res.vals("conn1m") and res.vals("ipip"):
        print(f"Case 8b against case 3 (another phase, ratio of medians): "
              f"{statistics.median(res.vals('conn1m')) / statistics.median(res.vals('ipip')):.2f}x")

    # --- the summary -------------------------------------------------------------------------
    lines = []
    hdr = (f"{'ratio (per-round, median)':<31} {'ratio':>6} {'quartiles':>13} {'IQR':>6} "
           f"{'n':>3}  {'target':<9} verdict")
    lines.append(hdr)
    for label, a, b, target in SUMMARY:
        tgt = f">= {target:.2f}x" if target is not None else "-"
        if a == "nonvip":
            tgt = "<= 3% ovh"
        why = fail.get(a) or fail.get(b)
        x = [] if why else res.ratios(a, b)
        if not x:
            lines.append(f"{label:<31} {'-':>6} {'-':>13} {'-':>6} {'-':>3}  {tgt:<9} "
                         f"NOT MEASURED")
            continue
        n, med, q1, q3, iqr = spread(x)
        v = verdict(med, q1, q3, target)
        extra = f"  ({(1 - med) * 100:.1f}% overhead)" if a == "nonvip" else ""
        lines.append(f"{label:<31} {med:>5.3f}x {q1:>6.3f}-{q3:<6.3f} {iqr:>5.1f}% {n:>3}  "
                     f"{tgt:<9} {v}{extra}")
    clabel = "bytes per conn entry (+hash)"
    if "conn" in fail or not (conn and conn[0] and conn[1]):
        lines.append(f"{clabel:<31} {'-':>6} {'':>13} {'':>6} {'':>3}  "
                     f"<= {CONN_TARGET} B  NOT MEASURED")
        if "conn" not in fail:
            failed.append(("conn", "no result"))
    else:
        n, b = int(conn[0]), int(conn[1])
        per = b / n
        lines.append(f"{clabel:<31} {per:>5.1f}B {'':>13} {'':>6} {'':>3}  "
                     f"<= {CONN_TARGET} B  {'met' if per <= CONN_TARGET else 'missed'}"
                     f"  ({b} B for {n} entries)")
    text = "\n".join(lines)

    print()
    print(text)
    print()
    print("ratio: the median over rounds of the ratio of two cases measured in the same round "
          "(seconds apart);")
    print("quartiles of those ratios; IQR: their interquartile range, % of the median; n: rounds. "
          "A verdict is")
    print("inconclusive when the target lies within the quartiles.")
    if rounds and rounds[0] != rounds[1]:
        print(f"Cases 1-7 ran {rounds[0]} rounds of {rounds[1]}: the time limit was reached.")
    if nonvip:
        print(f"Case 5 ran {nonvip[0]} rounds: {nonvip[1]}.")
    for n in notes:
        print(f"note: {n}")
    for case, text_ in sorted(note.items()):
        print(f"note: {LABEL.get(case, case).strip()}: {text_}")
    for case, why in failed:
        print(textwrap.fill(f"NOT MEASURED: {LABEL.get(case, case).strip()}: {why}", width=100,
                            subsequent_indent="  "))
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")
        for case, why in failed:
            f.write(f"NOT MEASURED: {LABEL.get(case, case).strip()}: {why}\n")
    if failed:
        print(f"bench: FAILED: {len(failed)} case(s) could not be measured")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
