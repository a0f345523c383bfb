"""What the competition's end-to-end tests share (competition_e2e.py,
competition_browser.py): a competition of two CPU tasks (examples/swish and
examples/rowsoftmax, each with hidden sizes and seeds) and three entrants,
written for a window around now; a `cudal1 serve --competition` started on a
free port; JSON calls with a bearer token; one pass/fail line per check.
"""
import datetime
import hashlib
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request

TOKENS = {"alice": "alice-7f3c2d1e", "bob": "bob-91ab44c0", "carol": "carol-5d2e8f19"}
# The hidden runs' sizes and seeds: no entrant-visible answer may hold them.
HIDDEN_MARKS = ["1531", "1777", "913377", "424243", "5550123", "cudal1_hidden"]


def hidden_marks_in(text):
    """The hidden sizes and seeds `text` holds, as whole numbers (not digits
    of a timing or a timestamp), and the hidden profiles' names."""
    found = []
    for m in HIDDEN_MARKS:
        pattern = re.escape(m) if not m.isdigit() else r"(?<![\d.])" + m + r"(?![\d.])"
        if re.search(pattern, text):
            found.append(m)
    return found
JUDGE = ["--time-budget", "0.3", "--timeout", "3", "--recheck-above", "0", "--recheck-above-best", "0"]


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond:
            self.failures.append(what)
        return cond


def utc(delta_s):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_s)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_competition(tmp, src, name="cpu-cup", start_s=-3600, end_s=3600, limits=None):
    """The competition file (alice's and carol's tokens in files, bob's as a hash)."""
    for who in ("alice", "carol"):
        with open(os.path.join(tmp, who + ".token"), "w") as f:
            f.write(TOKENS[who] + "\n")
    c = {
        "name": name,
        "description": "Two CPU tasks, three entrants: the competition's end-to-end test.",
        "backend": "cpu",
        "start": utc(start_s),
        "end": utc(end_s),
        "ranking": "time",
        "tasks": [
            {"file": os.path.join(src, "examples/swish/task.py"), "public_profile": "cpu",
             "hidden": [{"sizes": {"batch_size": 311, "dim": 1531}, "seed": 913377},
                        {"profile": "cpu", "seed": 5550123}]},
            {"file": os.path.join(src, "examples/rowsoftmax/task.py"), "public_profile": "cpu",
             "hidden": [{"sizes": {"batch_size": 157, "dim": 1777}, "seed": 424243}]},
        ],
        "participants": [
            {"name": "alice", "token_file": "alice.token"},
            {"name": "bob", "token_sha256": hashlib.sha256(TOKENS["bob"].encode()).hexdigest()},
            {"name": "carol", "token_file": "carol.token"},
        ],
        "limits": limits or {"max_code_bytes": 20000, "submissions": 30, "window_s": 600, "max_pending": 3},
    }
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(c, f, indent=2)
    return path


class Server:
    """A `cudal1 serve --competition` on a free port; stop() ends it."""

    def __init__(self, cudal1, tmp, name, competition, store=None, extra=()):
        self.log_path = os.path.join(tmp, name + ".log")
        port_file = os.path.join(tmp, name + ".port")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [cudal1, "serve", "--competition", competition, "--port", "0", "--port-file", port_file,
             "--store", os.path.join(tmp, name + "-results.sqlite"),
             "--competition-store", store or os.path.join(tmp, name + ".sqlite"),
             "--cache-dir", os.path.join(tmp, "cache"), *JUDGE, *extra],
            stderr=self.log)
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                self.base = f"http://127.0.0.1:{open(port_file).read().strip()}"
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit(f"cudal1 serve --competition did not start: {open(self.log_path).read()}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def call(base, path, body=None, raw=None, token=None, method=None, headers=None, timeout=600):
    """(status, JSON body or text, headers)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = {"Content-Type": "application/json"}
    if token:
        h["Authorization"] = "Bearer " + token
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data, headers=h, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read().decode()
            return r.status, (json.loads(text) if r.headers.get_content_type() == "application/json" else text), r.headers
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        try:
            return e.code, json.loads(text), e.headers
        except ValueError:
            return e.code, text, e.headers


def source(src, rel):
    with open(os.path.join(src, rel)) as f:
        return f.read()
