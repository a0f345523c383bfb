#!/usr/bin/env bash
# --reference-warm-call auto|on|off: an untimed call of the reference before
# a timed one. The judgment counts the timed runs that had one
# (reference_warm_calls): every run with "on", none with "off", and with
# "auto" (the default) the first 5 and then all or none, as the fastest
# is under 1 ms or not. Every
# judgment must stay correct (the warm call's outputs never reach a check),
# and a value other than the three is refused with a message. The candidate
# gets a warm call of its own before each timed call that follows one of the
# reference's (candidate_warm_calls, on the CPU by default), none with
# --candidate-warm-call off or where the reference has none.
# Usage: reference_warm_calls.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print(j.get(sys.argv[1]))' "$1"; }
runs() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["requests_ms"]["reference_run"]["count"])'; }
ref() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["reference"][sys.argv[1]])' "$1"; }
judge() {
  "$cudal1" eval "$swish/task.py" "$swish/cpu/correct.cpp" --backend cpu --time-budget 0.5 --recheck-above 0 \
    --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q "$@"
}
auto=$(judge)
on=$(judge --reference-warm-call on)
off=$(judge --reference-warm-call off)
for out in "$auto" "$on" "$off"; do
  [ "$(field verdict <<<"$out")" = correct ] || { echo "FAIL: verdict $(field verdict <<<"$out"): $(field message <<<"$out")"; exit 1; }
done
w_auto=$(field reference_warm_calls <<<"$auto"); n_auto=$(runs <<<"$auto")
w_on=$(field reference_warm_calls <<<"$on"); n_on=$(runs <<<"$on")
w_off=$(field reference_warm_calls <<<"$off")
echo "warm calls: auto $w_auto of $n_auto runs (reference $(ref min_ms <<<"$auto")-$(ref max_ms <<<"$auto") ms);" \
  "on $w_on of $n_on; off $w_off"
[ "$w_on" = "$n_on" ] || { echo "FAIL: with on, $w_on warm calls for $n_on runs"; exit 1; }
[ "$w_off" = 0 ] || { echo "FAIL: with off, $w_off warm calls"; exit 1; }
timed() { python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["candidate"]["samples"])'; }
c_on=$(field candidate_warm_calls <<<"$on"); t_on=$(timed <<<"$on")
c_off=$(field candidate_warm_calls <<<"$off")
echo "candidate warm calls: on $c_on of $t_on timed calls; off $c_off"
[ "$c_on" = "$t_on" ] || { echo "FAIL: with the reference's warm call on, $c_on candidate warm calls for $t_on timed calls"; exit 1; }
[ "$c_off" = 0 ] || { echo "FAIL: no reference warm call, yet $c_off candidate warm calls"; exit 1; }
cand_off=$(judge --reference-warm-call on --candidate-warm-call off)
[ "$(field verdict <<<"$cand_off")" = correct ] || { echo "FAIL: --candidate-warm-call off verdict $(field verdict <<<"$cand_off")"; exit 1; }
[ "$(field candidate_warm_calls <<<"$cand_off")" = 0 ] || { echo "FAIL: --candidate-warm-call off made warm calls"; exit 1; }
# auto: every run when the timed runs take under 1 ms (the probes' runs are
# as long), at most the first 5 when they take 1 ms or more (the probes'
# runs of the reference come first and are not counted). The CPU swish's
# runs take well under 1 ms at the cpu profile, hundreds at p100us.
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 0.7 else 1)' "$(ref median_ms <<<"$auto")"; then
  [ "$w_auto" = "$n_auto" ] || { echo "FAIL: auto, runs under 1 ms: $w_auto warm calls for $n_auto runs"; exit 1; }
else
  echo "NOTE: the cpu profile's reference took $(ref median_ms <<<"$auto") ms here: auto's all-runs case not checked"
fi
big=$(judge --profile p100us --reference-warm-call auto)
[ "$(field verdict <<<"$big")" = correct ] || { echo "FAIL: p100us verdict $(field verdict <<<"$big")"; exit 1; }
w_big=$(field reference_warm_calls <<<"$big")
echo "warm calls at p100us: $w_big (reference median $(ref median_ms <<<"$big") ms)"
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 1.5 else 1)' "$(ref median_ms <<<"$big")"; then
  [ "$w_big" -le 5 ] || { echo "FAIL: auto, runs of 1 ms or more: $w_big warm calls (at most 5 expected)"; exit 1; }
fi
if err=$(judge --reference-warm-call maybe 2>&1); then
  echo "FAIL: --reference-warm-call maybe was accepted"; exit 1
fi
grep -q -- "--reference-warm-call: auto, on or off" <<<"$err" || { echo "FAIL: no message for a bad value: $err"; exit 1; }
if err=$(judge --candidate-warm-call maybe 2>&1); then
  echo "FAIL: --candidate-warm-call maybe was accepted"; exit 1
fi
grep -q -- "--candidate-warm-call: auto, on or off" <<<"$err" || { echo "FAIL: no message for a bad value: $err"; exit 1; }
echo "PASS"
