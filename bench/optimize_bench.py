#!/usr/bin/env python3
"""optimize_bench: how many candidates the optimizer judges per hour when the
LLM answers at once.

    python3 bench/optimize_bench.py [--cudal1 PATH] [--task TASK] [--kernel FILE]
                                    [--rounds R] [--samples K] [--save DIR] [-- judge options]

Starts `cudal1 llm-replay` with R x K distinct answers (the example kernel with
a different constant in a comment each, so every answer is a new candidate
that needs its own compile), runs `cudal1 optimize` over them, and prints:

  candidates judged, wall seconds, candidates per hour (target >= 1,000 native
  candidates per hour on one H200), the seconds spent judging and the share of
  wall time outside judging (target <= 5%: prompts, requests, parsing, the
  store; compiles run beside the judgments and count only when the device
  waits for them), and the run's summary JSON in DIR/optimize-bench.json.

Defaults: on CUDA, level1/softmax and its suite solution (2.2x on an H200:
under CUDA-L1's 3x re-check threshold, as most answers are; swish's kernel,
4x, has every judgment re-measured in fresh processes, which halves the
rate); on the CPU, swish and its correct kernel. The table also says how many
judgments were re-checked.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build", "bin", "cudal1"))
    ap.add_argument("--task", default=os.path.join(ROOT, "examples", "swish", "task.py"))
    ap.add_argument("--kernel")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--save")
    a, judge = ap.parse_known_args()
    judge = [x for x in judge if x != "--"]
    backend = a.backend
    if backend == "auto":
        info = subprocess.run([a.cudal1, "info", "--json"], capture_output=True, text=True).stdout
        backend = "cuda" if '"cuda_available": true' in info else "cpu"
    if backend == "cuda" and not a.kernel and a.task == os.path.join(ROOT, "examples", "swish", "task.py"):
        a.task = os.path.join(ROOT, "suites", "level1", "softmax.py")
        a.kernel = os.path.join(ROOT, "suites", "level1", "solutions", "softmax.cu")
    kernel = a.kernel or os.path.join(ROOT, "examples", "swish", backend, "correct.cu" if backend == "cuda" else "correct.cpp")
    with open(kernel) as f:
        code = f.read()
    lang = "cuda" if backend == "cuda" else "cpp"
    work = tempfile.mkdtemp(prefix="optimize-bench-")
    answers = os.path.join(work, "answers.jsonl")
    n = a.rounds * a.samples
    with open(answers, "w") as f:
        for i in range(n):
            body = f"// variant {i}\n{code}"
            f.write(json.dumps({"content": f"## Performance Analysis\n-\n## Algorithm Design\n-\n"
                                           f"## Code Implementation\n```{lang}\n{body}```\n",
                                "usage": {"prompt_tokens": 3000, "completion_tokens": 1500}}) + "\n")
    port_file = os.path.join(work, "port")
    replay = subprocess.Popen([a.cudal1, "llm-replay", "--answers", answers, "--port", "0", "--port-file", port_file],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        url = f"http://127.0.0.1:{open(port_file).read().strip()}/v1"
        cmd = [a.cudal1, "optimize", a.task, "--llm", url, "--model", "replay", "--rounds", str(a.rounds),
               "--samples", str(a.samples), "--concurrency", str(a.concurrency), "--store",
               os.path.join(work, "store.sqlite"), "--cache-dir", os.path.join(work, "cache"), "--backend", backend,
               "--json", "-q"] + judge
        print(f"optimize_bench: {n} distinct answers of {os.path.basename(kernel)} on {a.task} ({backend})", flush=True)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            return 1
        summary = json.loads(p.stdout)
        import sqlite3
        db = sqlite3.connect(os.path.join(work, "store.sqlite"))
        judgments = [json.loads(j) for (j,) in db.execute("select judgment from judgments where candidate_hash != ''")]
        summary["rechecked"] = sum(1 for j in judgments if any(c.get("name") == "speedup_recheck" for c in j.get("checks", [])))
    finally:
        replay.terminate()
        replay.wait()
        shutil.rmtree(work, ignore_errors=True)
    judged = sum(v for k, v in summary["verdicts"].items() if k not in ("no_code", "llm_error"))
    per_hour = judged / wall * 3600
    outside = 1 - summary["judging_seconds"] / wall
    summary["bench_wall_s"] = wall
    summary["candidates_per_hour"] = per_hour
    if a.save:
        os.makedirs(a.save, exist_ok=True)
        with open(os.path.join(a.save, "optimize-bench.json"), "w") as f:
            json.dump(summary, f, indent=1)
    print()
    print("| measure | value | target |")
    print("|---|---|---|")
    print(f"| candidates judged | {judged} ({summary['verdicts']}) | |")
    print(f"| of which re-measured in fresh processes (CUDA-L1's re-check) | {summary['rechecked']} | |")
    print(f"| wall seconds (process start to end) | {wall:.1f} | |")
    print(f"| candidates per hour | {per_hour:.0f} | >= 1000 (native, one H200) |")
    print(f"| seconds judging (reference timing included) | {summary['judging_seconds']:.1f} | |")
    print(f"| share of wall time outside judging | {100 * outside:.1f}% | <= 5% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
