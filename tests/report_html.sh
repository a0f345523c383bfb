#!/usr/bin/env bash
# The HTML report in a real browser: a small bench run into a fresh store,
# `cudal1 report --html`, then headless Chromium renders the page; its DOM must
# hold the drawn charts and both tables, and a screenshot is kept beside the
# build (test-artifacts/report.png).
# Usage: report_html.sh CUDAL1 SOURCE_DIR ARTIFACT_DIR
set -euo pipefail
cudal1=$1
src=$2
artifacts=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || fail "no chromium (scripts/install-deps.sh installs it)"

mkdir -p "$tmp/cands"
cp "$src"/tests/fixtures/bench/candidates/scale.cpp "$src"/tests/fixtures/bench/candidates/scale.1.cpp "$tmp/cands/"
cp "$src"/examples/swish/cpu/correct.cpp "$tmp/cands/task.cpp"
"$cudal1" bench "$src/tests/fixtures/suite" "$src/examples/swish/task.py" "$src/examples/rowsoftmax/task.py" \
  --candidates "$tmp/cands" --store "$tmp/store.sqlite" --backend cpu --time-budget 0.3 --recheck-above 0 \
  --recheck-above-best 0 --cache-dir "$tmp/cache" -q > "$tmp/bench.out" 2>&1 || fail "bench: $(cat "$tmp/bench.out")"
"$cudal1" report --store "$tmp/store.sqlite" --html "$tmp/report.html" 2> /dev/null || fail "report --html failed"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile" --window-size=1280,2400)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/report.html" > "$tmp/dom.html" 2> "$tmp/chromium.log" ||
  fail "chromium could not render the page: $(tail -5 "$tmp/chromium.log")"
grep -q 'data-charts="4"' "$tmp/dom.html" || fail "the page drew $(grep -o 'data-charts="[0-9]*"' "$tmp/dom.html" || echo no) charts, not 4"
for want in '<td class="text">all</td>' '<td class="text">suite</td>' 'data-verdict="correct"' 'data-verdict="incorrect"' \
            'data-verdict="reference"' '(reference alone)'; do
  grep -qF "$want" "$tmp/dom.html" || fail "the rendered page lacks $want"
done
[ "$(grep -o 'data-verdict=' "$tmp/dom.html" | wc -l)" -eq 4 ] || fail "the judgments table has $(grep -o 'data-verdict=' "$tmp/dom.html" | wc -l) rows, not 4"
mkdir -p "$artifacts"
timeout 120 "$browser" "${flags[@]}" --screenshot="$artifacts/report.png" "file://$tmp/report.html" 2>> "$tmp/chromium.log" ||
  fail "no screenshot: $(tail -5 "$tmp/chromium.log")"
[ -s "$artifacts/report.png" ] || fail "empty screenshot"
echo "the report renders in Chromium: 4 charts, the summary and 4 judgments; screenshot $artifacts/report.png"
