#!/usr/bin/env python3
"""queue_bench: `cudal1 serve --redis` with one `cudal1 worker`, judging native
and ModelNew candidates through Redis; prints judgments per minute, the
latency, and each candidate's result beside `cudal1 eval` of the same file.

    python3 bench/queue_bench.py [--cudal1 PATH] [--backend cuda|cpu] [--native N] [--modelnew M]
                                 [--save DIR] [-- judge options for the worker and eval]

Starts a private redis-server (from PATH; scripts/stage-redis.sh puts one in
build/redis for machines without it), the server on the loopback and one
worker on device 0; posts N distinct native candidates (swish's correct
kernel with a different comment each) and M ModelNew ones (its plain-PyTorch
ModelNew) at once, waits for all, then judges the first native and the first
ModelNew with `cudal1 eval` for comparison.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def post(base, path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=3600) as r:
        return json.loads(r.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build", "bin", "cudal1"))
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--native", type=int, default=12)
    ap.add_argument("--modelnew", type=int, default=4)
    ap.add_argument("--save")
    a, judge = ap.parse_known_args()
    judge = [x for x in judge if x != "--"] + ["--backend", a.backend]
    staged = os.path.join(ROOT, "build", "redis")
    env = dict(os.environ)
    # The server and its worker share a secret (jobs and results are signed).
    os.environ.setdefault("CUDAL1_REDIS_SECRET", "queue-bench-" + os.urandom(16).hex())
    if os.path.isdir(staged):
        env["PATH"] = staged + os.pathsep + env["PATH"]
        env["LD_LIBRARY_PATH"] = os.path.join(staged, "lib") + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    work = tempfile.mkdtemp(prefix="queue-bench-")
    procs = []
    try:
        port = free_port()
        procs.append(subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                       "--appendonly", "no"], stdout=open(os.path.join(work, "redis.log"), "w"), env=env))
        time.sleep(0.5)
        url = f"redis://127.0.0.1:{port}"
        port_file = os.path.join(work, "port")
        procs.append(subprocess.Popen([a.cudal1, "serve", "--tasks", os.path.join(ROOT, "examples/swish/task.py"), "--port",
                                       "0", "--port-file", port_file, "--store", os.path.join(work, "store.sqlite"),
                                       "--redis", url, "--backend", a.backend],
                                      stderr=open(os.path.join(work, "serve.log"), "w")))
        procs.append(subprocess.Popen([a.cudal1, "worker", "--redis", url, "--device", "0", "--name", "gpu0", *judge],
                                      stderr=open(os.path.join(work, "worker.log"), "w")))
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        base = f"http://127.0.0.1:{open(port_file).read().strip()}"
        native_src = open(os.path.join(ROOT, "examples/swish", a.backend, "correct.cu" if a.backend == "cuda" else "correct.cpp")).read()
        modelnew_src = open(os.path.join(ROOT, "examples/swish", a.backend, "modelnew_correct.py")).read()
        cands = [("native", f"// queue bench {k}\n" + native_src) for k in range(a.native)]
        cands += [("modelnew", f"# queue bench {k}\n" + modelnew_src) for k in range(a.modelnew)]
        results = [None] * len(cands)

        def one(i):
            t0 = time.perf_counter()
            r = post(base, "/v1/judge", {"task": "swish", "code": cands[i][1]})
            results[i] = (cands[i][0], r.get("verdict"), r.get("speedup"), time.perf_counter() - t0)
        t0 = time.perf_counter()
        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(cands))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        # The same files judged by cudal1 eval, one of each kind.
        compare = []
        for kind in ("native", "modelnew"):
            i = next((k for k, c in enumerate(cands) if c[0] == kind), None)
            if i is None:
                continue
            path = os.path.join(work, f"eval-{kind}" + (".py" if kind == "modelnew" else (".cu" if a.backend == "cuda" else ".cpp")))
            with open(path, "w") as f:
                f.write(cands[i][1])
            p = subprocess.run([a.cudal1, "eval", "--json", os.path.join(ROOT, "examples/swish/task.py"), path, *judge],
                               capture_output=True, text=True)
            try:
                e = json.loads(p.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                e = {"verdict": "?", "speedup": None}
            compare.append((kind, results[i][1], results[i][2], e.get("verdict"), e.get("speedup")))
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
        logs = {n: open(os.path.join(work, n)).read()[-2000:] for n in os.listdir(work) if n.endswith(".log")}
        shutil.rmtree(work, ignore_errors=True)
    lat = [r[3] for r in results if r]
    verdicts = {}
    for r in results:
        if r:
            verdicts[f"{r[0]}:{r[1]}"] = verdicts.get(f"{r[0]}:{r[1]}", 0) + 1
    out = {"backend": a.backend, "candidates": len(cands), "wall_s": wall, "judgments_per_min": 60 * len(cands) / wall,
           "latency_s": {"median": statistics.median(lat), "min": min(lat), "max": max(lat)}, "verdicts": verdicts,
           "results": results, "compare_with_eval": compare}
    if a.save:
        os.makedirs(a.save, exist_ok=True)
        with open(os.path.join(a.save, "queue-bench.json"), "w") as f:
            json.dump(out, f, indent=1)
    print(f"queue_bench: {len(cands)} candidates ({a.native} native, {a.modelnew} ModelNew) through Redis, one worker, "
          f"{a.backend}")
    print(f"| judgments per minute | {out['judgments_per_min']:.1f} |")
    print(f"| latency, s (median, min-max) | {out['latency_s']['median']:.1f} ({out['latency_s']['min']:.1f}-{out['latency_s']['max']:.1f}) |")
    print(f"| verdicts | {verdicts} |")
    for kind, v1, s1, v2, s2 in compare:
        fmt = lambda s: f"{s:.3f}x" if isinstance(s, (int, float)) else "-"
        print(f"| {kind}: through the queue {v1} {fmt(s1)}; cudal1 eval {v2} {fmt(s2)} |")
    if not all(r and r[1] == "correct" for r in results):
        for n, t in logs.items():
            print(f"--- {n}\n{t}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
