#!/usr/bin/env bash
# A CPU ModelNew's outputs reach the judge one of two ways: read from the
# stopped worker by the reference's process (collect_from: no work of the
# worker's after its window), or, where that process may not read another's
# memory (decided before the candidate loads; here made so by the judge-side
# fault injection CUDAL1_FAULT_INJECT=no-process-read), copied by the
# worker's collect request. An honest ModelNew is correct either way, and
# the judgment's requests say which ran.
# Usage: collect_paths.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
judge() {  # prints: verdict, then the request kinds
  "$cudal1" eval --json "$swish/task.py" "$swish/cpu/modelnew_correct.py" --backend cpu --time-budget 0.5 \
    --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" -q |
    python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["verdict"], " ".join(sorted(j["requests_ms"])))'
}
got=$(judge)
echo "read from the worker: $got"
[[ $got == "correct "* ]] || { echo "FAIL: $got"; exit 1; }
[[ $got == *collect_from* && $got != *" collect "* ]] || { echo "FAIL: the outputs were not read from the worker"; exit 1; }
got=$(CUDAL1_FAULT_INJECT=no-process-read judge)
echo "where that may not be: $got"
[[ $got == "correct "* ]] || { echo "FAIL: $got"; exit 1; }
[[ $got == *" collect "* ]] || { echo "FAIL: the worker's collect did not run"; exit 1; }
echo PASS
