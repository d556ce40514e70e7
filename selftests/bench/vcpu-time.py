#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host CPU time of a QEMU process's threads at the guest's marks (part of `make bench`).

    vcpu-time.py QEMU_PID MARKS OUT

The guest appends lines to MARKS (a file in the checkout, shared over 9p); as soon as a new
line appears, this records it with the host's monotonic time and the CPU time (ns, from
/proc/PID/task/TID/schedstat) of every thread of QEMU_PID, one line in OUT:

    MARK<TAB>HOST_NS<TAB>TID:NS,TID:NS,...

until QEMU_PID exits. Under TCG each vCPU is a host thread, so the CPU time of the vCPU that
runs pktgen is the time the host really gave it: packets per vCPU-second do not depend on
how many other VMs share the host, which packets per wall-clock second do.
"""
import os
import sys
import time

POLL = 0.005


def threads(pid):
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in sorted(tids, key=int):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                out.append(f"{tid}:{f.read().split()[0]}")
        except (OSError, IndexError):
            pass
    return ",".join(out)


def main():
    pid, marks, outpath = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    pos = 0
    buf = b""
    with open(outpath, "w") as out:
        while os.path.exists(f"/proc/{pid}"):
            try:
                with open(marks, "rb") as f:
                    f.seek(pos)
                    data = f.read()
            except OSError:
                data = b""
            if data:
                pos += len(data)
                buf += data
                *lines, buf = buf.split(b"\n")
                if lines:
                    now = time.monotonic_ns()
                    th = threads(pid)
                    if th is None:
                        break
                    for line in lines:
                        out.write(f"{line.decode(errors='replace')}\t{now}\t{th}\n")
                    out.flush()
            time.sleep(POLL)


if __name__ == "__main__":
    main()
