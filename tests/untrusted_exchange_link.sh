#!/usr/bin/env bash
# An untrusted task's reference swaps its exchange file for a link to a
# root-only file (tests/fixtures/tasks/exchange_link.py); the candidate's
# worker, still root when it maps the exchange, must not write through it.
# Native and ModelNew workers; the file must come out unchanged.
# Usage: untrusted_exchange_link.sh CUDAL1 SOURCE_DIR
set -euo pipefail
cudal1=$1
src=$2
victim=/tmp/cudal1-exchange-link-victim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$victim"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -f "$victim"
head -c 64M /dev/urandom > "$victim"
chmod 600 "$victim"
before=$(sha256sum "$victim" | cut -d' ' -f1)
for cand in "$src/examples/swish/cpu/correct.cpp" "$src/examples/swish/cpu/modelnew_correct.py"; do
  "$cudal1" eval --backend cpu --untrusted-task --json --cache-dir "$tmp/cache" --time-budget 0.3 \
    "$src/tests/fixtures/tasks/exchange_link.py" "$cand" > "$tmp/out.json" 2> "$tmp/err.txt" || true
  verdict=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['verdict'])" "$tmp/out.json" 2>/dev/null || echo none)
  [ "$verdict" != "correct" ] || fail "$(basename "$cand"): judged correct through a swapped exchange"
  after=$(sha256sum "$victim" | cut -d' ' -f1)
  [ "$after" = "$before" ] || fail "$(basename "$cand"): the worker wrote a file outside the sandbox through the link"
  grep -q "symbolic links\|not the reference's file" "$tmp/out.json" "$tmp/err.txt" ||
    fail "$(basename "$cand"): no word of the refused exchange: $(tail -c 400 "$tmp/out.json") $(tail -3 "$tmp/err.txt")"
  echo "$(basename "$cand"): $verdict, the file outside unchanged, the link refused"
done
