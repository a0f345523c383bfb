#!/usr/bin/env python3
"""cudal1 serve end to end on the CPU, over real HTTP on the loopback:

  - cudal1's shape: a correct kernel judged, the same code again answered
    from that judgment, an LLM answer's code block taken, an answer without
    code scored at the floor, a hack rejected with the penalty, a batch with
    group rewards, an asynchronous job polled;
  - each trainer's shape round-trips: OpenRLHF, slime, KernelGYM (/evaluate,
    /evaluate/batch, /status, /results), and python/cudal1_reward.py's verl
    and TRL functions;
  - every bad input gets its 4xx and queues nothing: malformed JSON, unknown
    task, unknown format, oversize code, a bad option, a full queue (429 with
    Retry-After), a missing or wrong bearer token (401);
  - /metrics is Prometheus text that counts what happened; the store holds
    every judgment;
  - a bounded load test: many concurrent clients on the loopback; prints the
    throughput and the p50/p99 latency (figures, not asserted).

Usage: serve_e2e.py CUDAL1 SOURCE_DIR
"""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

CUDAL1, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="serve-e2e-")
JUDGE = ["--backend", "cpu", "--time-budget", "0.3", "--timeout", "3", "--recheck-above", "0",
         "--recheck-above-best", "0", "--cache-dir", os.path.join(TMP, "cache")]
servers = []
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def start(name, *extra):
    port_file = os.path.join(TMP, name + ".port")
    log = open(os.path.join(TMP, name + ".log"), "w")
    p = subprocess.Popen([CUDAL1, "serve", "--tasks", os.path.join(SRC, "examples/swish/task.py"), "--tasks",
                          os.path.join(SRC, "suites/level1"), "--port", "0", "--port-file", port_file,
                          "--store", os.path.join(TMP, name + ".sqlite"), *JUDGE, *extra], stderr=log)
    servers.append(p)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return f"http://127.0.0.1:{open(port_file).read().strip()}", p
        if p.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f"cudal1 serve did not start: {open(os.path.join(TMP, name + '.log')).read()}")


def call(base, path, body=None, raw=None, token=None, method=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            text = r.read().decode()
            return r.status, (json.loads(text) if r.headers.get_content_type() == "application/json" else text), r.headers
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode()), e.headers


def main():
    correct = open(os.path.join(SRC, "examples/swish/cpu/correct.cpp")).read()
    hack = open(os.path.join(SRC, "examples/swish/cpu/hack_background_thread.cpp")).read()
    unreadable = open(os.path.join(SRC, "examples/swish/cpu/hack_utf8_thread.cpp")).read()
    wrong = open(os.path.join(SRC, "examples/swish/cpu/wrong.cpp")).read()
    answer = f"## Performance Analysis\nfused.\n\n## Code Implementation\n```cpp\n{correct}```\n"
    base, _ = start("main")

    # ---- cudal1's shape ---------------------------------------------------------
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": correct})
    check(s == 200 and b["verdict"] == "correct" and b["reward"] > 0 and not b["cached"],
          f"a correct kernel is judged correct (status {s}, verdict {b.get('verdict')}, reward {b.get('reward')})")
    first_speedup = b.get("speedup")
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": answer, "reward": "kevin"})
    check(s == 200 and b["cached"] and b["speedup"] == first_speedup and abs(b["reward"] - (0.3 + first_speedup)) < 1e-9,
          "an LLM answer with the same code is answered from that judgment, with Kevin's reward")
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": "I would fuse it, but here is no code."})
    check(s == 200 and b["verdict"] == "no_code" and b["reward"] == 0 and b["id"] is None,
          f"an answer without code is scored at the floor, not judged ({b.get('problem')})")
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": hack})
    check(s == 200 and b["verdict"] == "rejected" and b["reward"] < 0,
          f"a hack is rejected and paid below any incorrect kernel (verdict {b.get('verdict')}, reward {b.get('reward')})")
    # Text that is not UTF-8 in the judgment (its thread's name, its log): the
    # hack is still rejected, its judgment stored, and the server goes on (an
    # attack review, 2026-12-07: the store's dump threw and the server aborted).
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": unreadable})
    check(s == 200 and b["verdict"] == "rejected" and b["reward"] < 0 and "\ufffd" in json.dumps(b["judgment"], ensure_ascii=False),
          f"a hack whose text is not UTF-8 is rejected, its bytes replaced (verdict {b.get('verdict')})")
    s, b, _ = call(base, "/v1/judge/batch", {"requests": [{"task": "swish", "code": correct},
                                                        {"task": "swish", "code": wrong}], "group": True})
    verdicts = [r["verdict"] for r in b.get("results", [])]
    check(s == 200 and verdicts == ["correct", "incorrect"] and b["group_rewards"] == [1.0, -1.0],
          f"a batch keeps its order, with group rewards ({verdicts}, {b.get('group_rewards')})")
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": correct, "fresh": True, "wait": False,
                                       "options": {"trials": 3}})
    check(s == 202 and b["state"] in ("queued", "compiling", "running"), f"wait: false answers 202 at once ({b.get('state')})")
    job = b["id"]
    for _ in range(600):
        s, b, _ = call(base, "/v1/jobs/" + job)
        if b["state"] in ("done", "failed"):
            break
        time.sleep(0.1)
    check(b["state"] == "done" and b["verdict"] == "correct" and b["judgment"]["trials"] == 3,
          "the job is polled to its verdict, with the trials asked for")

    # ---- trainers' shapes -------------------------------------------------------------
    prompt = "<|user|>Make swish faster.<|assistant|>"
    s, b, _ = call(base, "/v1/openrlhf", {"query": [prompt + answer, prompt + "no idea"], "prompts": [prompt, prompt],
                                          "labels": ["swish", "swish"]})
    check(s == 200 and len(b["rewards"]) == 2 and b["rewards"][0] > 0 and b["rewards"][1] == 0 and
          b["extra_logs"]["correct"] == [1.0, 0.0], f"OpenRLHF's shape round-trips ({b})")
    s, b, _ = call(base, "/v1/slime", {"prompt": prompt, "response": answer, "label": "swish"})
    check(s == 200 and b["reward"] > 0 and b["verdict"] == "correct", f"slime's shape round-trips ({b.get('reward')})")
    ref = open(os.path.join(SRC, "examples/swish/task.py")).read()
    modelnew = open(os.path.join(SRC, "examples/swish/cpu/modelnew_correct.py")).read()
    s, b, _ = call(base, "/evaluate", {"task_id": "kg-1", "reference_code": ref, "kernel_code": modelnew, "backend": "cpu"})
    check(s == 200 and b["status"] == "completed" and b["correctness"] is True and b["speedup"] > 0 and
          b["reference_runtime"] > 0, f"KernelGYM's /evaluate judges a ModelNew named by its reference's code ({b.get('status')}, {b.get('error_message')})")
    s, st, _ = call(base, "/status/kg-1")
    s2, res, _ = call(base, "/results/kg-1")
    check(s == 200 and st["status"] == "completed" and s2 == 200 and res["speedup"] == b["speedup"],
          "KernelGYM's /status and /results find it")
    s, b, _ = call(base, "/evaluate/batch", {"batch_id": "kb", "tasks": [
        {"task_id": "kg-2", "reference_code": ref, "kernel_code": modelnew},
        {"task_id": "kg-3", "reference_code": ref + "\n\n", "kernel_code": "class Nothing: pass"}]})
    check(s == 200 and b["total_tasks"] == 2 and b["results"][0]["correctness"] is True and
          b["results"][1]["compiled"] is False, f"KernelGYM's /evaluate/batch ({[r['status'] for r in b.get('results', [])]})")
    env = dict(os.environ, CUDAL1_SERVER=base, PYTHONPATH=os.path.join(SRC, "python"))
    verl = subprocess.run([sys.executable, "-c", (
        "import cudal1_reward as r, json\n"
        f"a = open({os.path.join(SRC, 'examples/swish/cpu/correct.cpp')!r}).read()\n"
        "s = r.compute_score('kernelbench', '```cpp\\n' + a + '```', 'swish', {'task': 'swish'})\n"
        "t = r.trl_reward(completions=['```cpp\\n' + a + '```', 'none'], task=['swish', 'swish'])\n"
        "print(json.dumps({'verl': s, 'trl': t}))")], capture_output=True, text=True, env=env)
    try:
        got = json.loads(verl.stdout.strip().splitlines()[-1])
        ok = got["verl"]["score"] > 0 and got["verl"]["verdict"] == "correct" and got["trl"][0] > 0 and got["trl"][1] == 0
    except (ValueError, IndexError, KeyError, TypeError):
        got, ok = verl.stdout + verl.stderr, False
    check(ok, f"verl's compute_score and TRL's reward function call the server ({got})")

    # ---- bad input: a 4xx and nothing queued ----------------------------------------------
    before = call(base, "/metrics")[1]
    bad = [
        ("malformed JSON", dict(raw=b"{not json"), 400),
        ("unknown task", dict(body={"task": "nope", "code": correct}), 404),
        ("ambiguous-free unknown reference", dict(body={"reference_code": "x = 1", "code": correct}), 422),
        ("unknown format", dict(body={"task": "swish", "code": correct, "format": "fortran"}), 400),
        ("a format of another backend", dict(body={"task": "swish", "code": correct, "format": "cuda"}), 422),
        ("oversize code", dict(body={"task": "swish", "code": "x" * 300000}), 413),
        ("a bad option", dict(body={"task": "swish", "code": correct, "options": {"time_budget": 99}}), 400),
        ("a seed (the inputs are the judge's secret)", dict(body={"task": "swish", "code": correct,
                                                                  "options": {"seed": 7}}), 400),
        ("no code field", dict(body={"task": "swish"}), 400),
        ("an empty batch", dict(body={"requests": []}, path="/v1/judge/batch"), 400),
        ("a batch over --max-batch", dict(body={"requests": [{"task": "swish", "code": correct}] * 257},
                                          path="/v1/judge/batch"), 413),
        ("a KernelGYM field of the wrong type", dict(body={"task_id": "t", "reference_code": 5, "kernel_code": "x"},
                                                     path="/evaluate"), 400),
        ("a field of the wrong type", dict(body={"task": "swish", "code": correct, "fresh": "yes"}), 400),
        ("a KernelGYM task_id reused for other code", dict(body={"task_id": "kg-1", "reference_code": ref,
                                                                 "kernel_code": "class ModelNew: pass"},
                                                           path="/evaluate"), 409),
    ]
    for what, kw, want in bad:
        path = kw.pop("path", "/v1/judge")
        s, b, _ = call(base, path, **kw)
        check(s == want and "message" in b.get("error", {}), f"{what}: {s} ({b.get('error', {}).get('message', '')[:90]})")
    s, b, _ = call(base, "/v1/nothing-here")
    check(s == 404 and "no route" in b["error"]["message"], "an unknown route: 404 with a JSON body")
    after = call(base, "/metrics")[1]
    queued = lambda text: sum(int(l.split()[-1]) for l in text.splitlines() if l.startswith("cudal1_judgments_total"))
    check(queued(after) == queued(before), "none of them was judged")

    # ---- metrics and the store ------------------------------------------------------------------
    check("# TYPE cudal1_job_latency_seconds histogram" in after and 'cudal1_judgments_total{verdict="correct"}' in after
          and 'cudal1_http_requests_total{method="POST",route="/v1/judge",status="404"} 1' in after,
          "/metrics is Prometheus text with verdicts, latency and requests by status")
    db = sqlite3.connect(os.path.join(TMP, "main.sqlite"))
    stored = dict(db.execute("select verdict, count(*) from judgments group by verdict").fetchall())
    check(stored.get("correct", 0) == 3 and stored.get("rejected", 0) == 2 and stored.get("incorrect", 0) == 1,
          f"the store holds every judgment, each judged once (answers from an earlier judgment add none) ({stored})")
    texts = [r[0] for r in db.execute("select judgment from judgments where judgment like '%\ufffd%'").fetchall()]
    check(len(texts) == 1, f"the judgment whose text was not UTF-8 is stored as valid UTF-8 ({len(texts)} found)")

    # ---- load: many clients at once ------------------------------------------------------------
    clients, per_client = 32, 20
    latencies, errors = [], []
    lock = threading.Lock()

    def client(n):
        for i in range(per_client):
            body = {"task": "swish", "code": correct} if i % 2 == 0 else {"task": "swish", "code": answer}
            t0 = time.perf_counter()
            s, b, _ = call(base, "/v1/judge", body)
            with lock:
                latencies.append(time.perf_counter() - t0)
                if s != 200 or b.get("verdict") != "correct":
                    errors.append((s, b))
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat = sorted(latencies)
    p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"load: {clients} clients x {per_client} requests (answered from one judgment): {len(lat) / wall:.0f} requests/s, "
          f"p50 {1000 * p50:.1f} ms, p99 {1000 * p99:.1f} ms, wall {wall:.2f} s", flush=True)
    check(not errors and len(lat) == clients * per_client, f"every request of the load test answered ({len(errors)} errors)")
    distinct = 4
    t0 = time.perf_counter()
    res = [None] * distinct

    def judge_one(k):
        t1 = time.perf_counter()
        s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": f"// variant {k}\n" + correct})
        res[k] = (s, b.get("verdict"), time.perf_counter() - t1)
    threads = [threading.Thread(target=judge_one, args=(k,)) for k in range(distinct)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    check(all(r[0] == 200 and r[1] == "correct" for r in res), f"{distinct} distinct kernels at once all judged")
    print(f"load: {distinct} distinct kernels posted at once: {wall:.1f} s in all, {60 * distinct / wall:.1f} judgments/min, "
          f"latency {min(r[2] for r in res):.1f}-{max(r[2] for r in res):.1f} s (one device, one judgment at a time)", flush=True)

    # ---- a full queue and tokens -----------------------------------------------------------------
    tokens = os.path.join(TMP, "tokens")
    with open(tokens, "w") as f:
        f.write("secret-1\nsecret-2\n")
    small, _ = start("small", "--queue-limit", "1", "--token-file", tokens)
    s, b, _ = call(small, "/v1/judge", {"task": "swish", "code": correct})
    check(s == 401 and "bearer token" in b["error"]["message"], "no token: 401")
    s, b, _ = call(small, "/v1/judge", {"task": "swish", "code": correct}, token="wrong")
    check(s == 401, "a wrong token: 401")
    check(call(small, "/health")[0] == 200, "/health needs no token")
    s1, b1, _ = call(small, "/v1/judge", {"task": "swish", "code": "// a\n" + correct, "wait": False}, token="secret-2")
    s2, b2, h2 = call(small, "/v1/judge", {"task": "swish", "code": "// b\n" + correct, "wait": False}, token="secret-2")
    check(s1 == 202 and s2 == 429 and int(h2.get("Retry-After", "0")) >= 1,
          f"a full queue: 429 with Retry-After ({s1}, {s2}, Retry-After {h2.get('Retry-After')})")
    s, b, _ = call(small, "/v1/jobs/" + b1["id"], token="secret-1")
    check(s == 404, f"another client's job is not shown ({s})")
    n_small = sqlite3.connect(os.path.join(TMP, "small.sqlite"))
    for _ in range(600):
        s, b, _ = call(small, "/v1/jobs/" + b1["id"], token="secret-2")
        if b["state"] == "done":
            break
        time.sleep(0.1)
    stored = n_small.execute("select count(*) from judgments").fetchone()[0]
    check(stored == 1, f"only the accepted request was judged and stored ({stored})")

    # ---- inline reference code (--allow-inline-tasks): a task of its own, its reference sealed ----------
    inline, _ = start("inline", "--allow-inline-tasks")
    probe = open(os.path.join(SRC, "tests/fixtures/tasks/untrusted_probe.py")).read()
    s, b, _ = call(inline, "/v1/judge", {"reference_code": probe, "code": correct})
    sandbox = (b.get("judgment") or {}).get("reference_sandbox") or {}
    check(s == 200 and b.get("verdict") == "correct" and b.get("task", "").startswith("inline/") and
          sandbox.get("user", "").startswith("uid 65533"),
          f"an inline reference is judged sealed: the probe task, which raises if any way out works, imports "
          f"({s}, {b.get('verdict')}, {b.get('task')}, reference sandbox {sandbox.get('user')}; "
          f"{(b.get('error') or {}).get('message', '')[:200]})")
    s, b, _ = call(inline, "/evaluate", {"task_id": "inline-1", "reference_code": probe,
                                         "kernel_code": open(os.path.join(SRC, "examples/swish/cpu/modelnew_correct.py")).read(),
                                         "backend": "cpu"})
    check(s == 200, f"KernelGYM's /evaluate takes inline reference code too ({s})")
    s, b, _ = call(inline, "/v1/judge", {"reference_code": "print('no task here')", "code": correct})
    check(s == 422 and "no KernelBench task" in b["error"]["message"], f"inline code that is no task: 422 ({s})")
    s, b, _ = call(inline, "/v1/judge", {"reference_code": probe, "code": correct, "options": {"untrusted_task": False}})
    check(s == 400, f"a client cannot turn the reference's seal off ({s})")


try:
    main()
finally:
    for p in servers:
        p.terminate()
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    if failures:
        for name in os.listdir(TMP):
            if name.endswith(".log"):
                print(f"--- {name}\n" + open(os.path.join(TMP, name)).read()[-3000:])
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{len(failures)} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
