#!/usr/bin/env python3
"""Validates `cudal1 export` files against the fields src/optimize/training_data.h
documents. Usage: check_training_data.py STAGE FILE [--min-rows N] [--never HASH...]
(HASHes: candidates that must appear nowhere, e.g. a rejected hack)."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("stage", type=int)
ap.add_argument("file")
ap.add_argument("--min-rows", type=int, default=1)
ap.add_argument("--never", nargs="*", default=[])
a = ap.parse_args()
COMMON = {"stage": int, "task": str, "task_hash": str, "format": str, "prompt": list}
SUPERVISED = {"messages": list, "completion": list, "candidate_hash": str, "verdict": str, "device": str,
              "judge_version": str}
RL = {"exemplars": list, "answers": list, "run": str, "round": int}
problems, seen = [], set()
rows = [json.loads(line) for line in open(a.file) if line.strip()]
for n, r in enumerate(rows, 1):
    want = dict(COMMON, **(SUPERVISED if a.stage in (1, 2) else RL))
    for k, t in want.items():
        if not isinstance(r.get(k), t):
            problems.append(f"row {n}: {k} is {type(r.get(k)).__name__}, not {t.__name__}")
    if r.get("stage") != a.stage:
        problems.append(f"row {n}: stage {r.get('stage')}")
    if r.get("format") not in ("cuda", "cpp", "modelnew"):
        problems.append(f"row {n}: format {r.get('format')!r}")
    roles = [m.get("role") for m in r.get("prompt", [])]
    if roles != ["system", "user"] or not all(m.get("content") for m in r["prompt"]):
        problems.append(f"row {n}: prompt roles {roles}")
    if a.stage in (1, 2):
        if [m.get("role") for m in r.get("messages", [])] != ["system", "user", "assistant"]:
            problems.append(f"row {n}: messages are not system, user, assistant")
        if r.get("verdict") != "correct":
            problems.append(f"row {n}: verdict {r.get('verdict')}")
        if r.get("candidate_hash") in seen:
            problems.append(f"row {n}: candidate {r['candidate_hash'][:12]} written twice")
        seen.add(r.get("candidate_hash"))
        if "```" not in r["messages"][-1]["content"]:
            problems.append(f"row {n}: the answer has no code block")
    else:
        for e in r.get("answers", []):
            for k in ("verdict", "reward", "group_reward", "candidate_hash"):
                if k not in e:
                    problems.append(f"row {n}: an answer lacks {k}")
            if e.get("verdict") != "correct" and e.get("candidate_hash") is not None:
                problems.append(f"row {n}: a {e.get('verdict')} answer's candidate is named")
    text = json.dumps(r)
    for h in a.never:
        if h and h in text:
            problems.append(f"row {n}: the candidate {h[:12]} (must never appear) is in it")
if len(rows) < a.min_rows:
    problems.append(f"{len(rows)} rows, wanted at least {a.min_rows}")
for p in problems[:20]:
    print("FAIL", p)
print(f"stage {a.stage}: {len(rows)} rows, {len(problems)} problems")
sys.exit(1 if problems else 0)
