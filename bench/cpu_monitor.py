#!/usr/bin/env python3
"""cpu_monitor: every CPU's busy, idle and stolen time over a run, sampled
from /proc/stat, so a judgment's slow host can be matched to what the
machine did meanwhile (issue "Sound judging under attack", item 6).

    python3 bench/cpu_monitor.py --out FILE [--interval 0.25]

Writes one JSON line per sample until killed (SIGTERM or SIGINT): the wall
time (time.time(), as the judgments' files can be placed by), and per CPU
the seconds busy, idle and stolen since the previous sample, plus the
load average. With --probe, also the host's speed at that moment on the
monitor's own CPU: the microseconds a fixed piece of pure Python takes (the
same piece as the reference worker's host probe, python/cudal1_ref.py), so
a slow phase can be told machine-wide from one CPU's.
"""
import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from cudal1_clock import host_probe  # noqa: E402  (the reference worker's own probe)


def read_stat(hz):
    cpus = {}
    with open("/proc/stat") as f:
        for line in f:
            if not line.startswith("cpu") or line.startswith("cpu "):
                continue
            fields = line.split()
            v = [int(x) for x in fields[1:9]]
            user, nice, system, idle, iowait, irq, softirq, steal = v
            cpus[fields[0][3:]] = ((user + nice + system + irq + softirq) / hz, (idle + iowait) / hz, steal / hz)
    return cpus


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="JSON lines file to write")
    ap.add_argument("--interval", type=float, default=0.25, help="seconds between samples (default 0.25)")
    ap.add_argument("--probe", action="store_true", help="also time the host probe each sample (least of 5, us)")
    args = ap.parse_args()
    hz = os.sysconf("SC_CLK_TCK")
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(1))
    before = read_stat(hz)
    with open(args.out, "w") as out:
        while not stop:
            time.sleep(args.interval)
            now = read_stat(hz)
            row = {"t": time.time(), "load": os.getloadavg()[0], "cpus": {}}
            if args.probe:
                row["probe_us"] = round(min(host_probe() for _ in range(5)), 2)
                row["cpu"] = os.sched_getaffinity(0) and next(iter(os.sched_getaffinity(0)))
            for cpu, (busy, idle, steal) in now.items():
                b0, i0, s0 = before.get(cpu, (busy, idle, steal))
                row["cpus"][cpu] = [round(busy - b0, 3), round(idle - i0, 3), round(steal - s0, 3)]
            out.write(json.dumps(row) + "\n")
            out.flush()
            before = now
    return 0


if __name__ == "__main__":
    sys.exit(main())
