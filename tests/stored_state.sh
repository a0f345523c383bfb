#!/usr/bin/env bash
# Stored state follows final verdicts only: a rejected candidate (a bent
# clock, caught by the worker's own probes whatever the host's load; a speedup that does not reproduce, whose inner re-check judgment was
# itself correct) records no best speedup; a correct one does. The device
# calibration and the FLOP count (measured by the reference before the
# candidate loads) are written by the judge for every final verdict.
# Usage: stored_state.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(--backend cpu --timeout 3 --time-budget 0.5)

verdict() {  # CACHE CANDIDATE FLAGS...: prints the verdict
  local cache=$1 cand=$2
  shift 2
  "$cudal1" eval --json "$swish/task.py" "$swish/cpu/$cand" "${flags[@]}" --cache-dir "$cache" "$@" >"$tmp/last.json"
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["verdict"], *[h["class"] for h in j["hacks"]])' "$tmp/last.json"
}
fail() { echo "FAIL: $*" >&2; exit 1; }
stored() { ls "$1" | grep -E '^(best-speedups|calibration-cpu|flops)\.json$' | tr '\n' ' ' || true; }

# Not hack_move_start.cpp: on a loaded host the judge's clock cannot tell its
# lie from the noise and times it itself (correct, slow, nothing gained), so
# it would not be rejected every run.
got=$(verdict "$tmp/forged" hack_forge_report.cpp --recheck-above 0 --recheck-above-best 0)
[ "$got" = "rejected timer_tampering" ] || fail "hack_forge_report.cpp: $got"
[ "$(stored "$tmp/forged")" = "calibration-cpu.json flops.json " ] || fail "a rejected candidate stored: $(stored "$tmp/forged")"

got=$(verdict "$tmp/unstable" correct.cpp --recheck-above 0.01 --recheck-tolerance 0)
[ "$got" = "rejected unstable_speedup" ] || fail "correct.cpp with a zero re-check tolerance: $got"
# Each re-measurement's own figures are kept beside its speedup.
python3 - "$tmp/last.json" <<'PY' || fail "the re-measurements' figures"
import json, sys
j = json.load(open(sys.argv[1]))
r = j["rechecks"]
# With no two agreeing, five judgments in all (--recheck-judgments' default).
assert len(r) == 4, r
assert [x["speedup"] for x in r[:2]] == [j["recheck_speedup"], j["recheck_third_speedup"]], (r, j["recheck_speedup"], j["recheck_third_speedup"])
check = [c for c in j["checks"] if c["name"] == "speedup_recheck"]
assert len(check) == 1 and not check[0]["pass"], check
assert "in a fifth judgment, which agrees with none before it" in check[0]["reason"], check[0]["reason"]
assert {p for p in j["phases_s"] if p.startswith("recheck")} == {"recheck", "recheck_third", "recheck_fourth", "recheck_fifth"}, j["phases_s"]
for x in r:
    assert x["verdict"] == "correct" and x["candidate_median_ms"] > 0 and x["reference_median_ms"] > 0, x
    assert any(c["name"] == "timer_cross_check" for c in x["clock_checks"]), x
    span = x["window_span"]["all_pairs"]  # null only where the span was not measured
    assert span is None or (isinstance(span["window_disagrees"], bool) and span["tolerance_ms"] > 0), x["window_span"]
PY
[ "$(stored "$tmp/unstable")" = "calibration-cpu.json flops.json " ] || fail "a candidate rejected on re-check stored: $(stored "$tmp/unstable")"

got=$(verdict "$tmp/correct" correct.cpp --recheck-above 0)
[ "$got" = "correct" ] || fail "correct.cpp: $got"
[ "$(stored "$tmp/correct")" = "best-speedups.json calibration-cpu.json flops.json " ] || fail "a correct judgment stored: $(stored "$tmp/correct")"
echo "stored state follows final verdicts: rejected twice, no best stored; correct: $(stored "$tmp/correct")"
