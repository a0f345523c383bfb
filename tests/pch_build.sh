#!/usr/bin/env bash
# A ModelNew's load_inline build uses the precompiled <torch/extension.h>
# once it is made, and what it builds is still correct: make the -O3 variant
# (the example's extra_cflags) in a private temporary folder, then judge the
# example with an empty compile cache. The compile check must name the
# precompiled header and the verdict must be correct; the build process is
# forked by the candidate server, or, with --no-ref-server, started afresh.
# Usage: pch_build.sh CUDAL1 PYTHON SWISH_EXAMPLE_DIR DATA_DIR
set -euo pipefail
cudal1=$1
python=$2
swish=$3
data=$4
tmp=$(mktemp -d)
chmod 755 "$tmp"  # the build's unprivileged user reaches its folder under it
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp  # the header's folder: TMPDIR/cudal1-pch-UID/HASH
export CUDAL1_PCH=1
hash=$(printf '%s' "$python" | sha256sum | cut -c1-16)
base=$tmp/cudal1-pch-$(id -u)/$hash
mkdir -p -m 755 "$tmp/cudal1-pch-$(id -u)" "$base"
start=$(date +%s)
"$python" -u "$data/python/cudal1_candidate.py" --make-pch "$base" --pch-flags=-O3 || { echo "FAIL: --make-pch"; exit 1; }
echo "made $base/O3 in $(( $(date +%s) - start )) s"
[ -f "$base/O3/torch/extension.h.gch" ] || { echo "FAIL: no header made"; exit 1; }
out=$("$cudal1" eval "$swish/task.py" "$swish/cpu/modelnew_inline.py" --backend cpu --python "$python" --time-budget 0.5 \
  --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q)
verdict=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["verdict"])' <<<"$out")
reason=$(python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print([c["reason"] for c in j["checks"] if c["name"]=="compile"][0])' <<<"$out")
echo "verdict $verdict; compile: $reason"
[ "$verdict" = correct ] || { echo "FAIL: verdict $verdict: $(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline()).get("message", ""))' <<<"$out")"; exit 1; }
grep -q "precompiled <torch/extension.h> (O3)" <<<"$reason" || { echo "FAIL: the build did not use the header"; exit 1; }
# The build process was forked by the candidate server (torch imported
# there once); with the servers off it is started afresh, and builds the same.
grep -q "forked by the candidate server" <<<"$reason" || { echo "FAIL: the build was not forked by the candidate server"; exit 1; }
out=$("$cudal1" eval "$swish/task.py" "$swish/cpu/modelnew_inline.py" --backend cpu --python "$python" --time-budget 0.5 \
  --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache-own" --json -q --no-ref-server)
verdict=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["verdict"])' <<<"$out")
reason=$(python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print([c["reason"] for c in j["checks"] if c["name"]=="compile"][0])' <<<"$out")
echo "--no-ref-server: verdict $verdict; compile: $reason"
[ "$verdict" = correct ] || { echo "FAIL: verdict $verdict with --no-ref-server"; exit 1; }
grep -q "forked by" <<<"$reason" && { echo "FAIL: --no-ref-server, and the build was forked"; exit 1; }
grep -q "precompiled <torch/extension.h> (O3)" <<<"$reason" || { echo "FAIL: the build started afresh did not use the header"; exit 1; }
# A forked build that ends before it reaches the candidate (here made to, by
# the judge's fault injection) is started afresh once, and builds the same.
out=$(CUDAL1_FAULT_INJECT=forked-build-dies "$cudal1" eval "$swish/task.py" "$swish/cpu/modelnew_inline.py" --backend cpu \
  --python "$python" --time-budget 0.5 --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache-retry" --json -q)
verdict=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["verdict"])' <<<"$out")
reason=$(python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print([c["reason"] for c in j["checks"] if c["name"]=="compile"][0])' <<<"$out")
echo "a forked build that died: verdict $verdict; compile: $reason"
[ "$verdict" = correct ] || { echo "FAIL: verdict $verdict after a forked build died"; exit 1; }
grep -q "started afresh: the candidate server's fork ended before it reached the candidate" <<<"$reason" ||
  { echo "FAIL: the build's retry was not said"; exit 1; }
grep -q "forked by" <<<"$reason" && { echo "FAIL: the retried build says it was forked"; exit 1; }
echo "PASS"
