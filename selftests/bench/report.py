#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables of `make bench`, from the raw results of bench-vm.sh.

    report.py DIR
    report.py --compare DIR1 DIR2

DIR holds pktrate-runs.tsv and pktrate-status.tsv (from the guest). A run's cost is its guest
nanoseconds over its packets: on QEMU's instruction clock, instructions per packet.

The first form prints the cost of every case, then the summary (every ratio with its target
and verdict), and writes the summary to DIR/summary.txt too. Exit status 1 when a case could
not be measured.

The second form sets the summary ratios of two runs side by side with their difference, and
says the largest (how `make bench` shows that its figures hold from run to run).
"""
import csv
import os
import statistics
import sys

CASES = [
    ("gen", "generator alone (dropped at ip_rcv)"),
    ("plain", "plain IP forwarding"),
    ("ipvs", "IPVS mh, tunnel (-i)"),
    ("ipvs-nodf", "IPVS as ipvs, no DF"),
    ("ipip", "kmaglev IPIP, prerouting"),
    ("gre", "kmaglev GRE, prerouting"),
    ("dr", "kmaglev DR (L2), prerouting"),
    ("ipip-ing", "kmaglev IPIP, ingress"),
    ("ipip-ing-nodf", "kmaglev IPIP, ingress, no DF"),
    ("gre-ing", "kmaglev GRE, ingress"),
    ("dr-ing", "kmaglev DR (L2), ingress"),
    ("nonvip", "non-VIP, 1000 VIPs loaded"),
    ("steady", "kmaglev 100 be, steady"),
    ("rebuild", "kmaglev 100 be, rebuilds"),
    ("ipvs-new", "IPVS, new flows"),
    ("new", "kmaglev new flows, prerouting"),
    ("new-ing", "kmaglev new flows, ingress"),
    ("new-quota-ing", "kmaglev new, quotas on, ingress"),
    ("new-full", "kmaglev new, table full"),
    ("new-flood", "kmaglev new, flood mode"),
    ("ipvs-new-500k", "IPVS new, 500k present"),
    ("new-500k", "kmaglev new, 500k, prerouting"),
    ("new-500k-ing", "kmaglev new, 500k, ingress"),
    ("ipip-ref", "kmaglev 1000 fl, 1M table"),
    ("conn1m", "kmaglev over 1M entries"),
    ("tcp-direct", "TCP to the backend, routed (per KB)"),
    ("tcp-vip", "TCP via the VIP, ingress (per KB)"),
]
LABEL = dict(CASES)
LABEL["conn"] = "bytes per conn entry"

# The summary: (label, kind, numerator, denominator, target, sense).
# kind "rate": the numerator's packet rate over the denominator's (the inverse of their costs);
# kind "cost": their corrected costs (the generator's taken off both).
# sense ">=": the target is a minimum, "<=": a maximum.
SUMMARY = [
    ("IPVS / plain, rate", "rate", "ipvs", "plain", None, ">="),
    ("IPIP prerouting / plain, rate", "rate", "ipip", "plain", 1.00, ">="),
    ("IPIP prerouting / IPVS, rate", "rate", "ipip", "ipvs", None, ">="),
    ("GRE / IPIP prerouting, rate", "rate", "gre", "ipip", 0.95, ">="),
    ("IPIP ingress / plain, rate", "rate", "ipip-ing", "plain", None, ">="),
    ("IPIP ingress / plain, cost", "cost", "ipip-ing", "plain", 0.80, "<="),
    ("IPIP ingress / IPVS, rate", "rate", "ipip-ing", "ipvs", 1.60, ">="),
    ("no DF: ingress / plain, cost", "cost", "ipip-ing-nodf", "plain", 0.80, "<="),
    ("no DF: ingress / IPVS, rate", "rate", "ipip-ing-nodf", "ipvs-nodf", 1.60, ">="),
    ("GRE / IPIP ingress, rate", "rate", "gre-ing", "ipip-ing", 0.95, ">="),
    ("DR / IPIP prerouting, rate", "rate", "dr", "ipip", 0.95, ">="),
    ("DR / IPIP ingress, rate", "rate", "dr-ing", "ipip-ing", 0.95, ">="),
    ("non-VIP, 1000 VIPs / unloaded", "rate", "nonvip", "plain", 0.99, ">="),
    ("rebuilds / steady, rate", "rate", "rebuild", "steady", 0.95, ">="),
    ("new prerouting / IPVS new", "rate", "new", "ipvs-new", 2.00, ">="),
    ("new ingress / IPVS new", "rate", "new-ing", "ipvs-new", 2.00, ">="),
    ("new, quotas on / off, rate", "rate", "new-quota-ing", "new-ing", 0.95, ">="),
    ("new, table full / IPVS new", "rate", "new-full", "ipvs-new", 2.00, ">="),
    ("new, flood mode / IPVS new", "rate", "new-flood", "ipvs-new", 2.00, ">="),
    ("new prerouting, 500k / IPVS", "rate", "new-500k", "ipvs-new-500k", 2.00, ">="),
    ("new ingress, 500k / IPVS", "rate", "new-500k-ing", "ipvs-new-500k", 2.00, ">="),
    ("1M entries / 1000 flows, rate", "rate", "conn1m", "ipip-ref", 0.90, ">="),
    ("TCP via VIP / direct, rate", "rate", "tcp-vip", "tcp-direct", 0.95, ">="),
]
BYTES_TARGET = 64.0


def is_new(case):
    return case.startswith("new") or case.startswith("ipvs-new")


def load(d):
    """(figures, spreads, rounds, fails, notes, conn, params) of one run directory."""
    runs = {}
    path = os.path.join(d, "pktrate-runs.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                n, ns = int(row["packets"]), int(row["ns"])
                if n and ns:
                    runs.setdefault(row["case"], []).append(ns / n)
    fails, notes, conn, params = {}, {}, None, ""
    path = os.path.join(d, "pktrate-status.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if p[0] == "FAIL":
                    fails[p[1]] = p[2]
                elif p[0] == "NOTE":
                    notes[p[1]] = p[2]
                elif p[0] == "CONN" and p[1] and p[2]:
                    conn = (int(p[1]), int(p[2]), p[3] if len(p) > 3 else "")
                elif p[0] == "PARAM":
                    params = p[1]
    fig, spread = {}, {}
    for c, v in runs.items():
        # steady cases: the cheapest round (what lands in one run only adds); new flows: the
        # mean (the runs draw different random flows)
        fig[c] = statistics.mean(v) if is_new(c) else min(v)
        spread[c] = 100.0 * (max(v) - min(v)) / fig[c]
    return fig, spread, {c: len(v) for c, v in runs.items()}, fails, notes, conn, params


def ratio(fig, kind, a, b):
    if a not in fig or b not in fig:
        return None
    if kind == "rate":
        return fig[b] / fig[a]
    g = fig.get("gen")
    if g is None or fig[b] <= g:
        return None
    return (fig[a] - g) / (fig[b] - g)


def verdict(r, target, sense):
    if target is None:
        return "-"
    ok = r >= target if sense == ">=" else r <= target
    return "met" if ok else "MISSED"


def report(d):
    fig, spread, nrounds, fails, notes, conn, params = load(d)
    g = fig.get("gen")
    out = []
    out.append("Per-packet cost on the instruction clock (1 ns = 1 guest instruction); " + params)
    out.append("  steady cases: cheapest round; new flows: mean of the rounds; spread: max-min of the rounds")
    out.append("")
    out.append(f"  {'case':<14} {'what':<36} {'ns/pkt':>8} {'corrected':>9} {'Mpps@1GIPS':>10} {'rounds':>6} {'spread':>7}")
    for c, label in CASES:
        if c in fig:
            corr = (f"{fig[c] - g:9.0f}" if g is not None and c != "gen" and not c.startswith("tcp")
                    else f"{'-':>9}")
            out.append(f"  {c:<14} {label:<36} {fig[c]:8.0f} {corr} {1000.0 / fig[c]:10.4f} "
                       f"{nrounds[c]:6d} {spread[c]:6.2f}%")
        elif c in fails:
            out.append(f"  {c:<14} {label:<36} NOT MEASURED: {fails[c]}")
    out.append("  (corrected: less the generator's own cost, gen; Mpps@1GIPS: the rate of a CPU "
               "that runs 10^9 of these instructions a second;")
    out.append("  tcp-*: the whole path's, client and server included, per kilobyte received; "
               "their Mpps@1GIPS column is GB/s)")
    summ = []
    summ.append(f"{'ratio':<32} {'value':>7}  {'target':<8} verdict")
    for label, kind, a, b, target, sense in SUMMARY:
        r = ratio(fig, kind, a, b)
        if r is None:
            if a in fails or b in fails:
                summ.append(f"{label:<32} {'-':>7}  {'':<8} not measured "
                            f"({fails.get(a) or fails.get(b)})")
            continue
        t = f"{sense} {target:.2f}x" if target is not None else "-"
        summ.append(f"{label:<32} {r:6.3f}x  {t:<8} {verdict(r, target, sense)}")
    if conn:
        n, b, cli = conn
        bpe = b / n if n else 0
        summ.append(f"{'bytes per IPv4 conn entry':<32} {bpe:6.1f}B  {'<= 64 B':<8} "
                    f"{'met' if bpe <= BYTES_TARGET else 'MISSED'} ({b} B for {n} entries)")
    elif "conn" in fails:
        summ.append(f"{'bytes per IPv4 conn entry':<32} {'-':>7}  not measured ({fails['conn']})")
    out.append("")
    out.append("Summary")
    out += ["  " + s for s in summ]
    if notes:
        out.append("")
        out.append("Notes")
        out += [f"  {c}: {t}" for c, t in sorted(notes.items())]
    if fails:
        out.append("")
        out.append("NOT MEASURED")
        out += [f"  {c} ({LABEL.get(c, c)}): {t}" for c, t in sorted(fails.items())]
    print("\n".join(out))
    with open(os.path.join(d, "summary.txt"), "w") as f:
        f.write("\n".join(summ) + "\n")
    return 1 if fails else 0


def param(params, key, default):
    """A key's value in a PARAM line ("source=inject df=1 ..."); default when absent."""
    for kv in params.split():
        k, _, v = kv.partition("=")
        if k == key:
            return v
    return default


def compare(d1, d2):
    (f1, *_, p1), (f2, *_, p2) = load(d1), load(d2)
    print(f"run 1: {d1}: {p1 or 'no parameters recorded'}")
    print(f"run 2: {d2}: {p2 or 'no parameters recorded'}")
    # runs from before df= sent frames without DF
    df1, df2 = param(p1, "df", "0"), param(p2, "df", "0")
    if df1 != df2:
        print(f"warning: run 1's frames have df={df1}, run 2's df={df2}: the outer IPv4 ID "
              "differs in cost with DF, so the ratios of the cases that encapsulate do not "
              "compare")
    print(f"{'ratio':<32} {'run 1':>8} {'run 2':>8} {'differ':>7}")
    worst = 0.0
    for label, kind, a, b, _, _ in SUMMARY:
        r1, r2 = ratio(f1, kind, a, b), ratio(f2, kind, a, b)
        if r1 is None or r2 is None:
            continue
        diff = 100.0 * abs(r1 - r2) / ((r1 + r2) / 2)
        worst = max(worst, diff)
        print(f"{label:<32} {r1:7.3f}x {r2:7.3f}x {diff:6.2f}%")
    print(f"largest difference: {worst:.2f}%")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(report(sys.argv[1]))
