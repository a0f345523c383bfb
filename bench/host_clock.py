#!/usr/bin/env python3
"""host_clock: how fast each CPU runs a fixed piece of Python, over time.
Does the host's speed change per CPU or for all of them at once, and for
how long? (issue "Sound judging under attack", item 6: the reference's
time follows the host's speed, judgment after judgment.)

    python3 bench/host_clock.py [--seconds 60] [--interval 0.05] [--cpus 0-15] [--save FILE]

Every interval, for each CPU in turn: this process moves there
(sched_setaffinity) and times the same pure-Python loop the reference worker
times after each window (cudal1_ref.host_probe), three times, keeping the
least. It prints, per CPU, the fastest level seen, the share of rounds
within 1.25x of it (fast), and the lengths of its fast and slow runs; and
how often CPUs were fast together (all, none). --save writes every round as
a JSON line (time, then microseconds per CPU).
"""
import argparse
import json
import os
import statistics
import sys
import time

# The very probe the reference worker times after each window.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from cudal1_ref import host_probe as probe  # noqa: E402


def cpu_list(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def runs(flags):
    """Lengths of the runs of equal values in flags, per value."""
    out = {True: [], False: []}
    if not flags:
        return out
    cur, n = flags[0], 0
    for f in flags:
        if f == cur:
            n += 1
        else:
            out[cur].append(n)
            cur, n = f, 1
    out[cur].append(n)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--cpus", default=None, help="CPUs to probe (default: every allowed one)")
    ap.add_argument("--save", default=None, help="JSON lines, one per round")
    args = ap.parse_args()
    cpus = cpu_list(args.cpus) if args.cpus else sorted(os.sched_getaffinity(0))
    rows = []
    end = time.time() + args.seconds
    out = open(args.save, "w") if args.save else None
    while time.time() < end:
        row = {"t": time.time(), "us": {}}
        for c in cpus:
            os.sched_setaffinity(0, {c})
            row["us"][c] = min(probe() for _ in range(3))
        rows.append(row)
        if out:
            out.write(json.dumps(row) + "\n")
        time.sleep(args.interval)
    if out:
        out.close()
    dt = (rows[-1]["t"] - rows[0]["t"]) / max(1, len(rows) - 1)
    print(f"{len(rows)} rounds over {rows[-1]['t'] - rows[0]['t']:.1f} s ({dt * 1e3:.0f} ms a round), CPUs {cpus[0]}-{cpus[-1]}")
    print("| cpu | fastest us | median us | fast share | fast runs (median, max rounds) | slow runs (median, max rounds) |")
    print("|---|---|---|---|---|---|")
    fast = {}
    for c in cpus:
        v = [r["us"][c] for r in rows]
        floor = sorted(v)[max(0, len(v) // 100)]
        fast[c] = [x <= 1.25 * floor for x in v]
        rr = runs(fast[c])

        def desc(x):
            return f"{statistics.median(x):.0f}, {max(x)}" if x else "-"

        print(f"| {c} | {floor:.1f} | {statistics.median(v):.1f} | {sum(fast[c]) / len(v):.2f} | {desc(rr[True])} | {desc(rr[False])} |")
    together = [sum(fast[c][i] for c in cpus) for i in range(len(rows))]
    n = len(cpus)
    print(f"rounds with every CPU fast: {sum(1 for x in together if x == n) / len(rows):.2f}; "
          f"none fast: {sum(1 for x in together if x == 0) / len(rows):.2f}; "
          f"at least one fast: {sum(1 for x in together if x > 0) / len(rows):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
