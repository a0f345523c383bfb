#!/usr/bin/env python3
"""competition_bench: a one-task competition (`cudal1 serve --competition`)
with three submissions, its leaderboard read through the API, beside
`cudal1 eval` of the same files on the same (public) sizes: both rankings side
by side, and whether they match.

    python3 bench/competition_bench.py [--cudal1 PATH] [--backend cuda|cpu] [--task FILE]
                                       [--profile NAME] [--hidden-sizes JSON] [--save DIR]
                                       [CANDIDATE...] [-- judge options for serve and eval]

Defaults, CUDA: examples/swish on its p600us profile (4096 x 16384, ~0.5 ms
on an H200) with examples/swish/cuda/correct.cu (fused, float4),
modelnew_inline.py (a load_inline grid-stride kernel) and modelnew_correct.py
(PyTorch eager, two kernels): three speeds far enough apart that a ranking
is not decided by noise (the native variants correct_host_func.cu and
correct_joined_thread.cu run the same kernel as correct.cu). CPU: the "cpu"
profile with examples/swish/cpu's correct.cpp, correct_joined_thread.cpp and
modelnew_correct.py. The hidden run is the task at sizes that are no
multiple of 4 (--hidden-sizes) with a fixed seed.

Each file is one entrant's submission, sent with `cudal1 submit` (the CLI
waits for the verdict); the board ranks by the public run's median time. The
same files are then judged by one `cudal1 eval` on the public profile. The
table gives each file's rank and time on both sides and the ratio; "match"
is whether the two orders agree. A pair whose eval medians are closer than
the larger of their spreads (IQR) may come out either way in any two
judgments: a swap there is reported as within noise. Exit status 0 when
every submission stood and the board orders every pair eval tells apart as
eval does, else 1.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULTS = {
    "cuda": {"profile": "p600us", "hidden": {"batch_size": 1531, "dim": 4099},
             "candidates": ["examples/swish/cuda/correct.cu", "examples/swish/cuda/modelnew_inline.py",
                            "examples/swish/cuda/modelnew_correct.py"]},
    "cpu": {"profile": "cpu", "hidden": {"batch_size": 311, "dim": 1531},
            "candidates": ["examples/swish/cpu/correct.cpp", "examples/swish/cpu/correct_joined_thread.cpp",
                           "examples/swish/cpu/modelnew_correct.py"]},
}


def utc(delta_s):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + delta_s))


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=60) as r:
        return json.loads(r.read())


def entrant_of(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem.replace("_", "-")[:64]


def write_competition(tmp, task, profile, hidden, backend, candidates):
    people = []
    for c in candidates:
        token = "tok-" + os.urandom(12).hex()
        name = entrant_of(c)
        with open(os.path.join(tmp, name + ".token"), "w") as f:
            f.write(token + "\n")
        people.append({"name": name, "token_sha256": hashlib.sha256(token.encode()).hexdigest()})
    comp = {"name": "competition-bench", "backend": backend, "start": utc(-60), "end": utc(6 * 3600), "ranking": "time",
            "tasks": [{"name": "swish", "file": task, "public_profile": profile,
                       "hidden": [{"sizes": hidden, "seed": 913377}]}],
            "participants": people,
            "limits": {"max_code_bytes": 262144, "submissions": 100, "window_s": 3600, "max_pending": 4}}
    path = os.path.join(tmp, "competition.json")
    with open(path, "w") as f:
        json.dump(comp, f, indent=2)
    return path


def start_server(a, tmp, comp, judge):
    port_file = os.path.join(tmp, "port")
    log = open(os.path.join(tmp, "serve.log"), "w")
    p = subprocess.Popen([a.cudal1, "serve", "--competition", comp, "--port", "0", "--port-file", port_file,
                          "--store", os.path.join(tmp, "results.sqlite"), "--competition-store",
                          os.path.join(tmp, "competition.sqlite"), *judge], stderr=log)
    for _ in range(600):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return p, f"http://127.0.0.1:{open(port_file).read().strip()}"
        if p.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit("cudal1 serve --competition did not start:\n" + open(os.path.join(tmp, "serve.log")).read())


def spread_ms(median, rel_iqr):
    return median * (rel_iqr or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build", "bin", "cudal1"))
    ap.add_argument("--backend", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--task", default=os.path.join(ROOT, "examples/swish/task.py"))
    ap.add_argument("--profile", help="the public size profile (default: p600us on CUDA, cpu on the CPU)")
    ap.add_argument("--hidden-sizes", help='the hidden run\'s sizes as JSON (default: {"batch_size": 1531, "dim": 4099} on CUDA)')
    ap.add_argument("--save", help="a folder for the results (competition-bench.json) and the server's log")
    ap.add_argument("candidates", nargs="*")
    argv = sys.argv[1:]
    judge = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    judge += ["--backend", a.backend]
    d = DEFAULTS[a.backend]
    profile = a.profile or d["profile"]
    hidden = json.loads(a.hidden_sizes) if a.hidden_sizes else d["hidden"]
    candidates = [os.path.abspath(c if os.path.isabs(c) else os.path.join(ROOT, c) if not os.path.exists(c) else c)
                  for c in (a.candidates or d["candidates"])]
    if len({entrant_of(c) for c in candidates}) != len(candidates):
        raise SystemExit("two candidates have the same file stem: each is an entrant, named by it")
    tmp = tempfile.mkdtemp(prefix="competition-bench-")
    server = None
    result = {"backend": a.backend, "task": a.task, "profile": profile, "hidden_sizes": hidden, "judge_options": judge}
    try:
        comp = write_competition(tmp, a.task, profile, hidden, a.backend, candidates)
        server, base = start_server(a, tmp, comp, judge)
        print(f"competition on {base} ({a.backend}, task swish, public profile {profile}, hidden sizes {hidden})", flush=True)

        # ---- the submissions, by the CLI ------------------------------------------------------------
        submitted = {}
        t0 = time.time()
        for c in candidates:
            name = entrant_of(c)
            t1 = time.time()
            p = subprocess.run([a.cudal1, "submit", "--server", base, "--token-file", os.path.join(tmp, name + ".token"),
                                "--task", "swish", c, "--json"], capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit(f"cudal1 submit {c} failed ({p.returncode}): {p.stderr.strip()}")
            s = json.loads(p.stdout)
            submitted[name] = s
            print(f"  submitted {os.path.relpath(c, ROOT)} as {name}: {s['verdict']}"
                  f"{' (' + s['part'] + ' run)' if s.get('part') else ''}, hidden {s['hidden']['verdict']}, "
                  f"public {s.get('time_ms')} ms, {time.time() - t1:.1f} s", flush=True)
        serve_s = time.time() - t0
        board = get(base, "/v1/competition/board")
        boards = board["tasks"][0]["boards"]
        entries = boards[0]["entries"] if boards else []
        board_rank = {e["participant"]: e for e in entries}

        # ---- cudal1 eval of the same files ---------------------------------------------------------------
        t0 = time.time()
        p = subprocess.run([a.cudal1, "eval", "--json", a.task, *candidates, "--profile", profile, *judge],
                           capture_output=True, text=True)
        eval_s = time.time() - t0
        judgments = [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
        if p.returncode != 0 or len(judgments) != len(candidates):
            raise SystemExit(f"cudal1 eval failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
        evals = {}
        for c, j in zip(candidates, judgments):
            cand = j.get("candidate") or {}
            evals[entrant_of(c)] = {"verdict": j["verdict"], "time_ms": cand.get("median_ms"),
                                    "rel_iqr": cand.get("rel_iqr"), "speedup": j.get("speedup")}
        eval_order = sorted([n for n in evals if evals[n]["verdict"] == "correct"], key=lambda n: evals[n]["time_ms"])
        board_order = [e["participant"] for e in entries]

        # ---- side by side ----------------------------------------------------------------------------------
        print(f"\n{'entrant (file)':28} {'board':>5} {'board ms':>10} {'board x':>8} | {'eval':>4} {'eval ms':>10} "
              f"{'eval x':>8} | {'board/eval':>10}")
        rows = []
        for c in candidates:
            n = entrant_of(c)
            e, s, v = board_rank.get(n), submitted[n], evals[n]
            bt, et = s.get("time_ms"), v["time_ms"]
            rank_b = e["rank"] if e else "-"
            rank_e = eval_order.index(n) + 1 if n in eval_order else "-"
            ratio = bt / et if bt and et else None
            rows.append({"entrant": n, "file": os.path.relpath(c, ROOT), "board_rank": e["rank"] if e else None,
                         "board_ms": bt, "board_speedup": s.get("speedup"), "board_verdict": s.get("verdict"),
                         "hidden": s["hidden"]["verdict"], "eval_rank": rank_e if rank_e != "-" else None,
                         "eval_ms": et, "eval_speedup": v["speedup"], "eval_verdict": v["verdict"], "ratio": ratio})
            fmt = lambda x, f: f.format(x) if isinstance(x, (int, float)) else "-"
            print(f"{n:28} {str(rank_b):>5} {fmt(bt, '{:.4f}'):>10} {fmt(s.get('speedup'), '{:.2f}'):>8} | "
                  f"{str(rank_e):>4} {fmt(et, '{:.4f}'):>10} {fmt(v['speedup'], '{:.2f}'):>8} | {fmt(ratio, '{:.3f}'):>10}")
        match = board_order == eval_order and len(board_order) == len(candidates)
        # Pairs eval tells apart (their medians further apart than the larger
        # spread, IQR, of the two) must be in the same order on the board;
        # a pair within noise may come out either way in any two judgments.
        swapped, noisy = [], []
        for i, x in enumerate(eval_order):
            for y in eval_order[i + 1:]:
                gap = evals[y]["time_ms"] - evals[x]["time_ms"]
                noise = max(spread_ms(evals[x]["time_ms"], evals[x]["rel_iqr"]),
                            spread_ms(evals[y]["time_ms"], evals[y]["rel_iqr"]))
                board_agrees = x in board_order and y in board_order and board_order.index(x) < board_order.index(y)
                if not board_agrees:
                    (noisy if gap <= noise else swapped).append(
                        f"{x} < {y} by eval ({gap:.4f} ms apart, spread {noise:.4f} ms)")
        consistent = not swapped and len(board_order) == len(candidates)
        print(f"\nboard order: {' > '.join(board_order) or '(empty)'}")
        print(f"eval order:  {' > '.join(eval_order) or '(none correct)'}")
        if match:
            print("match: yes")
        elif consistent:
            print("match: no, but only within noise: " + "; ".join(noisy))
        else:
            print("match: NO: " + "; ".join(swapped or ["a submission is missing from the board"]))
        print(f"time: {serve_s:.1f} s for the {len(candidates)} submissions (public and hidden runs), {eval_s:.1f} s for cudal1 eval")
        result.update({"rows": rows, "board_order": board_order, "eval_order": eval_order, "match": match,
                       "consistent": consistent, "swapped_beyond_noise": swapped, "swapped_within_noise": noisy,
                       "serve_s": serve_s, "eval_s": eval_s})
        return 0 if consistent else 1
    finally:
        if server:
            server.terminate()
            try:
                server.wait(timeout=120)
            except subprocess.TimeoutExpired:
                server.kill()
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            with open(os.path.join(a.save, "competition-bench.json"), "w") as f:
                json.dump(result, f, indent=2)
            if os.path.exists(os.path.join(tmp, "serve.log")):
                shutil.copy(os.path.join(tmp, "serve.log"), os.path.join(a.save, "competition-serve.log"))
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
