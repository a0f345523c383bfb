#!/usr/bin/env python3
"""cpu_placement: how the CPUs the two workers are pinned to move a speedup.

    python3 bench/cpu_placement.py [--cudal1 PATH] [--task TASK] [--candidate CAND]
                                   [--profiles P1,P2] [--placements A;B;...] [--runs N]
                                   [--save DIR] [-- judge options]

Judges one correct candidate with `cudal1 eval --json` round-robin over the
placements (values of --cpu: auto = both workers on the last CPU, split =
the reference on another physical core, R,C = explicit) and the size
profiles: run 1 of every (placement, profile), then run 2, ... so drift over
the minutes hits every placement alike. The speedup re-check is off: this
measures one judgment's spread, not the re-check's rule.

Prints the machine's CPU topology, then per placement and profile: the
speedup's median, min, max and max/min over the runs, the spread of the
reference's and the candidate's medians, the reference's IQR, and how much
slower the reference ran right after the candidate than before it
(reference_order). --save keeps every judgment's JSON (raw samples) and a
summary.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def topology():
    lines = []
    base = "/sys/devices/system/cpu"
    cpus = sorted(int(n[3:]) for n in os.listdir(base) if n.startswith("cpu") and n[3:].isdigit())
    for c in cpus:
        try:
            sib = open(f"{base}/cpu{c}/topology/thread_siblings_list").read().strip()
            core = open(f"{base}/cpu{c}/topology/core_id").read().strip()
            pkg = open(f"{base}/cpu{c}/topology/physical_package_id").read().strip()
        except OSError:
            sib = core = pkg = "?"
        lines.append(f"cpu{c}: package {pkg} core {core} siblings {sib}")
    return lines


def main():
    argv = sys.argv[1:]
    judge = []
    if "--" in argv:
        judge = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cudal1", default=os.path.join(ROOT, "build/bin/cudal1"))
    p.add_argument("--task", default=os.path.join(ROOT, "examples/swish/task.py"))
    p.add_argument("--candidate", default=os.path.join(ROOT, "examples/swish/cuda/correct.cu"))
    p.add_argument("--profiles", default="p100us,p600us")
    p.add_argument("--placements", default="auto;split")
    p.add_argument("--runs", type=int, default=8)
    p.add_argument("--save")
    a = p.parse_args(argv)
    profiles = a.profiles.split(",")
    placements = a.placements.split(";")
    print("cpu_placement: %s / %s, profiles %s, placements %s, %d runs each" % (
        a.task, a.candidate, ",".join(profiles), " ".join(placements), a.runs))
    for line in topology():
        print("  " + line)
    if a.save:
        os.makedirs(a.save, exist_ok=True)
    rows = {}
    for run in range(1, a.runs + 1):
        for placement in placements:
            for profile in profiles:
                cmd = [a.cudal1, "eval", "--json", a.task, a.candidate, "--profile", profile, "--cpu", placement,
                       "--recheck-above", "0", "--recheck-above-best", "0", *judge]
                r = subprocess.run(cmd, capture_output=True, text=True)
                try:
                    j = json.loads(r.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    print(f"  {placement:8} {profile:8} {run}: no judgment: {r.stderr.strip()[-300:]}")
                    continue
                if a.save:
                    with open(os.path.join(a.save, f"{placement.replace(',', '-')}-{profile}-{run}.json"), "w") as f:
                        json.dump(j, f)
                ref, cand = j.get("reference", {}), j.get("candidate", {})
                order = (j.get("reference_order") or {}).get("second_over_first")
                rows.setdefault((placement, profile), []).append({
                    "verdict": j.get("verdict"), "speedup": j.get("speedup"), "ref_ms": ref.get("median_ms"),
                    "ref_iqr": ref.get("rel_iqr"), "cand_ms": cand.get("median_ms"), "order": order,
                    "cpus": [j.get("reference_cpu"), j.get("cpu")], "seconds": j.get("seconds")})
                s = j.get("speedup")
                print(f"  {placement:8} {profile:8} {run:2}: {j.get('verdict'):9} speedup {s if s is None else round(s, 4)}"
                      f"  reference {ref.get('median_ms', 0):.4f} ms (IQR {100 * (ref.get('rel_iqr') or 0):.1f}%)"
                      f"  candidate {cand.get('median_ms', 0):.4f} ms  order {order if order is None else round(order, 3)}"
                      f"  cpus ref {j.get('reference_cpu')} cand {j.get('cpu')}  {j.get('seconds', 0):.2f} s", flush=True)

    def spread(v):
        v = [x for x in v if x]
        return max(v) / min(v) if v else None

    print()
    print("| placement | profile | runs | correct | speedup median | min | max | max/min | reference medians max/min "
          "| candidate medians max/min | reference IQR median | reference after candidate / before |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for (placement, profile), rs in rows.items():
        sp = [r["speedup"] for r in rs if r["speedup"]]
        row = {"placement": placement, "profile": profile, "runs": len(rs),
               "correct": sum(r["verdict"] == "correct" for r in rs),
               "speedup_median": statistics.median(sp) if sp else None, "speedup_min": min(sp) if sp else None,
               "speedup_max": max(sp) if sp else None, "speedup_max_over_min": spread(sp),
               "reference_spread": spread([r["ref_ms"] for r in rs]), "candidate_spread": spread([r["cand_ms"] for r in rs]),
               "reference_iqr_median": statistics.median([r["ref_iqr"] or 0 for r in rs]),
               "order_median": statistics.median([r["order"] for r in rs if r["order"]] or [0]), "rows": rs}
        summary.append(row)
        f = lambda x: "-" if x is None else f"{x:.4f}"  # noqa: E731
        print(f"| {placement} | {profile} | {row['runs']} | {row['correct']} | {f(row['speedup_median'])} | "
              f"{f(row['speedup_min'])} | {f(row['speedup_max'])} | {f(row['speedup_max_over_min'])} | "
              f"{f(row['reference_spread'])} | {f(row['candidate_spread'])} | {100 * row['reference_iqr_median']:.1f}% | "
              f"{f(row['order_median'])} |")
    if a.save:
        with open(os.path.join(a.save, "summary.json"), "w") as fh:
            json.dump({"topology": topology(), "judge_options": judge, "rows": summary}, fh, indent=1)
        print(f"saved: {a.save}")


if __name__ == "__main__":
    main()
