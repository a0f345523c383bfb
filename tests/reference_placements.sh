#!/usr/bin/env bash
# --reference-replace-every N: the reference's working memory is placed
# afresh every N of its runs, and the judgment says how many placements its
# runs saw; without the option, one. Both judgments must stay correct (the
# untimed forward of a new placement never reaches a measurement or a
# check), and the count must follow the runs (about one per N of them).
# Usage: reference_placements.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print(j.get(sys.argv[1]))' "$1"; }
judge() {
  "$cudal1" eval "$swish/task.py" "$swish/cpu/correct.cpp" --backend cpu --time-budget 0.5 --recheck-above 0 \
    --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q "$@"
}
plain=$(judge)
moved=$(judge --reference-replace-every 5)
for out in "$plain" "$moved"; do
  [ "$(field verdict <<<"$out")" = correct ] || { echo "FAIL: verdict $(field verdict <<<"$out"): $(field message <<<"$out")"; exit 1; }
done
p0=$(field reference_placements <<<"$plain")
p1=$(field reference_placements <<<"$moved")
runs=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["requests_ms"]["reference_run"]["count"])' <<<"$moved")
echo "placements: $p0 without the option; $p1 with --reference-replace-every 5 over $runs timed reference runs"
[ "$p0" = 1 ] || { echo "FAIL: without the option the reference moved ($p0 placements)"; exit 1; }
# The timed calls' runs and the probes' (18 of them) count: at least one
# placement per 5 timed runs.
[ "$p1" -ge $(( runs / 5 )) ] && [ "$p1" -ge 3 ] || { echo "FAIL: $p1 placements for $runs runs"; exit 1; }
echo "PASS"
