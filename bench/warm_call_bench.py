#!/usr/bin/env python3
"""warm_call_bench: what the candidate's warm call changes, side by side.

    python3 bench/warm_call_bench.py [--cudal1 PATH] [--task TASK] [--runs N]
                                     [--profiles P,...] [--save FILE] CANDIDATE...

Judges each candidate with `--candidate-warm-call off` and `on`, the two settings
interleaved run by run (off, on, off, on, ...) so that a drift of the host or the
card falls on both alike, under each profile named (default: the task's default
size). Prints, per candidate, profile and setting, the verdicts and the median,
min and max speedup; the raw judgments' figures go to FILE as JSON lines.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def judge(args, cand, profile, warm):
    cmd = [args.cudal1, "eval", args.task, cand, "--json", "-q",
           "--time-budget", str(args.time_budget), "--candidate-warm-call", warm]
    if profile:
        cmd += ["--profile", profile]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"verdict": f"no JSON (exit {p.returncode})", "stderr": p.stderr[-400:]}
    keep = ("verdict", "speedup", "candidate_warm_calls", "reference_warm_calls",
            "stop_reason", "seconds", "hacks", "message")
    return {k: d.get(k) for k in keep}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidates", nargs="+")
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build/bin/cudal1"))
    ap.add_argument("--task", default=os.path.join(ROOT, "examples/swish/task.py"))
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--profiles", default="", help="comma-separated; empty: the default size")
    ap.add_argument("--time-budget", type=float, default=1.0)
    ap.add_argument("--save", help="JSON lines of every judgment")
    args = ap.parse_args()
    profiles = args.profiles.split(",") if args.profiles else [""]
    out = open(args.save, "w") if args.save else None
    for cand in args.candidates:
        for prof in profiles:
            got = {"off": [], "on": []}
            for i in range(args.runs):
                for warm in ("off", "on"):
                    r = judge(args, cand, prof, warm)
                    r.update(candidate=os.path.basename(cand), profile=prof or "default",
                             warm=warm, run=i)
                    got[warm].append(r)
                    if out:
                        out.write(json.dumps(r) + "\n")
                        out.flush()
            for warm in ("off", "on"):
                rs = got[warm]
                sp = [r["speedup"] for r in rs if r.get("speedup")]
                verdicts = ",".join(sorted({str(r["verdict"]) for r in rs}))
                fig = (f"median {statistics.median(sp):.3f} (min {min(sp):.3f}, max {max(sp):.3f})"
                       if sp else "no speedup")
                print(f"{os.path.basename(cand):28s} {prof or 'default':8s} warm {warm:3s}: "
                      f"{fig}  verdicts {verdicts}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
