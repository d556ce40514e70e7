# SPDX-License-Identifier: GPL-2.0
"""The seed writer the corpus generators share: each SEEDS entry as a file in DIR (argv[1],
by default corpus/NAME beside this script)."""
import os
import sys


def write_seeds(seeds, name):
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                         "corpus", name)
    os.makedirs(d, exist_ok=True)
    for seed, data in seeds.items():
        with open(os.path.join(d, seed), "wb") as f:
            f.write(data)
