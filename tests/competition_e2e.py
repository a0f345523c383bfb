#!/usr/bin/env python3
"""cudal1 serve --competition end to end on the CPU, over the API and the CLI:

  - two tasks, three entrants: a correct kernel ranks; a kernel that
    hard-codes the public sizes passes the public run and fails a hidden one
    (incorrect, never on the board); a hack is rejected and listed as such;
    `cudal1 submit` prints the verdict and the rank; the board ranks by the
    public time, best per entrant;
  - nothing the entrants see holds the hidden sizes or seeds; another
    entrant's code and messages are not shown;
  - every bad input gets its status and stores nothing: no or a wrong token
    (401), malformed JSON, missing or mistyped fields (400), an unknown task
    (404), oversize code (413), a format of another backend or no code
    (422), over the rate limit or too many pending (429 with Retry-After),
    before the start and after the end (403); the CLI's errors and exit codes;
  - the live events (SSE) carry a new board when a submission lands; a
    restarted server has the same board; /metrics counts; no token in a log.

Usage: competition_e2e.py CUDAL1 SOURCE_DIR
"""
import http.client
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from competition_fixture import TOKENS, Checks, Server, call, hidden_marks_in, source, write_competition  # noqa: E402

CUDAL1, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="competition-e2e-")
check = Checks()
servers = []


def start(name, competition, **kw):
    s = Server(CUDAL1, TMP, name, competition, **kw)
    servers.append(s)
    return s


def submit_cli(base, who, task, path, *extra):
    token_file = os.path.join(TMP, who + ".cli-token")
    with open(token_file, "w") as f:
        f.write(TOKENS.get(who, who) + "\n")
    p = subprocess.run([CUDAL1, "submit", "--server", base, "--token-file", token_file, "--task", task,
                        os.path.join(SRC, path), *extra], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def stored(store):
    db = sqlite3.connect(store)
    try:
        return db.execute("select count(*) from submissions").fetchone()[0]
    finally:
        db.close()


def no_hidden(text):
    return hidden_marks_in(text)


def first_event(base, seen_version, timeout_s):
    """The first SSE board event with a version above seen_version (or None)."""
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout_s)
    conn.request("GET", "/v1/competition/events", headers={"Accept": "text/event-stream", "Accept-Encoding": "gzip"})
    r = conn.getresponse()
    if r.status != 200 or r.getheader("Content-Type") != "text/event-stream":
        return r.status, None
    deadline = time.time() + timeout_s
    event = None
    while time.time() < deadline:
        line = r.readline().decode()
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "board":
            board = json.loads(line[5:])
            if board["version"] > seen_version:
                conn.close()
                return 200, board
    conn.close()
    return 200, None


def main():
    comp = write_competition(TMP, SRC)
    main_store = os.path.join(TMP, "main.sqlite")
    srv = start("main", comp, store=main_store)
    base = srv.base
    correct = source(SRC, "examples/swish/cpu/correct.cpp")

    # ---- the competition as anyone sees it -----------------------------------------
    s, c, _ = call(base, "/v1/competition")
    check(s == 200 and c["state"] == "open" and [t["name"] for t in c["tasks"]] == ["swish", "rowsoftmax"] and
          c["participants"] == ["alice", "bob", "carol"] and c["tasks"][0]["hidden_runs"] == 2 and
          "cudal1_profiles" in c["tasks"][0]["source"],
          f"GET /v1/competition: open, two tasks with their public sources, three entrants ({s})")
    check(not no_hidden(json.dumps(c)), f"it holds no hidden size or seed ({no_hidden(json.dumps(c))})")
    s, page, _ = call(base, "/")
    check(s == 200 and "<title>cpu-cup: cudal1 competition</title>" in page and "/static/editor.bundle.js" in page,
          "GET / is the leaderboard page")
    for asset in ("competition.js", "competition.css", "chart.umd.js", "editor.bundle.js"):
        s, body, h = call(base, "/static/" + asset)
        check(s == 200 and len(body) > 500, f"/static/{asset} is served from this server ({s}, {len(body)} bytes)")

    # ---- entrants submit --------------------------------------------------------------------
    s, a1, _ = call(base, "/v1/competition/submissions", {"task": "swish", "code": correct, "wait": True},
                    token=TOKENS["alice"])
    check(s == 200 and a1["state"] == "done" and a1["verdict"] == "correct" and a1["standing"] and
          a1["hidden"] == {"verdict": "pass"} and a1["standing_now"]["rank"] == 1 and a1["code"] == correct and
          a1["time_ms"] > 0 and a1["speedup"] > 0 and a1["sol_fraction"] is not None,
          f"alice's correct swish stands at rank 1, public and hidden runs passed ({s}, {a1.get('verdict')}, "
          f"{a1.get('hidden')}, {a1.get('error')})")
    check(a1["public"]["signature"]["inputs"][0]["shape"] == [256, 1024] and "task" not in a1["public"],
          "her public run is the public sizes, without the server's paths")
    db = sqlite3.connect(main_store)
    hidden = json.loads(db.execute("select hidden_judgments from submissions where id = ?", (a1["id"],)).fetchone()[0])
    db.close()
    runs = [(j.get("seed"), j.get("profile"), j["signature"]["inputs"][0]["shape"], j["verdict"]) for j in hidden]
    check(runs == [(913377, "cudal1_hidden_1", [311, 1531], "correct"), (5550123, "cpu", [256, 1024], "correct")],
          f"the hidden runs were judged at their sizes and seeds, kept for the organizers ({runs})")

    rc, out, err = submit_cli(base, "bob", "swish", "tests/fixtures/competition/swish_public_shape.cpp")
    check(rc == 0 and "incorrect on the hidden run" in out and "hidden runs: fail (incorrect)" in out,
          f"bob's kernel that hard-codes the public sizes fails a hidden run, by the CLI (rc {rc}):\n{out}{err}")
    check(not no_hidden(out + err), f"the CLI's output holds no hidden size or seed ({no_hidden(out + err)})")
    bob_id = int(out.split()[1])
    s, b1, _ = call(base, f"/v1/competition/submissions/{bob_id}", token=TOKENS["bob"])
    check(s == 200 and b1["public"]["verdict"] == "correct" and b1["hidden"] == {"verdict": "fail", "class": "incorrect"}
          and not b1["standing"] and b1["standing_now"] is None,
          f"its public run was correct, its hidden verdict is fail (incorrect), it does not stand ({b1.get('hidden')})")
    check(not no_hidden(json.dumps(b1)), f"its view holds no hidden size or seed ({no_hidden(json.dumps(b1))})")

    s, c1, _ = call(base, "/v1/competition/submissions",
                    {"task": "swish", "code": source(SRC, "examples/swish/cpu/hack_background_thread.cpp"), "wait": True},
                    token=TOKENS["carol"])
    check(s == 200 and c1["verdict"] == "rejected" and c1["class"] == "background_thread" and c1["part"] == "public" and
          not c1["standing"], f"carol's hack is rejected: background_thread ({c1.get('verdict')}, {c1.get('class')})")

    rc, out, err = submit_cli(base, "bob", "rowsoftmax", "examples/rowsoftmax/cpu/correct.cpp")
    check(rc == 0 and "correct\n" in out and "hidden runs: pass" in out and "rank 1 of 1 on rowsoftmax" in out,
          f"bob's correct rowsoftmax by the CLI: verdict and rank printed (rc {rc}):\n{out}")
    rc, out, err = submit_cli(base, "carol", "rowsoftmax", "examples/rowsoftmax/cpu/off_by_one.cpp")
    check(rc == 0 and "incorrect on the public run" in out and "hidden runs: not_run" in out,
          f"carol's wrong rowsoftmax is incorrect on the public run, its message shown to her (rc {rc}):\n{out}")
    rc, out, err = submit_cli(base, "carol", "swish", "examples/swish/cpu/correct_joined_thread.cpp")
    check(rc == 0 and "correct\n" in out and "rank " in out, f"carol's correct swish ranks (rc {rc}):\n{out}")
    rc, out_json, err = submit_cli(base, "alice", "rowsoftmax", "examples/rowsoftmax/cpu/correct.cpp", "--json")
    try:
        a2 = json.loads(out_json)
    except ValueError:
        a2 = {}
    check(rc == 0 and a2.get("verdict") == "correct" and a2.get("standing_now", {}).get("of") == 2,
          f"cudal1 submit --json prints the server's JSON ({rc}, {a2.get('verdict')})")

    # ---- the board ---------------------------------------------------------------------------
    s, board, _ = call(base, "/v1/competition/board")
    swish = board["tasks"][0]["boards"]
    rows = swish[0]["entries"] if swish else []
    times = [e["time_ms"] for e in rows]
    check(s == 200 and len(swish) == 1 and [e["participant"] for e in rows] in (["alice", "carol"], ["carol", "alice"])
          and times == sorted(times) and [e["rank"] for e in rows] == [1, 2],
          f"swish's board: alice and carol ranked by public time; bob's and the hack absent ({[(e['participant'], e['time_ms']) for e in rows]})")
    soft = board["tasks"][1]["boards"][0]["entries"]
    check({e["participant"] for e in soft} == {"alice", "bob"}, "rowsoftmax's board: alice and bob")
    recent = {r["id"]: r for r in board["recent"]}
    check(recent[c1["id"]]["verdict"] == "rejected" and recent[c1["id"]]["class"] == "background_thread" and
          recent[bob_id]["hidden"] == {"verdict": "fail", "class": "incorrect"} and board["counts"]["rejected"] == 1,
          "the newest submissions list the rejected hack and the hidden failure as such")
    check(len(swish[0]["history"]) >= 1 and swish[0]["history"][-1]["id"] == rows[0]["id"],
          "the best time's history ends at the leader")
    check(not no_hidden(json.dumps(board)), "the board holds no hidden size or seed")

    # Another entrant's submission: the verdict and figures, not the code nor the messages.
    s, other, _ = call(base, f"/v1/competition/submissions/{a1['id']}", token=TOKENS["bob"])
    check(s == 200 and "code" not in other and "message" not in other["public"] and other["verdict"] == "correct",
          "bob sees alice's verdict and figures, not her code nor her judgment's messages")
    s, anon, _ = call(base, f"/v1/competition/submissions/{a1['id']}")
    check(s == 200 and "code" not in anon, "anyone sees a submission's verdict, without the code")
    s, mine, _ = call(base, "/v1/competition/submissions", token=TOKENS["carol"])
    check(s == 200 and mine["participant"] == "carol" and len(mine["submissions"]) == 3,
          f"carol lists her own three submissions ({len(mine.get('submissions', []))})")
    s, me, _ = call(base, "/v1/competition/me", token=TOKENS["alice"])
    check(s == 200 and me == {"participant": "alice"}, "GET /v1/competition/me names the token's entrant")

    # ---- the live events ---------------------------------------------------------------------------
    status, first = first_event(base, -1, 30)
    check(status == 200 and first is not None and first["version"] >= 1, "GET /v1/competition/events sends the board at once")
    got = {}
    t = threading.Thread(target=lambda: got.update(ev=first_event(base, first["version"], 120)))
    t.start()
    time.sleep(0.5)
    call(base, "/v1/competition/submissions", {"task": "swish", "code": "// again\n" + correct}, token=TOKENS["alice"])
    t.join()
    ev = got.get("ev", (0, None))[1]
    check(ev is not None and ev["version"] > first["version"] and ev["counts"]["submissions"] > first["counts"]["submissions"],
          "a new submission sends a new board to the live page")

    # ---- bad input: its status, and nothing stored -----------------------------------------------------
    before = stored(main_store)
    bad = [
        ("no token", dict(body={"task": "swish", "code": correct}), 401),
        ("a wrong token", dict(body={"task": "swish", "code": correct}, token="mallory"), 401),
        ("an empty bearer", dict(body={"task": "swish", "code": correct}, headers={"Authorization": "Bearer "}), 401),
        ("a token of another scheme", dict(body={"task": "swish", "code": correct},
                                           headers={"Authorization": "Basic " + TOKENS["alice"]}), 401),
        ("malformed JSON", dict(raw=b"{nope", token=TOKENS["alice"]), 400),
        ("not an object", dict(body=["swish"], token=TOKENS["alice"]), 400),
        ("no code", dict(body={"task": "swish"}, token=TOKENS["alice"]), 400),
        ("no task", dict(body={"code": correct}, token=TOKENS["alice"]), 400),
        ("a task of the wrong type", dict(body={"task": 5, "code": correct}, token=TOKENS["alice"]), 400),
        ("an unknown field", dict(body={"task": "swish", "code": correct, "seed": 1}, token=TOKENS["alice"]), 400),
        ("wait of the wrong type", dict(body={"task": "swish", "code": correct, "wait": "yes"}, token=TOKENS["alice"]), 400),
        ("an unknown task", dict(body={"task": "matmul", "code": correct}, token=TOKENS["alice"]), 404),
        ("oversize code", dict(body={"task": "swish", "code": correct + "//" + "x" * 20000}, token=TOKENS["alice"]), 413),
        ("a format of another backend", dict(body={"task": "swish", "code": correct, "format": "cuda"}, token=TOKENS["alice"]), 422),
        ("an unknown format", dict(body={"task": "swish", "code": correct, "format": "rust"}, token=TOKENS["alice"]), 400),
        ("text without code", dict(body={"task": "swish", "code": "I would write a kernel."}, token=TOKENS["alice"]), 422),
    ]
    for what, kw, want in bad:
        s, b, h = call(base, "/v1/competition/submissions", method="POST", **kw)
        msg = b.get("error", {}).get("message", "") if isinstance(b, dict) else str(b)
        extra = want != 401 or h.get("WWW-Authenticate") == "Bearer"
        check(s == want and msg and extra, f"{what}: {s} ({msg[:100]})")
    for path, want in (("/v1/competition/submissions/99999", 404), ("/v1/competition/submissions", 401),
                       ("/v1/competition/me", 401), ("/static/secret.txt", 404)):
        s, b, _ = call(base, path)
        check(s == want, f"GET {path}: {s}")
    s, b, _ = call(base, "/v1/judge", {"task": "swish", "code": correct})
    check(s == 404, f"the judging routes know none of the competition's tasks: POST /v1/judge {s}")
    check(stored(main_store) == before, f"none of them was stored ({stored(main_store)} rows, {before} before)")

    # The CLI's errors.
    rc, out, err = submit_cli(base, "mallory", "swish", "examples/swish/cpu/correct.cpp")
    check(rc == 1 and "refused (HTTP 401)" in err, f"submit with a wrong token: exit 1, the server's message ({err.strip()})")
    rc, out, err = submit_cli(base, "alice", "matmul", "examples/swish/cpu/correct.cpp")
    check(rc == 1 and "HTTP 404" in err and "swish, rowsoftmax" in err, f"submit to an unknown task: exit 1 ({err.strip()})")
    rc, out, err = submit_cli("http://127.0.0.1:9", "alice", "swish", "examples/swish/cpu/correct.cpp")
    check(rc == 2 and "cannot connect" in err, f"submit to no server: exit 2 ({err.strip()})")
    rc, out, err = submit_cli(base, "alice", "swish", "examples/swish/cpu/no_such.cpp")
    check(rc == 2 and "no_such.cpp" in err, f"submit a missing file: exit 2 ({err.strip()})")
    p = subprocess.run([CUDAL1, "submit", "--server", base, "--token-file", os.path.join(TMP, "none"), "--task", "swish",
                        os.path.join(SRC, "examples/swish/cpu/correct.cpp")], capture_output=True, text=True)
    check(p.returncode == 2 and "--token-file" in p.stderr, f"submit with a missing token file: exit 2 ({p.stderr.strip()})")
    p = subprocess.run([CUDAL1, "submit", "--server", base, os.path.join(SRC, "examples/swish/cpu/correct.cpp")],
                       capture_output=True, text=True, env=dict(os.environ, CUDAL1_TOKEN_FILE=""))
    check(p.returncode == 2 and "--token-file" in p.stderr, f"submit without a token: exit 2 ({p.stderr.strip()})")
    check(stored(main_store) == before, "the CLI's refused submissions stored nothing")

    # ---- restart: the same board, the submissions kept ---------------------------------------------------
    for _ in range(600):  # the live-event submission, judged
        if call(base, "/v1/competition/board")[1]["counts"]["submissions"] == stored(main_store) and \
           all(r["state"] in ("done", "failed") for r in call(base, "/v1/competition/board")[1]["recent"]):
            break
        time.sleep(0.2)
    s, m, _ = call(base, "/metrics")
    check('cudal1_competition_submissions{verdict="rejected"} 1' in m and
          'cudal1_competition_refused_total{status="401"}' in m, "/metrics counts submissions by verdict and refusals")
    board_before = call(base, "/v1/competition/board")[1]
    srv.stop()
    srv = start("main", comp, store=main_store)
    board_after = call(srv.base, "/v1/competition/board")[1]
    strip = lambda b: json.dumps([b["tasks"], b["counts"]], sort_keys=True)
    check(strip(board_after) == strip(board_before), "a restarted server has the same board")
    s, again, _ = call(srv.base, f"/v1/competition/submissions/{a1['id']}", token=TOKENS["alice"])
    check(s == 200 and again["code"] == correct and again["verdict"] == "correct", "and every submission with its code")
    srv.stop()

    # ---- the window and the limits -------------------------------------------------------------------------
    early = start("early", write_competition(TMP, SRC, name="early", start_s=3600, end_s=7200))
    s, b, _ = call(early.base, "/v1/competition/submissions", {"task": "swish", "code": correct}, token=TOKENS["alice"])
    check(s == 403 and "has not started" in b["error"]["message"], f"before the start: 403 ({b['error']['message']})")
    check(call(early.base, "/v1/competition")[1]["state"] == "before", "and the competition says so")
    late = start("late", write_competition(TMP, SRC, name="late", start_s=-7200, end_s=-60))
    s, b, _ = call(late.base, "/v1/competition/submissions", {"task": "swish", "code": correct}, token=TOKENS["alice"])
    check(s == 403 and "has ended" in b["error"]["message"], f"after the end: 403 ({b['error']['message']})")
    rc, out, err = submit_cli(late.base, "alice", "swish", "examples/swish/cpu/correct.cpp")
    check(rc == 1 and "has ended" in err, f"and the CLI says so (exit {rc})")
    check(stored(os.path.join(TMP, "early.sqlite")) == 0 and stored(os.path.join(TMP, "late.sqlite")) == 0,
          "nothing stored outside the window")

    limited = start("limited", write_competition(TMP, SRC, name="limited",
                                                 limits={"submissions": 2, "window_s": 600, "max_pending": 1}))
    quick = source(SRC, "examples/swish/cpu/compile_error.cpp")  # judged in its compile
    s1, b1, _ = call(limited.base, "/v1/competition/submissions", {"task": "swish", "code": quick}, token=TOKENS["bob"])
    s2, b2, h2 = call(limited.base, "/v1/competition/submissions", {"task": "swish", "code": quick}, token=TOKENS["bob"])
    check(s1 == 202 and s2 == 429 and int(h2.get("Retry-After", "0")) >= 1 and "waiting or being judged" in b2["error"]["message"],
          f"a second submission while the first waits: 429 with Retry-After ({s1}, {s2}, {h2.get('Retry-After')})")
    s, b, _ = call(limited.base, "/v1/competition/submissions", {"task": "swish", "code": quick}, token=TOKENS["carol"])
    check(s == 202, "another entrant is not held back by it")
    for _ in range(600):
        if call(limited.base, f"/v1/competition/submissions/{b1['id']}")[1]["state"] in ("done", "failed"):
            break
        time.sleep(0.1)
    s3, b3, _ = call(limited.base, "/v1/competition/submissions", {"task": "swish", "code": quick, "wait": True},
                     token=TOKENS["bob"])
    s4, b4, h4 = call(limited.base, "/v1/competition/submissions", {"task": "swish", "code": quick}, token=TOKENS["bob"])
    retry = int(h4.get("Retry-After", "0"))
    check(s3 == 200 and b3["verdict"] == "compile_error" and s4 == 429 and 500 <= retry <= 600 and
          "in the last" in b4["error"]["message"],
          f"a third in the rate window: 429 with Retry-After until the first leaves it ({s3}, {s4}, {retry} s)")
    check(stored(os.path.join(TMP, "limited.sqlite")) == 3, "only the accepted ones were stored")

    # ---- a bad competition file, and no token in any log -----------------------------------------------
    badfile = os.path.join(TMP, "bad.json")
    with open(comp) as f:
        c = json.load(f)
    c["participants"][1] = {"name": "bob", "token": TOKENS["bob"]}
    with open(badfile, "w") as f:
        json.dump(c, f)
    p = subprocess.run([CUDAL1, "serve", "--competition", badfile, "--port", "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "not written in plain text" in p.stderr and TOKENS["bob"] not in p.stderr,
          f"a competition file with a plain token: exit 2 ({p.stderr.strip()[:140]})")
    p = subprocess.run([CUDAL1, "serve", "--competition", comp, "--tasks", SRC + "/suites/level1"], capture_output=True, text=True)
    check(p.returncode == 2 and "leave out --tasks" in p.stderr, "--competition with --tasks: exit 2")
    for s in servers:
        s.stop()
    logs = "".join(open(s.log_path).read() for s in servers)
    check(all(t not in logs for t in TOKENS.values()) and "competition submission" in logs,
          "the servers' logs name entrants, never their tokens")


try:
    main()
finally:
    for s in servers:
        s.stop()
    if check.failures:
        for name in sorted(os.listdir(TMP)):
            if name.endswith(".log"):
                print(f"--- {name}\n" + open(os.path.join(TMP, name)).read()[-3000:])
    shutil.rmtree(TMP, ignore_errors=True)
print(f"{len(check.failures)} failed" if check.failures else "all passed")
sys.exit(1 if check.failures else 0)
