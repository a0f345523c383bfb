#!/usr/bin/env python3
"""reference_noise: where does a PyTorch reference's timed window vary?

    python3 bench/reference_noise.py [--task TASK] [--profiles P1,P2] [--procs N]
                                     [--calls N] [--gap-ms MS] [--save FILE]

Times a task's eager forward the way cudal1's reference worker does (fresh
inputs, an L2 flush, then a CUDA-event window closed after a device
synchronization) in N fresh processes, one after another, each making
--calls calls. Between calls the process blocks for --gap-ms, as the
reference worker does while the candidate runs. Each call draws one of
these window styles at random:

  cold       flush, then the window (what the judge timed until now)
  warm       one untimed forward on the same inputs, then the flush, then
             the window: the Python dispatch path is warm, the GPU's L2 is not
  cold_gpu   as cold, but the end event is recorded right after the forward
             (no host synchronization inside the window)
  warm_gpu   as warm, with the end event recorded as in cold_gpu

It prints, per profile and style, each process's median and IQR (as a % of
the median), the spread max/min of the per-process medians (the between-
judgment variance the judge's speedup inherits), and the CPUs and SM clocks
the calls saw. --save writes every call as a JSON line (the raw samples).
Needs a CUDA GPU and PyTorch; nvidia-ml-py (pynvml) for the clocks, if there.
"""
import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import time

STYLES = ["cold", "warm", "cold_gpu", "warm_gpu"]


def child(task, profile, calls, gap_ms, seed, pin):
    import ctypes
    if pin is not None:
        os.sched_setaffinity(0, {pin})  # before torch starts any thread
    import torch
    getcpu = ctypes.CDLL(None).sched_getcpu
    try:
        import pynvml
        pynvml.nvmlInit()
        nvml = pynvml.nvmlDeviceGetHandleByIndex(0)
        sm_clock = lambda: pynvml.nvmlDeviceGetClockInfo(nvml, pynvml.NVML_CLOCK_SM)  # noqa: E731
    except Exception:
        sm_clock = lambda: 0  # noqa: E731
    spec = importlib.util.spec_from_file_location("task", task)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for k, v in getattr(module, "cudal1_profiles", {}).get(profile, {}).items():
        setattr(module, k, v)
    dev = torch.device("cuda")
    torch.manual_seed(seed)
    with dev:
        model = module.Model(*module.get_init_inputs()).to(dev).eval()
    torch.set_grad_enabled(False)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rng = random.Random(seed)
    kept = None
    for i in range(calls):
        torch.manual_seed(seed * 100003 + i)
        with dev:
            inputs = [t.contiguous() for t in module.get_inputs()]
        if kept is None:
            kept = [t.clone() for t in inputs]
        for k, t in zip(kept, inputs):
            k.copy_(t)
        torch.cuda.synchronize()
        time.sleep(gap_ms / 1e3)  # the candidate's turn: this process blocks
        # Two probes before the flush: a fixed piece of pure Python (the
        # host's speed now) and one tiny kernel launch, synchronized (the
        # launch and sync latency a native candidate pays).
        p0 = time.perf_counter()
        acc = 0
        for k in range(2000):
            acc += k
        cpu_probe_us = (time.perf_counter() - p0) * 1e6
        start.record()
        flush[:256].zero_()
        torch.cuda.synchronize()
        end.record()
        end.synchronize()
        launch_probe_us = start.elapsed_time(end) * 1e3
        style = rng.choice(STYLES)
        args = [t.clone() for t in kept]
        if style.startswith("warm"):
            model(*args)
        flush.fill_(i & 0xFF)
        torch.cuda.synchronize()
        cpu0 = getcpu()
        t0 = time.perf_counter()
        start.record()
        out = model(*args)
        if style.endswith("_gpu"):
            end.record()
            end.synchronize()
        else:
            torch.cuda.synchronize()
            end.record()
            end.synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        ms = start.elapsed_time(end)
        print(json.dumps({"call": i, "style": style, "ms": ms, "wall_ms": wall, "cpu": cpu0,
                          "cpu_after": getcpu(), "sm_mhz": sm_clock(), "cpu_probe_us": cpu_probe_us,
                          "launch_probe_us": launch_probe_us}), flush=True)
        del out


def quartiles(v):
    v = sorted(v)
    q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return q[0], statistics.median(v), q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--task", default=os.path.join(here, "..", "examples", "swish", "task.py"))
    ap.add_argument("--profiles", default="p100us,p600us")
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--calls", type=int, default=240)
    ap.add_argument("--gap-ms", type=float, default=3.0)
    ap.add_argument("--save")
    ap.add_argument("--pin", help="CPUs to pin the processes to, comma-separated, one per process in turn")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.task, a.child[0], a.calls, a.gap_ms, int(a.child[1]), int(a.child[2]) if a.child[2] != "-" else None)
        return 0
    saved = open(a.save, "w") if a.save else None
    pins = a.pin.split(",") if a.pin else ["-"]
    for profile in a.profiles.split(","):
        per_proc = {s: [] for s in STYLES}
        cpus, clocks = {}, []
        for p in range(a.procs):
            cmd = [sys.executable, os.path.abspath(__file__), "--task", a.task, "--calls", str(a.calls),
                   "--gap-ms", str(a.gap_ms), "--child", profile, str(p + 1), pins[p % len(pins)]]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stderr[-2000:], file=sys.stderr)
                return 1
            rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
            rows = rows[len(rows) // 8:]  # the first eighth is this process's warm-up
            for r in rows:
                r.update(profile=profile, proc=p + 1)
                if saved:
                    saved.write(json.dumps(r) + "\n")
                cpus.setdefault(r["cpu"], []).append(r["ms"])
                clocks.append(r["sm_mhz"])
            line = f"  {profile} proc {p + 1}:"
            for s in STYLES:
                v = [r["ms"] for r in rows if r["style"] == s]
                q1, med, q3 = quartiles(v)
                per_proc[s].append(med)
                line += f"  {s} {med:.4f} ms (IQR {100 * (q3 - q1) / med:.1f}%)"
            used = sorted({r["cpu"] for r in rows})
            moved = sum(r["cpu"] != r["cpu_after"] for r in rows)
            cp = statistics.median(r["cpu_probe_us"] for r in rows)
            lp = statistics.median(r["launch_probe_us"] for r in rows)
            print(line + f"  cpus {used} (moved in window {moved})  cpu probe {cp:.1f} us  launch probe {lp:.1f} us",
                  flush=True)
        print(f"{profile}: spread of the per-process medians (max/min), the between-judgment variance:")
        for s in STYLES:
            m = per_proc[s]
            print(f"  {s:9s} median of medians {statistics.median(m):.4f} ms  min {min(m):.4f}  max {max(m):.4f}"
                  f"  max/min {max(m) / min(m):.4f}")
        print(f"  per CPU (median ms, calls): " +
              ", ".join(f"{c}: {statistics.median(v):.4f} ({len(v)})" for c, v in sorted(cpus.items())))
        if any(clocks):
            print(f"  SM clock after the window: min {min(clocks)} MHz, median {statistics.median(clocks)}, max {max(clocks)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
