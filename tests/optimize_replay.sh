#!/usr/bin/env bash
# cudal1 optimize end to end on the CPU against the replay LLM server:
#  - three rounds on swish: a slow correct kernel, then a faster one that
#    becomes the best; a hacked answer (a thread left running) is rejected and
#    never becomes an exemplar; answers without code are recorded as such;
#  - the server's faults are survived: a 500 and an answer slower than the
#    request timeout are retried;
#  - a run killed (SIGKILL) mid-way continues with --resume, asking only what
#    it does not hold, and ends with every slot judged.
# Usage: optimize_replay.sh CUDAL1 SOURCE_DIR
set -euo pipefail
cudal1=$1
src=$2
tmp=$(mktemp -d)
replay_pid=""
cleanup() {
  [ -n "$replay_pid" ] && kill "$replay_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
store=$tmp/store.sqlite
task=$src/examples/swish/task.py
sql() { python3 -c 'import sqlite3, sys; print("\n".join("|".join("" if v is None else str(v) for v in r) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$store" "$1"; }

# The answers: kernels written from the example's correct kernel.
python3 - "$src" "$tmp" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
correct = open(f"{src}/examples/swish/cpu/correct.cpp").read()
hack = open(f"{src}/examples/swish/cpu/hack_background_thread.cpp").read()
# Slow: the same loop computed eight times over (the same result).
slow = correct.replace("  for (int64_t i = 0; i < rows; ++i) {", "  for (int rep = 0; rep < 8; ++rep)\n  for (int64_t i = 0; i < rows; ++i) {", 1)
assert slow != correct
fast = "// FAST-KERNEL\n" + correct
fast2 = "// FAST-KERNEL-2\n" + correct
def answer(code, note):
    return (f"## Performance Analysis\n{note}\n\n## Algorithm Design\nOne pass over x.\n\n"
            f"## Code Implementation\n```cpp\n{code}```\n")
entries = [
    # round 1
    {"content": answer(slow, "A first try.")},
    {"content": "I would fuse the three operations, but here is no code."},
    # round 2: a 500 and an answer slower than the request's timeout, both retried
    {"status": 500},
    {"content": answer("// HACK-KERNEL\n" + hack, "A thread does the work.")},
    {"delay_s": 4, "content": "too late"},
    {"content": answer(fast, "The slow one computes everything eight times.")},
    # round 3
    {"content": answer(fast2, "The same, again.")},
    {"content": "```cpp\n// truncated"},
]
with open(f"{tmp}/answers.jsonl", "w") as f:
    for e in entries:
        f.write(json.dumps(e) + "\n")
with open(f"{tmp}/repeat.jsonl", "w") as f:
    f.write(json.dumps({"content": answer(fast, "Again."), "delay_s": 0.5, "repeat": True}) + "\n")
EOF

start_replay() {
  rm -f "$tmp/port"
  "$cudal1" llm-replay --answers "$1" --port 0 --port-file "$tmp/port" 2> "$tmp/replay.log" &
  replay_pid=$!
  for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
  [ -s "$tmp/port" ] || fail "llm-replay did not start: $(cat "$tmp/replay.log")"
  url=http://127.0.0.1:$(cat "$tmp/port")/v1
}
stop_replay() { kill "$replay_pid" 2>/dev/null || true; wait "$replay_pid" 2>/dev/null || true; replay_pid=""; }

judge=(--backend cpu --time-budget 0.3 --timeout 3 --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache")

# ---- three rounds, faults included ---------------------------------------------------
start_replay "$tmp/answers.jsonl"
"$cudal1" optimize "$task" --llm "$url" --model replay --rounds 3 --samples 2 --concurrency 2 --run main \
  --request-timeout 2 --retries 3 --store "$store" "${judge[@]}" > "$tmp/main.out" 2> "$tmp/main.err" ||
  fail "optimize failed: $(cat "$tmp/main.err")"
stop_replay
cat "$tmp/main.err"

counts=$(sql "select status || ':' || verdict, count(*) from attempts group by 1 order by 1" | tr '\n' ' ')
expected="judged:correct|3 judged:rejected|1 no_code:|2 "
[ "$counts" = "$expected" ] || fail "attempts by outcome: '$counts', wanted '$expected'"
hack_hash=$(sql "select a.candidate_hash from attempts a join candidates c using (candidate_hash) where c.source like '%HACK-KERNEL%'")
[ -n "$hack_hash" ] || fail "the hacked answer is not in the store"
[ "$(sql "select verdict from attempts where candidate_hash = '$hack_hash'")" = rejected ] || fail "the hack was not rejected"
[ "$(sql "select count(*) from attempts where exemplars like '%$hack_hash%'")" = 0 ] || fail "the hack was shown as an exemplar"
[ "$(sql "select count(*) from attempts where round = 3 and prompt like '%HACK-KERNEL%'")" -ge 1 ] ||
  fail "round 3's prompts do not show the rejected answer as a failure"
[ "$(sql "select count(*) from attempts where round > 1 and exemplars like '%\"score\"%'")" = 4 ] || fail "exemplars not recorded"

"$cudal1" best "$task" --store "$store" --json > "$tmp/best.json" || fail "cudal1 best failed"
python3 - "$tmp/best.json" "$store" <<'EOF' || fail "best: $(head -c 600 "$tmp/best.json")"
import json, sqlite3, sys
best = json.load(open(sys.argv[1]))
assert best["verdict"] == "correct", best["verdict"]
assert "FAST-KERNEL" in best["code"], "the best is not a fast kernel"
assert best["judgment"]["verdict"] == "correct"
db = sqlite3.connect(sys.argv[2])
slow = db.execute("select a.speedup from attempts a join candidates c using (candidate_hash) "
                  "where a.round = 1 and a.verdict = 'correct'").fetchone()[0]
assert best["speedup"] > slow, (best["speedup"], slow)
print(f"best {best['speedup']:.3f}x (fast) over the slow kernel's {slow:.3f}x")
EOF
"$cudal1" history swish/task --store "$store" > "$tmp/history.out" || fail "cudal1 history failed"
cat "$tmp/history.out"
[ "$(grep -c '^main ' "$tmp/history.out")" = 3 ] || fail "history shows $(grep -c '^main ' "$tmp/history.out") rounds, not 3"
[ "$(sql "select count(*) from attempts where group_reward is not null")" = 6 ] || fail "group rewards missing"

# ---- a kill, then --resume --------------------------------------------------------------
start_replay "$tmp/repeat.jsonl"
run=("$cudal1" optimize "$task" --llm "$url" --model replay --rounds 2 --samples 3 --concurrency 1 --run killed
     --store "$store" "${judge[@]}")
"${run[@]}" > "$tmp/killed.out" 2>&1 &
pid=$!
judged() { sql "select count(*) from attempts a join runs r using (run_id) where r.name = 'killed' and a.status = 'judged'"; }
for _ in $(seq 600); do [ "$(judged)" -ge 1 ] && break; sleep 0.1; done
kill -KILL $pid
wait $pid 2>/dev/null || true
before=$(judged)
[ "$before" -ge 1 ] && [ "$before" -lt 6 ] || fail "after the kill the run holds $before judged answers (wanted 1 to 5)"
"${run[@]}" > "$tmp/again.out" 2>&1 && fail "reusing a run name without --resume was accepted"
grep -q "add --resume" "$tmp/again.out" || fail "no hint to --resume: $(cat "$tmp/again.out")"
"${run[@]}" --resume > "$tmp/resumed.out" 2>&1 || fail "the resumed run failed: $(cat "$tmp/resumed.out")"
stop_replay
[ "$(judged)" = 6 ] || fail "after --resume the run holds $(judged) judged answers, not 6"
[ "$(sql "select count(*) from judgments j join runs r using (run_id) where r.name = 'killed' and j.verdict = 'reference'")" = 1 ] ||
  fail "the reference was timed again on resume"
"${run[@]}" --resume --format modelnew > "$tmp/conflict.out" 2>&1 && fail "a resumed run accepted another --format"
grep -q "keeps its settings" "$tmp/conflict.out" || fail "no reason for refusing --format: $(cat "$tmp/conflict.out")"

# ---- a server that fails every request: exit 1, and --resume is offered ----------------------
printf '%s\n' '{"status": 500, "repeat": true}' > "$tmp/failing.jsonl"
start_replay "$tmp/failing.jsonl"
rc=0
"$cudal1" optimize "$task" --llm "$url" --model replay --rounds 1 --samples 2 --retries 0 --run failing \
  --store "$store" "${judge[@]}" > "$tmp/failing.out" 2>&1 || rc=$?
stop_replay
[ "$rc" = 1 ] || fail "every request failed, yet the exit status is $rc: $(cat "$tmp/failing.out")"
grep -q "2 request(s) failed; add --resume" "$tmp/failing.out" || fail "no resume hint: $(cat "$tmp/failing.out")"
[ "$(sql "select status from runs where name = 'failing'")" = incomplete ] || fail "the failed run is not marked incomplete"

# ---- an unreachable server: refused before any reference is timed ---------------------------
rc=0
"$cudal1" optimize "$task" --llm http://127.0.0.1:9/v1 --model replay --run unreachable --store "$store" "${judge[@]}" \
  > "$tmp/unreachable.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "an unreachable server gave exit status $rc"
grep -q "cannot reach" "$tmp/unreachable.out" || fail "unclear error: $(cat "$tmp/unreachable.out")"
grep -q "timing the reference" "$tmp/unreachable.out" && fail "the reference was timed for an unreachable server"
# ---- training data for the three stages ------------------------------------------------------
for stage in 1 2 3; do
  "$cudal1" export --stage $stage --store "$store" --out "$tmp/stage$stage.jsonl" --min-speedup 0 2> "$tmp/export$stage.err" ||
    fail "export --stage $stage: $(cat "$tmp/export$stage.err")"
  cat "$tmp/export$stage.err"
  python3 "$src/tests/check_training_data.py" $stage "$tmp/stage$stage.jsonl" --never "$hack_hash" ||
    fail "stage $stage's file does not hold to its documented fields"
done
# Stage 2: the model's three distinct correct kernels (the resumed run's repeats are duplicates).
[ "$(wc -l < "$tmp/stage2.jsonl")" = 3 ] || fail "stage 2 has $(wc -l < "$tmp/stage2.jsonl") rows, not 3"
"$cudal1" export --stage 4 --store "$store" --out "$tmp/x.jsonl" 2> /dev/null && fail "export --stage 4 was accepted"

echo "PASS: optimize against the replay server (best, rejected hack, faults, kill and resume, failures)"
