#!/usr/bin/env bash
# cudal1 bench loses nothing to a kill: a run killed (SIGKILL) after its first
# stored judgment resumes with the same command, judging only what is left;
# Ctrl-C (SIGINT) finishes the judgment in flight, stores it and exits 130.
# Usage: bench_resume.sh CUDAL1 SOURCE_DIR
set -euo pipefail
cudal1=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
store=$tmp/store.sqlite
# Four items: two samples of the one-task suite, rowsoftmax's correct.cpp, swish timed alone.
mkdir -p "$tmp/cands"
cp "$src"/tests/fixtures/bench/candidates/scale.cpp "$src"/tests/fixtures/bench/candidates/scale.1.cpp "$tmp/cands/"
cp "$src"/examples/rowsoftmax/cpu/correct.cpp "$tmp/cands/task.cpp"
bench=("$cudal1" bench "$src/tests/fixtures/suite" "$src/examples/rowsoftmax/task.py" "$src/examples/swish/task.py"
       --candidates "$tmp/cands" --store "$store" --backend cpu --time-budget 0.3 --recheck-above 0 --recheck-above-best 0
       --cache-dir "$tmp/cache")
count() {
  python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from judgments").fetchone()[0])' "$store" 2>/dev/null || echo 0
}

"${bench[@]}" > "$tmp/first.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(count)" -ge 1 ] && break; sleep 0.1; done
kill -KILL $pid
wait $pid 2>/dev/null || true
stored=$(count)
[ "$stored" -ge 1 ] && [ "$stored" -lt 4 ] || fail "after the kill the store holds $stored judgments (wanted 1 to 3)"

"${bench[@]}" > "$tmp/second.out" 2>&1 || fail "the resumed run failed: $(cat "$tmp/second.out")"
grep -q "$stored items were already in the run (resumed)" "$tmp/second.out" || fail "the second run did not resume: $(cat "$tmp/second.out")"
[ "$(count)" -eq 4 ] || fail "after resuming the store holds $(count) judgments, not 4"
grep -Eq "^all +3 +2 " "$tmp/second.out" || fail "summary: $(cat "$tmp/second.out")"

# Ctrl-C: the judgment in flight is finished and stored, the exit status is 130.
rm -f "$store"*
"${bench[@]}" > "$tmp/third.out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q '^\[1/4\]' "$tmp/third.out" && break; sleep 0.1; done
kill -INT $pid
set +e
wait $pid
code=$?
set -e
[ $code -eq 130 ] || fail "after SIGINT the exit status was $code: $(cat "$tmp/third.out")"
grep -q "interrupted: .* the same command resumes it" "$tmp/third.out" || fail "no interruption notice: $(cat "$tmp/third.out")"
[ "$(count)" -ge 2 ] || fail "the judgment in flight at SIGINT was not stored ($(count) stored)"
echo "bench resumes: $stored stored before a kill, 4 after resuming; SIGINT stored $(count) and exited 130"
