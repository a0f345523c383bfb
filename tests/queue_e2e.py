#!/usr/bin/env python3
"""Judging spread over workers on a real Redis (CPU backend):

  - `cudal1 serve --redis` puts six distinct candidates on the queue;
  - two `cudal1 worker`s share it; one is killed (SIGKILL) while it holds a
    job, which the other reclaims and judges;
  - every job ends with exactly one result: each is correct, the store holds
    six judgments, nothing stays pending; a job already judged is answered
    from its result without a worker;
  - jobs and results are signed: a job put on the stream without the
    server's signature is dropped unrun, and a result forged into Redis for a
    wrong kernel is not taken (the kernel is judged, and found incorrect);
  - prints judgments per minute and the latency (figures, not asserted).

Usage: queue_e2e.py CUDAL1 SOURCE_DIR
"""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

CUDAL1, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="queue-e2e-")
JUDGE = ["--backend", "cpu", "--time-budget", "0.3", "--timeout", "3", "--recheck-above", "0", "--recheck-above-best", "0"]
procs, failures = [], []
# The secret the server and its workers share (jobs and results are signed with it).
os.environ["CUDAL1_REDIS_SECRET"] = "queue-e2e-secret-0123456789"


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def redis_cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True).stdout


def call(base, path, body=None):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.status, json.loads(r.read())


def start_worker(name, port):
    log = open(os.path.join(TMP, f"worker-{name}.log"), "w")
    p = subprocess.Popen([CUDAL1, "worker", "--redis", f"redis://127.0.0.1:{port}", "--name", name, "--reclaim-after", "3",
                          *JUDGE, "--cache-dir", os.path.join(TMP, "cache-" + name)], stderr=log)
    procs.append(p)
    return p


def main():
    if not shutil.which("redis-server") or not shutil.which("redis-cli"):
        raise SystemExit("redis-server and redis-cli are needed (scripts/install-deps.sh installs them)")
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                             stdout=open(os.path.join(TMP, "redis.log"), "w"))
    procs.append(redis)
    for _ in range(100):
        if redis_cli(port, "PING").strip() == "PONG":
            break
        time.sleep(0.1)
    port_file = os.path.join(TMP, "serve.port")
    store = os.path.join(TMP, "store.sqlite")
    serve = subprocess.Popen([CUDAL1, "serve", "--tasks", os.path.join(SRC, "examples/swish/task.py"), "--port", "0",
                              "--port-file", port_file, "--store", store, "--redis", f"redis://127.0.0.1:{port}",
                              "--backend", "cpu"], stderr=open(os.path.join(TMP, "serve.log"), "w"))
    procs.append(serve)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        time.sleep(0.1)
    base = f"http://127.0.0.1:{open(port_file).read().strip()}"
    correct = open(os.path.join(SRC, "examples/swish/cpu/correct.cpp")).read()
    n = 6
    t0 = time.time()
    ids = []
    for k in range(n):
        s, b = call(base, "/v1/judge", {"task": "swish", "code": f"// variant {k}\n" + correct, "wait": False})
        ids.append(b["id"])
    check(len(set(ids)) == n, f"{n} jobs queued")
    a = start_worker("A", port)
    start_worker("B", port)
    # Kill A while it holds a job.
    killed_holding = False
    for _ in range(600):
        out = redis_cli(port, "XPENDING", "cudal1:jobs", "cudal1:workers", "-", "+", "10", "A")
        if out.strip():
            a.kill()
            killed_holding = True
            break
        time.sleep(0.05)
    check(killed_holding, "worker A was killed while it held a job")
    done = {}
    for _ in range(1200):
        for i in ids:
            if i not in done:
                s, b = call(base, "/v1/jobs/" + i)
                if b["state"] in ("done", "failed"):
                    done[i] = b
        if len(done) == n:
            break
        time.sleep(0.1)
    wall = time.time() - t0
    verdicts = [done[i].get("verdict") for i in ids if i in done]
    check(len(done) == n and all(v == "correct" for v in verdicts), f"every job ended correct ({verdicts})")
    db = sqlite3.connect(store)
    stored = db.execute("select count(*), count(distinct candidate_hash) from judgments").fetchone()
    check(stored == (n, n), f"the store holds exactly one judgment per job ({stored[0]} judgments, {stored[1]} candidates)")
    pending = redis_cli(port, "XPENDING", "cudal1:jobs", "cudal1:workers").split("\n")[0].strip()
    check(pending == "0", f"nothing stays pending on the stream ({pending})")
    # Stored signed: {"result": TEXT, "sig": HMAC}.
    results = [json.loads(json.loads(redis_cli(port, "GET", k).strip() or '{"result": "{}"}')["result"])
               for k in redis_cli(port, "KEYS", "cudal1:result:*").split()]
    by_worker = {}
    for r in results:
        by_worker[r.get("worker")] = by_worker.get(r.get("worker"), 0) + 1
    check(sum(by_worker.values()) == n and set(by_worker) <= {"A", "B"} and by_worker.get("B", 0) >= 1,
          f"one result per job in Redis, by worker: {by_worker}")
    print(f"queue: {n} jobs, 2 workers (one killed mid-job): {wall:.1f} s, {60 * n / wall:.1f} judgments/min; "
          f"latency {min(d['seconds'] for d in done.values()):.1f}-{max(d['seconds'] for d in done.values()):.1f} s",
          flush=True)
    # cudal1 bench --redis: two candidates and a task without one, judged by the worker left.
    suite, cands = os.path.join(TMP, "suite"), os.path.join(TMP, "cands")
    os.makedirs(suite)
    os.makedirs(cands)
    task = open(os.path.join(SRC, "examples/swish/task.py")).read()
    for name in ("swish", "swish_alone"):
        with open(os.path.join(suite, name + ".py"), "w") as f:
            f.write(task)
    for k in range(2):
        with open(os.path.join(cands, f"swish.{k}.cpp"), "w") as f:
            f.write(f"// bench sample {k}\n" + correct)
    bench_store = os.path.join(TMP, "bench.sqlite")
    cmd = [CUDAL1, "bench", suite, "--candidates", cands, "--redis", f"redis://127.0.0.1:{port}", "--store", bench_store,
           "--backend", "cpu", "-q"]
    t1 = time.time()
    b1 = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    bench_s = time.time() - t1
    rows = sqlite3.connect(bench_store).execute("select verdict, count(*) from judgments group by verdict").fetchall()
    check(b1.returncode == 0 and dict(rows) == {"correct": 2, "reference": 1},
          f"cudal1 bench --redis: two samples judged and a reference timed by the workers ({dict(rows)}, "
          f"exit {b1.returncode}, {bench_s:.1f} s) {b1.stderr[-300:] if b1.returncode else ''}")
    b2 = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(b2.returncode == 0 and "3 items were already in the run" in (b2.stdout + b2.stderr),
          "the same bench command again finds everything in its run")

    # Signatures: an unsigned job is never run; a forged result is not taken.
    marker = os.path.join(TMP, "pwned")
    evil = task.replace("import torch", f"import torch\nopen({marker!r}, 'w').write('ran')", 1)
    redis_cli(port, "XADD", "cudal1:jobs", "*", "key", "f" * 64, "job",
              json.dumps({"task_name": "swish", "task_source": evil, "code": correct, "format": "cpp", "options": {}}),
              "sig", "0" * 64)
    wrong = open(os.path.join(SRC, "examples/swish/cpu/wrong.cpp")).read()
    import hashlib
    key = hashlib.sha256(b"".join(x.encode() + b"\0" for x in (task, "cpp", wrong, "{}"))).hexdigest()
    redis_cli(port, "SET", "cudal1:result:" + key,
              json.dumps({"result": json.dumps({"state": "done", "judgment": {"verdict": "correct", "speedup": 50}}),
                          "sig": "0" * 64}))
    s, b = call(base, "/v1/judge", {"task": "swish", "code": wrong})
    check(b.get("verdict") == "incorrect", f"a result forged into Redis is not taken (verdict {b.get('verdict')}, "
                                           f"speedup {b.get('speedup')})")
    time.sleep(1.5)
    check(not os.path.exists(marker), "a job without the server's signature is dropped, its task never imported")

    # The same code again: answered from the server's result, no worker needed.
    s, b = call(base, "/v1/judge", {"task": "swish", "code": "// variant 0\n" + correct})
    check(b["cached"] and b["verdict"] == "correct", "a job judged already is answered from its result")


try:
    main()
finally:
    for p in reversed(procs):
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    if failures:
        for name in sorted(os.listdir(TMP)):
            if name.endswith(".log"):
                print(f"--- {name}\n" + open(os.path.join(TMP, name)).read()[-2500:])
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
