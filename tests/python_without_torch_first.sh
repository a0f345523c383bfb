#!/usr/bin/env bash
# With the fork servers off, a python3 without torch first on PATH is passed
# over for the next interpreter, for the reference and a ModelNew's worker
# alike (the worker used to start with the first one and fail every time).
# Usage: python_without_torch_first.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A Python without its site-packages: no torch there.
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$tmp/python3"
chmod +x "$tmp/python3"
unset CUDAL1_PYTHON || true
out=$(PATH="$tmp:$PATH" CUDAL1_REF_SERVER=0 "$cudal1" eval "$swish/task.py" "$swish/cpu/modelnew_correct.py" --backend cpu \
  --time-budget 0.5 --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q)
python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print(j["verdict"], j["python"], j["candidate_start"]); sys.exit(j["verdict"] != "correct" or j["python"].startswith(sys.argv[1]))' "$tmp" <<<"$out" \
  || { echo "FAIL"; exit 1; }
echo PASS
