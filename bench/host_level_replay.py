#!/usr/bin/env python3
"""host_level_replay: what another rule for the host's learned full-speed
level would have made of judgments already taken (issue "Sound judging under
attack", item 6).

    python3 bench/host_level_replay.py DIR...

DIR holds a stability_bench --save folder's judgments (PROFILE-RUN.json, raw
pairs and host probes included). Each judgment's pairs are put back in their
order (the kept pairs and host.other_pairs, split by the level it used), and
each series (a profile, or PROFILE+OPTIONS) is replayed in the order it ran
with an empty cache: the level is the lower of the judgment's own (5th
percentile of its probes) and the cache's, under the rule "second" (the
second lowest of the last 16, the judge's) or "lowest"; the speedup is the
ratio of medians over the pairs within 1.3x the level where there are 30 or
more, else over all. Only first judgments (no re-check) and only the pairs
they took: the stopping rule, which would have taken others, is not
replayed. Prints the speedups' max/min per series and rule, and "recorded"
with the level each judgment used.
"""
import glob
import json
import os
import statistics
import sys


def judgments(folder):
    rows = []
    for f in glob.glob(os.path.join(folder, "p*.json")):
        with open(f) as fh:
            d = json.load(fh)
        rows.append((d["bench_ended_at"], os.path.basename(f)[:-5], d))
    rows.sort(key=lambda r: r[0])
    return rows


def pairs(d):
    """(reference ms, candidate ms, probe us) per pair in order, or None."""
    probes = d["host"]["reference_probe_us"]
    level = d["host"]["level_us"]
    full = [0 <= p <= 1.3 * level for p in probes]
    other = d["host"].get("other_pairs") or {"reference_ms": [], "candidate_ms": []}
    fr, fc = d["reference"]["samples_ms"], d["candidate"]["samples_ms"]
    orr, oc = other["reference_ms"], other["candidate_ms"]
    if len(fr) == len(probes) and not orr:
        return list(zip(fr, fc, probes))
    if sum(full) != len(fr) or len(probes) - sum(full) != len(orr):
        return None
    out, i, j = [], 0, 0
    for p, f in zip(probes, full):
        if f:
            out.append((fr[i], fc[i], p))
            i += 1
        else:
            out.append((orr[j], oc[j], p))
            j += 1
    return out


def own_level(probes):
    v = sorted(p for p in probes if p >= 0)
    return v[int(0.05 * (len(v) - 1))] if len(v) >= 20 else None


def known_level(levels, rule):
    v = sorted(x for x in levels if x > 0)
    if not v:
        return None
    return v[0] if rule == "lowest" or len(v) < 3 else v[1]


def speedup(ps, level):
    sel = [p for p in ps if p[2] <= 1.3 * level] if level else ps
    if len(sel) < 30:
        sel = ps
    return statistics.median(p[0] for p in sel) / statistics.median(p[1] for p in sel)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    print("| folder | series | judgments | recorded | second lowest | lowest |")
    print("|---|---|---|---|---|---|")
    for folder in sys.argv[1:]:
        series = {}
        for _, name, d in judgments(folder):
            series.setdefault(name.rsplit("-", 1)[0], []).append((name, d))
        for s, items in series.items():
            spread = {}
            for rule in ("recorded", "second", "lowest"):
                history, speedups = [], []
                for name, d in items:
                    ps = pairs(d)
                    if ps is None:
                        print(f"{name}: its pairs cannot be put back in order; left out", file=sys.stderr)
                        continue
                    if rule == "recorded":
                        speedups.append(speedup(ps, d["host"]["level_us"]))
                        continue
                    own = own_level([p[2] for p in ps])
                    known = known_level(history[-16:], rule)
                    levels = [x for x in (own, known) if x is not None]
                    speedups.append(speedup(ps, min(levels) if levels else None))
                    if own:
                        history.append(own)
                spread[rule] = max(speedups) / min(speedups) if speedups else float("nan")
            print(f"| {folder} | {s} | {len(items)} | {spread['recorded']:.4f} | {spread['second']:.4f} | {spread['lowest']:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
