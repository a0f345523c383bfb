#!/usr/bin/env bash
# A ModelNew build's cache entry holds what a run loads, nothing else: the
# manifest and the libraries it names. The candidate's import runs in the
# build and may write anything into its folder (an attack review,
# 2026-12-07: 500 MB and 20,000 files kept in the cache, again for every
# changed comment).
# Usage: build_cache_kept.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  cat <<'PY'
import os
for i in range(50):
    with open(f"junk-{i}.bin", "wb") as f:
        f.write(b"x" * (1 << 20))
PY
  cat "$swish/cpu/modelnew_inline.py"
} > "$tmp/candidate.py"
verdict=$("$cudal1" eval --json "$swish/task.py" "$tmp/candidate.py" --backend cpu --time-budget 0.5 --cache-dir "$tmp/cache" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"])')
[ "$verdict" = correct ] || { echo "FAIL: the candidate was $verdict"; exit 1; }
entries=("$tmp"/cache/modelnew/*/)
[ "${#entries[@]}" = 1 ] || { echo "FAIL: ${#entries[@]} cache entries"; exit 1; }
kept=$(cd "${entries[0]}" && find . -type f | sort | tr '\n' ' ')
case "$kept" in
  "./ext/"*".so ./manifest.json ") ;;
  *) echo "FAIL: the cache entry holds: $kept"; exit 1 ;;
esac
size=$(du -sm "${entries[0]}" | cut -f1)
[ "$size" -lt 40 ] || { echo "FAIL: the cache entry takes $size MB"; exit 1; }
# Judged again from the cache: the entry is enough to run.
again=$("$cudal1" eval --json "$swish/task.py" "$tmp/candidate.py" --backend cpu --time-budget 0.5 --cache-dir "$tmp/cache" |
  python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["verdict"], j["compile"]["cached"])')
[ "$again" = "correct True" ] || { echo "FAIL: judged from the cache: $again"; exit 1; }
echo "the cache entry holds $kept($size MB); judged again from it: $again"
