#!/usr/bin/env python3
"""Peak resident memory of a process tree, for scripts/bench-serve.sh: samples the
summed VmRSS of ROOT_PID and all its descendants every 20 ms until it is
signalled (SIGTERM/SIGINT) or ROOT_PID exits, then prints the peak in MiB.

Usage: rss_peak.py ROOT_PID"""
import os
import signal
import sys
import time


def tree(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, []))
    return found


def resident_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    root = int(sys.argv[1])
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    peak = 0
    while not stopping and os.path.exists("/proc/%d" % root):
        peak = max(peak, sum(resident_kib(pid) for pid in tree(root)))
        time.sleep(0.02)
    print("%.1f" % (peak / 1024), flush=True)


if __name__ == "__main__":
    main()
