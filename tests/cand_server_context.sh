#!/usr/bin/env bash
# A forked ModelNew worker gets its judge's context, not the context of the
# judge that happened to start the candidate server: the servers are started
# by a judge holding descriptors 1500 (a secret, read) and 1501 (a file,
# append), at nice 15 with a 16 MiB stack; a later judge at its own nice and
# stack judges a probe that reports its open descriptors, nice and stack
# (attack review, 2026-12-03: descriptors above 1023 reached every worker).
# Usage: cand_server_context.sh CUDAL1 PYTHON SWISH_EXAMPLE_DIR PROBE
set -euo pipefail
cudal1=$1
python=$2
swish=$3
probe=$4
tmp=$(mktemp -d)
export XDG_RUNTIME_DIR=$tmp/run CUDAL1_REF_SERVER=1 CUDAL1_REF_SERVER_IDLE=120
mkdir -m 700 "$XDG_RUNTIME_DIR"
cleanup() {
  for pidfile in "$XDG_RUNTIME_DIR"/cudal1/*.pid; do
    [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
echo "judge-only secret" >"$tmp/secret"
: >"$tmp/store"
flags=(--backend cpu --python "$python" --time-budget 0.5 --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q)

# The servers start here, from a judge with the odd context.
(
  exec 1500<"$tmp/secret" 1501>>"$tmp/store"
  ulimit -s 16384
  exec nice -n 15 "$cudal1" eval "$swish/task.py" "$swish/cpu/modelnew_correct.py" "${flags[@]}"
) >"$tmp/first.json"
grep -q '"candidate_start":"forked"' "$tmp/first.json" || { echo "FAIL: the first judgment was not forked"; cat "$tmp/first.json"; exit 1; }

out=$("$cudal1" eval "$swish/task.py" "$probe" "${flags[@]}")
grep -q '"candidate_start":"forked"' <<<"$out" || { echo "FAIL: the probe's worker was not forked"; exit 1; }
context=$(python3 -c 'import json,sys,re; m=json.loads(sys.stdin.readline())["message"]; print(re.search(r"CONTEXT (.*?) END", m).group(1))' <<<"$out")
echo "forked worker: $context; this judge: nice $(nice), stack $(( $(ulimit -s) * 1024 ))"
python3 - "$context" "$(nice)" "$(ulimit -s)" <<'PY'
import json, sys
c, nice, stack_kb = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
stack = -1 if stack_kb == "unlimited" else int(stack_kb) * 1024
problems = []
if c["fds"]:
    problems.append(f"descriptors reached the worker: {c['fds']}")
if c["nice"] != nice:
    problems.append(f"the worker's nice is {c['nice']}, its judge's {nice}")
if c["stack"] != stack:
    problems.append(f"the worker's stack limit is {c['stack']}, its judge's {stack}")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY
[ ! -s "$tmp/store" ] || { echo "FAIL: the worker wrote to the judge's file"; exit 1; }
echo "PASS"
