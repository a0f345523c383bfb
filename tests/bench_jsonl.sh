#!/usr/bin/env bash
# cudal1 bench --jsonl on CUDA-L1's release format: each line's ModelNew is
# re-judged beside its published score, a null custom_code times the reference
# alone, `cudal1 compare RUN published` sets the two side by side, the report's
# HTML draws the published-against-re-judged chart, and a bad line is a clear error.
# Usage: bench_jsonl.sh CUDAL1 SOURCE_DIR
set -euo pipefail
cudal1=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
store=$tmp/store.sqlite
"$cudal1" bench --jsonl "$src/tests/fixtures/cuda-l1/sample.jsonl" --store "$store" --backend cpu --time-budget 0.3 \
  --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --run l1 > "$tmp/bench.out" 2>&1 ||
  fail "bench --jsonl: $(cat "$tmp/bench.out")"
grep -q "level1/19  candidate-.*\.py  correct" "$tmp/bench.out" || fail "the ReLU rewrite: $(cat "$tmp/bench.out")"
grep -q "level2/12  candidate-.*\.py  incorrect" "$tmp/bench.out" || fail "the rewrite without its scale: $(cat "$tmp/bench.out")"
grep -q "level1/23  reference" "$tmp/bench.out" || fail "the line without custom code: $(cat "$tmp/bench.out")"

"$cudal1" compare l1 published --store "$store" --json > "$tmp/compare.json" || fail "compare failed"
python3 - "$tmp/compare.json" <<'PY' || fail "compare: $(cat "$tmp/compare.json")"
import json, sys
c = json.load(open(sys.argv[1]))
t = {r["task"]: r for r in c["tasks"]}
assert t["level1/19"]["b"] == 1.31 and t["level1/19"]["a"] > 0, t["level1/19"]
assert t["level2/12"]["b"] == 12.7 and t["level2/12"]["a"] is None, t["level2/12"]  # published, not correct here
PY

"$cudal1" report l1 --store "$store" --html "$tmp/report.html" 2> /dev/null
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --no-first-run --user-data-dir="$tmp/profile" --dump-dom "file://$tmp/report.html" > "$tmp/dom.html" 2> /dev/null
  grep -q 'data-charts="5"' "$tmp/dom.html" || fail "the report drew $(grep -o 'data-charts="[0-9]*"' "$tmp/dom.html" || echo no) charts, not 5"
fi

printf '{"level_id": 1}\n' > "$tmp/bad.jsonl"
if "$cudal1" bench --jsonl "$tmp/bad.jsonl" --store "$store" --backend cpu > "$tmp/bad.out" 2>&1; then fail "a bad line was accepted"; fi
grep -q "bad.jsonl:1: no ref_code" "$tmp/bad.out" || fail "bad line: $(cat "$tmp/bad.out")"
echo "bench --jsonl: re-judged beside the published scores (correct, incorrect, reference alone); compare and the report follow"
