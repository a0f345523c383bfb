#!/usr/bin/env python3
"""reference_framing: how much of a PyTorch reference's timed window is the
harness's own Python, and how much of the window follows the host's speed?
(issue "Sound judging under attack", item 6)

    python3 bench/reference_framing.py [--task TASK] [--profiles P1,P2]
                                       [--procs N] [--calls N] [--cpu N] [--save FILE]

The reference worker's window is: start event, forward, a device-wide
synchronize, end event. A native candidate's is the same, in C++. In Python
each of torch.cuda.synchronize() and Event.record() is a few Python frames
(a device guard, a current-stream lookup) before the driver call, and they
sit inside the window, after the forward's last kernel: host time that is
the harness's, not the reference's, and that moves with the host's speed.

Each call draws a framing and a body at random (one process pinned to one
CPU, L2 flushed before every call, fresh processes):

  torch    cudal1's reference window until now: start.record(), the forward
           under the precision context, torch.cuda.synchronize(),
           end.record(), end.synchronize()
  driver   the same steps through the driver (cuEventRecord, cuCtxSynchronize
           bound with ctypes before the window), the precision context
           entered and the forward looked up before the start event
  kb       KernelBench's: start.record(), forward, end.record(), then a
           synchronize (the end event waits on the current stream only)

and body = forward (the task's eager forward) or empty (nothing between the
two events but the framing: the harness's floor). Before each call a fixed
pure-Python loop is timed (host_us): the host's speed at that moment.

It prints per profile and framing the medians over processes, the floor,
each process's median (their max/min is what a judgment inherits), and the
correlation of a call's time with host_us. --save writes every call as a
JSON line.
"""
import argparse
import ctypes
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import time

# The very probe the reference worker times after each window.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from cudal1_ref import host_probe  # noqa: E402

FRAMINGS = ["torch", "driver", "kb"]
BODIES = ["forward", "empty"]


def load_task(path, profile):
    spec = importlib.util.spec_from_file_location("task", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for k, v in getattr(module, "cudal1_profiles", {}).get(profile, {}).items():
        setattr(module, k, v)
    return module


def child(args):
    import contextlib
    import torch
    os.sched_setaffinity(0, {args.cpu})
    cuda = ctypes.CDLL("libcuda.so.1")
    record, ctx_sync, ev_sync = cuda.cuEventRecord, cuda.cuCtxSynchronize, cuda.cuEventSynchronize
    record.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    ev_sync.argtypes = [ctypes.c_void_p]
    rng = random.Random(args.seed)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    for profile in args.profiles.split(","):
        task = load_task(args.task, profile)
        torch.manual_seed(0)
        model = task.Model(*task.get_init_inputs()).cuda()
        x = [t.cuda() for t in task.get_inputs()]
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); end.record(); torch.cuda.synchronize()  # torch creates the events at first record
        stream = torch.cuda.current_stream().cuda_stream
        s_ev, e_ev = start.cuda_event, end.cuda_event
        ctx = contextlib.nullcontext
        for _ in range(20):
            model(*x)
        torch.cuda.synchronize()
        for i in range(args.calls * len(FRAMINGS) * len(BODIES)):
            framing, body = rng.choice(FRAMINGS), rng.choice(BODIES)
            a = [t.clone() for t in x]
            host_us = host_probe()
            flush.fill_(i & 0xFF)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if framing == "torch":
                start.record()
                with ctx():
                    if body == "forward":
                        out = model(*a)
                torch.cuda.synchronize()
                end.record()
                end.synchronize()
            elif framing == "driver":
                fwd = model
                with ctx():
                    record(s_ev, stream)
                    if body == "forward":
                        out = fwd(*a)
                    ctx_sync()
                    record(e_ev, stream)
                ev_sync(e_ev)
            else:
                start.record()
                if body == "forward":
                    out = model(*a)
                end.record()
                torch.cuda.synchronize()
            wall = (time.perf_counter() - t0) * 1e3
            ms = start.elapsed_time(end)
            if i >= 3 * len(FRAMINGS):  # the first few calls of each framing warm its path
                rows.append({"proc": args.proc, "profile": profile, "framing": framing, "body": body,
                             "ms": ms, "wall_ms": wall, "host_us": host_us})
        del model, x
    print(json.dumps(rows))


def corr(xs, ys):
    if len(xs) < 3:
        return float("nan")
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sx = sum((a - mx) ** 2 for a in xs) ** 0.5
    sy = sum((b - my) ** 2 for b in ys) ** 0.5
    return sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / (sx * sy) if sx and sy else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--task", default=os.path.join(here, "..", "examples", "swish", "task.py"))
    p.add_argument("--profiles", default="p100us,p600us")
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--calls", type=int, default=150, help="calls per framing and body per process")
    p.add_argument("--cpu", type=int, default=(os.cpu_count() or 1) - 1)
    p.add_argument("--save")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--proc", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    rows = []
    for k in range(args.procs):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--proc", str(k), "--seed", str(k),
               "--task", args.task, "--profiles", args.profiles, "--calls", str(args.calls), "--cpu", str(args.cpu)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            sys.exit(f"reference_framing: process {k} failed:\n{out.stderr[-3000:]}")
        rows += json.loads(out.stdout.strip().splitlines()[-1])
        print(f"process {k + 1}/{args.procs} done", file=sys.stderr, flush=True)
    if args.save:
        with open(args.save, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    print("| profile | framing | forward median ms | empty (floor) ms | forward less floor | per-process forward medians | max/min | corr(ms, host_us) |")
    print("|---|---|---|---|---|---|---|---|")
    for profile in args.profiles.split(","):
        for framing in FRAMINGS:
            sel = [r for r in rows if r["profile"] == profile and r["framing"] == framing]
            fw = [r["ms"] for r in sel if r["body"] == "forward"]
            em = [r["ms"] for r in sel if r["body"] == "empty"]
            per = [statistics.median([r["ms"] for r in sel if r["body"] == "forward" and r["proc"] == k])
                   for k in range(args.procs)]
            c = corr([r["host_us"] for r in sel if r["body"] == "forward"], fw)
            print(f"| {profile} | {framing} | {statistics.median(fw):.4f} | {statistics.median(em):.4f} | "
                  f"{statistics.median(fw) - statistics.median(em):.4f} | {', '.join(f'{m:.4f}' for m in per)} | "
                  f"{max(per) / min(per):.3f} | {c:.2f} |")
    hosts = [statistics.median([r["host_us"] for r in rows if r["proc"] == k]) for k in range(args.procs)]
    print(f"host_us per process (median): {', '.join(f'{h:.1f}' for h in hosts)}")


if __name__ == "__main__":
    main()
