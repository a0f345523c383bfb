"""Rewards from a `cudal1 serve` server, for the trainers that take a Python
reward function (standard library only: it runs in any trainer's env).

verl (custom_reward_function.path = .../cudal1_reward.py, name = compute_score):

    compute_score(data_source, solution_str, ground_truth, extra_info=None)
        -> {"score": reward, "verdict": ..., "speedup": ...}

    The task is extra_info["task"] when given, else ground_truth (a task name
    of the server, e.g. "level1/softmax"). solution_str is the model's whole
    answer: the server takes its code block.

TRL (GRPOTrainer(reward_funcs=[cudal1_reward.trl_reward], ...)):

    trl_reward(completions, task, **kwargs) -> [reward, ...]

    `task` is the dataset's column naming each prompt's task; completions are
    strings or chat messages ([{"role": "assistant", "content": ...}]). The
    completions go to the server as one batch (compiled in parallel).

Settings (environment): CUDAL1_SERVER (default http://127.0.0.1:8000),
CUDAL1_TOKEN (a bearer token, when the server wants one), CUDAL1_REWARD
(cuda_l1, kevin or kernelgym; default: the server's), CUDAL1_FORMAT (cuda,
cpp or modelnew; default: what the code is), CUDAL1_TIMEOUT (seconds,
default 3600). A refused request raises RuntimeError with the server's
message; a full queue (429) is retried after its Retry-After.
"""
import json
import os
import time
import urllib.error
import urllib.request


def _post(path, body):
    base = os.environ.get("CUDAL1_SERVER", "http://127.0.0.1:8000").rstrip("/")
    headers = {"Content-Type": "application/json"}
    if os.environ.get("CUDAL1_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["CUDAL1_TOKEN"]
    timeout = float(os.environ.get("CUDAL1_TIMEOUT", "3600"))
    data = json.dumps(body).encode()
    for attempt in range(20):
        req = urllib.request.Request(base + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            if e.code == 429 and attempt < 19:
                time.sleep(float(e.headers.get("Retry-After", "1")))
                continue
            try:
                message = json.loads(text)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = text[:500]
            raise RuntimeError(f"cudal1 serve refused {path} ({e.code}): {message}") from None
    raise RuntimeError(f"cudal1 serve: the queue stayed full for {path}")


def _request(task, text):
    body = {"task": task, "code": text}
    if os.environ.get("CUDAL1_REWARD"):
        body["reward"] = os.environ["CUDAL1_REWARD"]
    if os.environ.get("CUDAL1_FORMAT"):
        body["format"] = os.environ["CUDAL1_FORMAT"]
    return body


def _text(completion):
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    return str(completion)


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """verl's reward function: one answer, its score and what the judge saw."""
    task = (extra_info or {}).get("task") or ground_truth
    r = _post("/v1/judge", _request(task, solution_str))
    return {"score": float(r.get("reward", 0.0)), "verdict": r.get("verdict", ""),
            "speedup": r.get("speedup") if r.get("speedup") is not None else 0.0}


def trl_reward(completions, task=None, **kwargs):
    """TRL's reward function: one reward per completion, judged as one batch."""
    tasks = task if isinstance(task, list) else [task] * len(completions)
    if any(t is None for t in tasks):
        raise ValueError("trl_reward needs the dataset's 'task' column (each prompt's task name)")
    out = _post("/v1/judge/batch", {"requests": [_request(t, _text(c)) for t, c in zip(tasks, completions)]})
    return [float(r.get("reward", 0.0)) for r in out["results"]]
