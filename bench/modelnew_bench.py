#!/usr/bin/env python3
"""modelnew_bench: what a load_inline ModelNew costs to judge.

    python3 bench/modelnew_bench.py [--cudal1 PATH] [--task TASK] [--candidate CAND.py]
                                    [--batch N] [--runs N] [--save DIR] [-- judge options]

Prints, for a KernelBench ModelNew whose kernel is built with load_inline:

  cold     seconds per judgment with an empty cache (build + judgment), --runs times
  warm     seconds per judgment with the build cached, --runs times
  batch    N distinct candidates (the example with a different constant in a
           comment each, so each needs a build of its own) judged by one
           `cudal1 bench` (builds run ahead in parallel, the device times one
           judgment at a time), against the same N judged one by one with
           `cudal1 eval`, each with an empty cache (a fresh build each)

with the median, min and max of each, the throughput ratio (targets from the
issue: cold <= 15 s, warm <= 3 s, batch >= 5x one by one), and the raw times
in DIR/modelnew-bench.json. Defaults: the swish task and its load_inline
example for the backend this machine has (examples/swish/cuda or cpu).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, **kw):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t0, p


def verdict_of(stdout):
    try:
        return json.loads(stdout.strip().splitlines()[-1]).get("verdict", "?")
    except (ValueError, IndexError):
        return "?"


def stats(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)} if v else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build", "bin", "cudal1"))
    ap.add_argument("--task", default=os.path.join(ROOT, "examples", "swish", "task.py"))
    ap.add_argument("--candidate")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--profile", default="", help="the task's size profile (default: the backend's default)")
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bare", type=int, default=1,
                    help="times torch's own load_inline of the candidate this many times first, in a fresh Python "
                         "each with an empty extensions folder (what cudal1's cold build is to be compared with)")
    ap.add_argument("--batch-only", action="store_true", help="skip the cold and warm runs (the batch and its singles only)")
    ap.add_argument("--singles", type=int, default=None,
                    help="how many of the batch to judge one by one (default: all); fewer are extrapolated "
                         "to the batch by their mean, and the table says so (0: the cold runs stand for them)")
    ap.add_argument("--plain-nvcc", action="store_true",
                    help="also time each cold run with nvcc as torch runs it (CUDAL1_NVCC_SPLIT=0), the two "
                         "alternated, first one then the other")
    ap.add_argument("--save")
    a, judge = ap.parse_known_args()
    judge = [x for x in judge if x != "--"]
    backend = a.backend
    if backend == "auto":
        info = subprocess.run([a.cudal1, "info", "--json"], capture_output=True, text=True).stdout
        backend = "cuda" if '"cuda_available": true' in info else "cpu"
    cand = a.candidate or os.path.join(ROOT, "examples", "swish", backend, "modelnew_inline.py")
    with open(cand) as f:
        source = f.read()
    flags = ["--backend", backend, "--recheck-above", "0", "--recheck-above-best", "0"] + judge
    if a.profile:
        flags += ["--profile", a.profile]
    work = tempfile.mkdtemp(prefix="modelnew-bench-")
    out = {"task": a.task, "candidate": cand, "backend": backend, "flags": flags, "cold_s": [], "warm_s": [], "bare_s": [],
           "verdicts": []}
    print(f"modelnew_bench: {os.path.basename(cand)} on {a.task} ({backend}); work in {work}", flush=True)
    try:
        # torch's load_inline alone: import the candidate module (its
        # load_inline builds at import) in a fresh interpreter, an empty
        # TORCH_EXTENSIONS_DIR each time, the import of torch not counted.
        python = json.loads(subprocess.run([a.cudal1, "info", "--json"], capture_output=True, text=True).stdout
                            or "{}").get("python", {}).get("path") or sys.executable
        for i in range(a.bare):
            ext = os.path.join(work, f"bare-{i}")
            code = ("import time, importlib.util, torch, torch.utils.cpp_extension\n"
                    "t = time.perf_counter()\n"
                    f"spec = importlib.util.spec_from_file_location('cand', {cand!r})\n"
                    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
                    "print(time.perf_counter() - t)\n")
            p = subprocess.run([python, "-c", code], capture_output=True, text=True,
                               env=dict(os.environ, TORCH_EXTENSIONS_DIR=ext, MAX_JOBS=str(os.cpu_count())))
            try:
                out["bare_s"].append(float(p.stdout.strip().splitlines()[-1]))
                print(f"  bare load_inline {i + 1}: {out['bare_s'][-1]:.2f} s ({python})", flush=True)
            except (ValueError, IndexError):
                print(f"  bare load_inline {i + 1} failed: {p.stderr[-500:]}", flush=True)
        # The machine's one-time setup, as the compilers are: the precompiled
        # <torch/extension.h> variants (cudal1 prepare), timed apart.
        s, p = run([a.cudal1, "prepare", "--json"])
        out["prepare_s"] = s
        out["prepare"] = p.stdout.strip()[-2000:]
        print(f"  cudal1 prepare (once per machine and Python): {s:.1f} s, exit {p.returncode}", flush=True)
        for i in range(0 if a.batch_only else a.runs):  # cold: an empty cache every time
            # With --plain-nvcc, nvcc as torch runs it too, side by side:
            # first on even runs, second on odd ones.
            plains = ([True, False] if i % 2 == 0 else [False, True]) if a.plain_nvcc else [False]
            for plain in plains:
                cache = os.path.join(work, f"cold-plain-{i}" if plain else f"cold-{i}")
                env = dict(os.environ, CUDAL1_NVCC_SPLIT="0") if plain else None
                s, p = run([a.cudal1, "eval", "--json", a.task, cand, "--cache-dir", cache] + flags, env=env)
                why = "" if verdict_of(p.stdout) != "?" else f": exit {p.returncode}, {p.stderr.strip()[-300:]}"
                if plain:
                    out.setdefault("cold_plain_s", []).append(s)
                    print(f"  cold {i + 1}, nvcc as is: {s:.2f} s ({verdict_of(p.stdout)}{why})", flush=True)
                    shutil.rmtree(cache, ignore_errors=True)
                    continue
                out["cold_s"].append(s)
                out["verdicts"].append(verdict_of(p.stdout))
                try:  # where a cold judgment's time goes: the build, and what made it faster
                    j = json.loads(p.stdout.strip().splitlines()[-1])
                    out.setdefault("cold_judgments", []).append(
                        {k: j.get(k) for k in ("verdict", "seconds", "phases_s", "compile", "checks", "candidate_start")})
                except (ValueError, IndexError):
                    pass
                print(f"  cold {i + 1}: {s:.2f} s ({verdict_of(p.stdout)}{why})", flush=True)
        warm_cache = os.path.join(work, "cold-0")
        for i in range(0 if a.batch_only else a.runs):
            s, p = run([a.cudal1, "eval", "--json", a.task, cand, "--cache-dir", warm_cache] + flags)
            out["warm_s"].append(s)
            try:  # where a warm judgment's time goes (phases, a second judgment, checks)
                j = json.loads(p.stdout.strip().splitlines()[-1])
                out.setdefault("warm_judgments", []).append(
                    {k: j.get(k) for k in ("verdict", "speedup", "seconds", "phases_s", "checks", "stop_reason",
                                           "reference_init_s", "judge_clock")})
            except (ValueError, IndexError):
                pass
            print(f"  warm {i + 1}: {s:.2f} s ({verdict_of(p.stdout)})", flush=True)
        if a.batch > 0:  # --batch 0: no batch (the cold and warm runs only)
            # N distinct candidates: the same kernel, a different constant in a comment.
            cands = os.path.join(work, "batch")
            os.makedirs(cands)
            stem = os.path.splitext(os.path.basename(a.task))[0]
            for n in range(a.batch):
                with open(os.path.join(cands, f"{stem}.{n}.py"), "w") as f:
                    f.write(source.replace("cuda_source = r\"\"\"", f"cuda_source = r\"\"\"\n// variant {n}", 1)
                            .replace("source = r\"\"\"", f"source = r\"\"\"\n// variant {n}", 1))
            s, p = run([a.cudal1, "bench", a.task, "--candidates", cands, "--store", os.path.join(work, "store.sqlite"),
                        "--cache-dir", os.path.join(work, "batch-cache"), "-q"] + flags)
            out["batch_s"] = s
            out["batch_summary"] = p.stdout[-2000:]
            print(f"  batch of {a.batch} with cudal1 bench: {s:.1f} s ({s / a.batch:.2f} s per candidate)", flush=True)
            one_by_one = []
            singles = a.batch if a.singles is None else max(0, min(a.singles, a.batch))
            for n in range(singles):
                cache = os.path.join(work, f"single-{n}")
                s1, p1 = run([a.cudal1, "eval", "--json", a.task, os.path.join(cands, f"{stem}.{n}.py"), "--cache-dir", cache]
                             + flags)
                one_by_one.append(s1)
                shutil.rmtree(cache, ignore_errors=True)
                print(f"  one by one {n + 1}/{singles}: {s1:.2f} s ({verdict_of(p1.stdout)})", flush=True)
            out["one_by_one_s"] = one_by_one
    finally:
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            with open(os.path.join(a.save, "modelnew-bench.json"), "w") as f:
                json.dump(out, f, indent=1)
        shutil.rmtree(work, ignore_errors=True)
    cold, warm, bare = stats(out["cold_s"]), stats(out["warm_s"]), stats(out["bare_s"])
    print()
    print("| measure | median | min | max | target |")
    print("|---|---|---|---|---|")
    row = lambda name, st, target: print(f"| {name} (n={st['n']}) | {st['median']:.2f} | {st['min']:.2f} | {st['max']:.2f} | {target} |")
    if bare:
        row("torch's load_inline alone, s", bare, "")
    if cold:
        row("cold build + judgment, s", cold, "<= 15")
    if out.get("cold_plain_s"):
        row("cold, nvcc as is (CUDAL1_NVCC_SPLIT=0), s", stats(out["cold_plain_s"]), "")
    if warm:
        row("warm judgment, s", warm, "<= 3")
    singles = out.get("one_by_one_s") or out["cold_s"]  # --singles 0: the cold runs had a fresh build each
    if "batch_s" in out and singles:
        measured_all = len(out.get("one_by_one_s", [])) == a.batch
        total_single = sum(singles) if measured_all else statistics.mean(singles) * a.batch
        how = "" if measured_all else (f" (mean of {len(singles)} judged one by one, times {a.batch})"
                                       if out.get("one_by_one_s") else f" (mean of the {len(singles)} cold runs, times {a.batch})")
        print(f"| {a.batch} candidates with cudal1 bench, s | {out['batch_s']:.1f} | | | |")
        print(f"| {a.batch} candidates one by one, fresh builds, s{how} | {total_single:.1f} | | | |")
        print(f"| throughput, bench over one by one | {total_single / out['batch_s']:.2f}x | | | >= 5x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
