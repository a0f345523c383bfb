#!/usr/bin/env bash
# --host-match on|off (auto: on CUDA): the speedup over the pairs timed at
# the host's full speed. With "on" the judgment says the host's state, uses
# only the pairs at full speed (the rest kept raw in host.other_pairs: every
# timed pair is in one or the other) and appends its own level to the
# machine's in host-levels.json, which the next judgment holds its probes
# to; with "off" every pair is used and nothing is written. A bad value is
# refused with a message. A reference of 1 ms or more uses every pair
# (host.state "not_matched") and keeps no level; neither does a judgment
# whose verdict is not correct, nor an untrusted task (no matching at all).
# --host-probe both adds a probe before each window (the slower of the two
# per pair counts) and keeps its levels apart.
# Usage: host_match.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
judge() {
  "$cudal1" eval "$swish/task.py" "$swish/cpu/correct.cpp" --backend cpu --time-budget 1 --host-wait 0.5 \
    --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q "$@"
}
check() {  # JSON on stdin; $1: on or off; $2: how many levels host-levels.json must hold after it
  python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())
mode, levels_expected, cache = sys.argv[1], int(sys.argv[2]), sys.argv[3]
assert j["verdict"] == "correct", (j["verdict"], j["message"])
h = j["host"]
probes = h["reference_probe_us"]
used = j["reference"]["samples"]
assert all(p > 0 for p in probes), "a timed pair without a probe"
other = h.get("other_pairs", {"reference_ms": [], "candidate_ms": [], "probe_us": []})
if mode == "on":
    assert h["state"] in ("full_speed", "slow"), h.get("state")
    assert h["level_us"] > 0
    assert used == h["pairs_used"] == len(j["candidate"]["samples_ms"]), (used, h["pairs_used"])
    assert used + len(other["reference_ms"]) == len(probes), (used, len(other["reference_ms"]), len(probes))
    assert len(other["candidate_ms"]) == len(other["probe_us"]) == len(other["reference_ms"])
    if h["state"] == "full_speed":
        assert used >= 30 and used == h["pairs_at_full_speed"]
        assert all(p > 1.3 * h["level_us"] for p in other["probe_us"]), "a pair at full speed was left out"
    else:
        assert used == len(probes) and not other["reference_ms"]
else:
    assert "state" not in h and "level_us" not in h and used == len(probes), h.keys()
try:
    levels = json.load(open(cache + "/host-levels.json"))
    n = sum(len(v) for v in levels.values())
except FileNotFoundError:
    n = 0
assert n == levels_expected, f"host-levels.json holds {n} levels, {levels_expected} expected"
print("%s: %s, %d of %d pairs used, level %s, known %s, speedup %.3f" % (mode, h.get("state", "-"), used, len(probes), h.get("level_us"), h.get("known_level_us"), j["speedup"]))
' "$1" "$2" "$tmp/cache"
}
judge --host-match off | check off 0
judge --host-match on | check on 1
second=$(judge --host-match on)
check on 2 <<<"$second"
python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); assert j["host"]["known_level_us"] > 0, "the second judgment did not read the first one'"'"'s level"' <<<"$second"
# A reference of 1 ms or more is mostly not the host's: every pair is used.
big=$(judge --host-match on --profile p100us)
python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())
assert j["verdict"] == "correct", j["message"]
h = j["host"]
if j["reference"]["median_ms"] >= 1.0:
    assert h["state"] == "not_matched" and "other_pairs" not in h, h.get("state")
    assert j["reference"]["samples"] == len(h["reference_probe_us"])
    print("p100us: not_matched, reference %.2f ms, every pair used" % j["reference"]["median_ms"])
else:
    print("NOTE: the p100us reference took %.3f ms here: the not_matched case was not checked" % j["reference"]["median_ms"])
' <<<"$big"
levels() { python3 -c '
import json, sys
try:
    print(sum(len(v) for v in json.load(open(sys.argv[1])).values()))
except FileNotFoundError:
    print(0)' "$tmp/cache/host-levels.json"; }
[ "$(levels)" = 2 ] || { echo "FAIL: a reference of 1 ms or more left a level ($(levels) kept)"; exit 1; }
# A level is kept for a correct verdict only: a rejected candidate's timing
# (a forged window) leaves none.
# hack_forge_report.cpp bends the worker's clock; its own probes catch it
# whatever the host's load (hack_move_start.cpp can be timed by the judge's
# clock instead on a loaded host, and then is correct).
hack=$("$cudal1" eval "$swish/task.py" "$swish/cpu/hack_forge_report.cpp" --backend cpu --time-budget 1 --host-wait 0.5 \
  --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q --host-match on)
verdict=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["verdict"])' <<<"$hack")
[ "$verdict" = rejected ] || { echo "FAIL: hack_forge_report.cpp was $verdict"; exit 1; }
[ "$(levels)" = 2 ] || { echo "FAIL: a $verdict judgment kept its level"; exit 1; }
echo "hack_forge_report: $verdict, no level kept"
expected=2
# An untrusted task's reference runs the task's code, which could report any
# probe: no matching, no level.
untrusted=$(judge --host-match on --untrusted-task)
python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())
assert j["verdict"] == "correct", j["message"]
assert "state" not in j["host"] and "level_us" not in j["host"], j["host"].keys()
print("untrusted task: not matched")' <<<"$untrusted"
[ "$(levels)" = "$expected" ] || { echo "FAIL: the untrusted task kept a level ($(levels), $expected expected)"; exit 1; }
# --host-probe both: a probe before each window too, the slower deciding;
# its levels are kept apart from the probes after the window alone.
both=$(judge --host-match on --host-probe both)
python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())
assert j["verdict"] == "correct", j["message"]
h = j["host"]
before, probes = h["reference_probe_before_us"], h["reference_probe_us"]
assert h["probe"] == "both" and len(before) == len(probes) > 0, (h.get("probe"), len(before), len(probes))
assert all(0 < b <= p for b, p in zip(before, probes)), "a pair probe below its probe before the window"
keys = json.load(open(sys.argv[1]))
assert sum(1 for k in keys if k.endswith("|probe=both")) == 1, list(keys)
print("both: %s, %d pairs, before the window %.1f us median, the slower %.1f us" % (h["state"], len(probes),
      sorted(before)[len(before) // 2], sorted(probes)[len(probes) // 2]))' "$tmp/cache/host-levels.json" <<<"$both"
expected=$((expected + 1))
[ "$(levels)" = "$expected" ] || { echo "FAIL: host-levels.json holds $(levels) levels, $expected expected"; exit 1; }
after=$(judge --host-match on)
python3 -c 'import json,sys; h=json.loads(sys.stdin.readline())["host"]; assert "probe" not in h and "reference_probe_before_us" not in h, h.keys()' <<<"$after"
expected=$((expected + 1))
[ "$(levels)" = "$expected" ] || { echo "FAIL: after both, host-levels.json holds $(levels) levels, $expected expected"; exit 1; }
if err=$(judge --host-probe around 2>&1); then
  echo "FAIL: --host-probe around was accepted"; exit 1
fi
grep -q -- "--host-probe: after or both" <<<"$err" || { echo "FAIL: no message for a bad --host-probe: $err"; exit 1; }
if err=$(judge --host-match maybe 2>&1); then
  echo "FAIL: --host-match maybe was accepted"; exit 1
fi
grep -q -- "--host-match: auto, on or off" <<<"$err" || { echo "FAIL: no message for a bad value: $err"; exit 1; }
echo "PASS"
