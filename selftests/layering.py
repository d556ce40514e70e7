#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tree's layering (Documentation/architecture.rst), checked from what the compiler made.

  selftests/layering.py [TOP]

Two checks, after a build:

- No call circles. Every object file of userland (build/userland/) and of the module (the
  newest build/*/kmod/ or build/kmod/) is read with nm: file A calls file B when A's object
  uses a function that B's object defines. A set of files that reach each other through such
  calls is a circle, and fails. (Calls, not includes: a header that declares another file's
  functions would hide a circle from an include check.) Data is not a call: a file may read
  a variable of the module's entry (main.c: its workqueue, its pernet id). A file generated
  from the YNL spec (a YNL-GEN marker: the family's op table pointing at its handlers) is
  the family's table, handed to genetlink, not a caller: its references are left out, as a
  callback table is.
- Rooms. userland's rooms are ordered lib/ < bgp/ < daemon/ < cli/ (tests/ and fuzz/ above
  them all): a file may call into its own room and the rooms below it, never above. A call
  from a room into a higher one fails with both files and the symbols.

Prints one line per finding and "layering: ok (N files, M calls)" when there is none; exits
1 on a finding, 2 when there is nothing to read (build first).
"""
import glob
import os
import subprocess
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), '..'))
ROOMS = ['userland/lib', 'userland/bgp', 'userland/daemon', 'userland/cli']


def objects():
    """{source path: object path} for userland's objects and the newest module build's."""
    out = {}
    ub = os.path.join(TOP, 'build', 'userland')
    for o in glob.glob(os.path.join(ub, '**', '*.o'), recursive=True):
        rel = os.path.relpath(o, ub)[:-2] + '.c'
        if rel == 'maglev.c':               # kmod/maglev.c, built for the CLI
            continue
        out['userland/' + rel] = o
    kdirs = [d for d in glob.glob(os.path.join(TOP, 'build', '*', 'kmod')) +
             [os.path.join(TOP, 'build', 'kmod')]
             if os.path.exists(os.path.join(d, 'kmaglev.ko'))]
    if kdirs:
        kd = max(kdirs, key=lambda d: os.path.getmtime(os.path.join(d, 'kmaglev.ko')))
        for o in glob.glob(os.path.join(kd, '**', '*.o'), recursive=True):
            rel = os.path.relpath(o, kd)
            base = os.path.basename(rel)
            # the linked modules and kbuild's own objects are not source files
            if base.endswith('.mod.o') or base in ('kmaglev.o', 'kmaglev_kunit.o',
                                                   'kmaglev_bench.o'):
                continue
            out['kmod/' + rel[:-2] + '.c'] = o
    return out


def symbols(obj):
    """(functions defined, symbols used) of an object."""
    r = subprocess.run(['nm', obj], capture_output=True, text=True, check=True)
    defined, used = set(), set()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == 'U':
            used.add(f[1])
        elif len(f) == 3 and f[1] in 'TW':
            defined.add(f[2])
    return defined, used


def generated(src):
    try:
        with open(os.path.join(TOP, src), encoding='utf-8', errors='replace') as f:
            return 'YNL-GEN' in f.read(4096)
    except OSError:
        return False


def rank(path):
    if not path.startswith('userland/'):
        return None
    for i, room in enumerate(ROOMS):
        if path.startswith(room + '/'):
            return i
    return len(ROOMS)                       # tests/, fuzz/: above every room


def circles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def main():
    objs = objects()
    if not objs:
        print('layering: no objects under build/ (make, and a module build, first)')
        return 2
    syms = {src: symbols(o) for src, o in objs.items()}
    owner = {}
    for src, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, src)
    graph = {src: set() for src in syms}
    why = {}
    for src, (_, used) in syms.items():
        if generated(src):
            continue
        for s in used:
            dst = owner.get(s)
            if dst and dst != src:
                graph[src].add(dst)
                why.setdefault((src, dst), set()).add(s)
    bad = 0
    for comp in circles(graph):
        bad += 1
        print('layering: call circle: ' + ' -> '.join(comp))
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    print('    %s -> %s: %s' % (a, b, ', '.join(sorted(why[a, b]))))
    for (a, b), names in sorted(why.items()):
        ra, rb = rank(a), rank(b)
        if ra is not None and rb is not None and rb > ra:
            bad += 1
            print('layering: %s calls up into %s: %s' % (a, b, ', '.join(sorted(names))))
    if bad:
        return 1
    print('layering: ok (%d files, %d calls between files)' % (len(graph), len(why)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
