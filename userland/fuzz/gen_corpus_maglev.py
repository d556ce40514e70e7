#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of fuzz_maglev (fuzz/corpus/maglev/): backend sets in fuzz_maglev's
input format (flags, table size, seed, then address/weight/state records; see fuzz_maglev.c).
Run once; the outputs are committed.

    python3 fuzz/gen_corpus_maglev.py [DIR]
"""
import struct

from seedwriter import write_seeds

SMALL, RANGE, BIG, MIN = 0, 1, 2 | 16, 3    # table size ranges
RAW, EQUAL = 4, 8
UP, DRAIN, DOWN = 0, 2, 3
V6 = 0x80


def seed(i):
    return bytes((i * 37 + k) & 0xff for k in range(16))


def inp(flags, size_sel, recs, s=0):
    out = bytes([flags]) + struct.pack("!H", size_sel) + seed(s)
    for addr, weight, state in recs:
        out += struct.pack("!HHB", addr, weight, state)
    return out


def up(n, w=1, start=1, step=1):
    return [(start + i * step, w, UP) for i in range(n)]


SEEDS = {
    "one": inp(SMALL, 0, up(1)),
    "two_equal": inp(SMALL, 100, up(2)),
    "seven_equal": inp(EQUAL | RANGE, 4000, up(7, 3)),
    "hundred_equal": inp(RANGE, 1000, up(100)),
    "full_251": inp(MIN, 0, up(251)),                     # one slot each
    "over_251": inp(MIN, 0, up(252)),                     # more backends than slots
    "ratio_1_10": inp(SMALL, 0, [(1, 1, UP), (2, 10, UP)]),
    "ratio_1_1000": inp(RANGE, 2000, [(1, 1, UP), (2, 1000, UP)], 1),
    "ratio_65535_1": inp(BIG, 0, [(1, 65535, UP), (2, 1, UP)], 2),
    "ratio_3_7": inp(RANGE, 16000, [(1, 3, UP), (2, 7, UP)], 3),
    "mixed": inp(RANGE, 9000, [(i + 1, 1 + (i * 7919) % 1000, UP) for i in range(60)], 4),
    "heavy_tenth": inp(SMALL, 5, [(i + 1, 65535 if i % 10 == 0 else 1, UP)
                                  for i in range(20)], 5),
    "drained_down_zero": inp(SMALL, 50, [(1, 5, UP), (2, 5, DRAIN), (3, 0, UP), (4, 5, DOWN),
                                         (5, 2, UP), (6, 0, DRAIN)], 6),
    "all_drained": inp(SMALL, 0, [(1, 1, DRAIN), (2, 1, DOWN), (3, 0, UP)]),
    "empty": inp(SMALL, 0, []),
    "dual_stack": inp(RANGE, 300, [(1, 2, UP), (1, 3, UP | V6), (0xfffe, 1, UP),
                                   (0xffff, 4, UP | V6)], 7),
    "duplicates": inp(SMALL, 0, [(9, 1, UP), (3, 2, UP), (9, 4, UP)], 8),
    "raw_sorted": inp(RAW, 0, up(5, 2), 9),
    "raw_unsorted": inp(RAW, 0, [(2, 1, UP), (1, 1, UP)]),
    "raw_duplicate": inp(RAW, 0, [(1, 1, UP), (1, 1, UP)]),
    "raw_zero_weight": inp(RAW, 0, [(1, 1, UP), (2, 0, UP), (3, 1, UP)]),
    "raw_over": inp(RAW | MIN, 0, up(252)),
    "big_default_100": inp(BIG, 3, up(100), 10),
    "big_tail_2": inp(BIG, 2, [(1, 1, UP), (2, 2, UP)], 11),      # 131071
    "range_2": inp(2, 12000, [(1, 1, UP), (2, 2, UP)], 12),
}


def main():
    write_seeds(SEEDS, "maglev")


if __name__ == "__main__":
    main()
