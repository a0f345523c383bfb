#!/usr/bin/env bash
# A candidate that fills the filesystem under its folder (and punches holes
# in the shared exchange, so the reference's next write there needs storage)
# gets a verdict, never a task error, and harms no judgment beside it:
#  1. with the worker's folder on a tmpfs of its own (the default where the
#     judge is root), it fills only that: judged correct, and an honest
#     candidate judged at the same time on the same filesystem is correct too;
#  2. without it (CUDAL1_SANDBOX_DISK=0, as where the judge is not root), the
#     reference dies staging a call: rejected as reference_interference, after
#     a second judgment in fresh processes that failed the same way;
#  0. a bounded folder a killed judge left mounted is swept by the next judge.
# The judgments' scratch folders go on a 96 MiB tmpfs of this test's (root).
# Usage: disk_fill.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
if [ "$(id -u)" != 0 ]; then echo "skipped: mounting the test's tmpfs needs root"; exit 77; fi
tmp=$(mktemp -d)
mkdir "$tmp/fs"
chmod 755 "$tmp"  # as /tmp is to the compiler's and the worker's users
mount -t tmpfs -o size=96m,mode=1777 cudal1-test "$tmp/fs"
trap 'umount -l "$tmp/fs"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
judge() {  # OUT CANDIDATE [ENV...]: the judgment's JSON into OUT, its exit status checked
  local out=$1 cand=$2
  shift 2
  env TMPDIR="$tmp/fs" "$@" "$cudal1" eval --json -q "$swish/task.py" "$swish/cpu/$cand" --backend cpu --timeout 5 \
    --time-budget 1 --cache-dir "$tmp/cache" > "$out" 2> "$out.err" || fail "$cand ($*) exited $?: $(tail -3 "$out.err")"
}
summary() {  # JSON: verdict, hack classes, the checks named after it
  python3 - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
checks = {c["name"]: c for c in j["checks"]}
words = [j["verdict"]] + [h["class"] for h in j["hacks"]]
for name in sys.argv[2:]:
    words.append(f"{name}={checks[name]['reason']}" if name in checks else f"{name}=absent")
print(" | ".join(words))
PY
}

# 0. A bounded folder a killed judge left mounted (its source names the
#    judge's PID, now gone) is swept by the next judge that mounts one.
sh -c 'exit 0' & gone=$!
wait $gone
mkdir "$tmp/fs/cudal1-stale" "$tmp/fs/cudal1-stale/sandbox"
mount -t tmpfs -o size=1m "cudal1-sandbox-$gone" "$tmp/fs/cudal1-stale/sandbox"

# 1. Its own tmpfs: the attack and an honest judgment side by side.
judge "$tmp/attack.json" hack_disk_fill.cpp & attack=$!
sleep 1
judge "$tmp/honest.json" correct.cpp & honest=$!
wait $attack || fail "the attack's judgment"
wait $honest || fail "the honest judgment beside it"
got=$(summary "$tmp/attack.json" sandbox)
case "$got" in "correct | sandbox="*"disk own tmpfs"*) ;; *) fail "hack_disk_fill.cpp on its own tmpfs: $got" ;; esac
got=$(summary "$tmp/honest.json")
# (On failure, the re-measurements' figures too: in CI once an honest
# judgment here was rejected as unstable_speedup, and what its judgments
# measured was not kept.)
[ "$got" = correct ] || fail "correct.cpp beside the attack: $got; $(summary "$tmp/honest.json" speedup_recheck) rechecks: $(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["speedup"], [(r["verdict"], r["speedup"], r["candidate_median_ms"], r["reference_median_ms"]) for r in j["rechecks"]])' "$tmp/honest.json")"
used=$(df --output=used -k "$tmp/fs" | tail -1 | tr -d ' ')
[ "$used" -lt 8192 ] || fail "the shared filesystem holds $used KiB after the judgments"
if grep -q "cudal1-sandbox-$gone " /proc/self/mountinfo || [ -e "$tmp/fs/cudal1-stale/sandbox" ]; then
  fail "a dead judge's bounded folder was not swept"
fi
echo "own tmpfs: the attack correct (no gain), the honest judgment beside it correct; a dead judge's mount swept"

# 2. No tmpfs of its own: the reference dies; the candidate is blamed, not the task.
judge "$tmp/shared.json" hack_disk_fill.cpp CUDAL1_SANDBOX_DISK=0
got=$(summary "$tmp/shared.json" reference_lost_again)
case "$got" in
  "rejected | reference_interference | reference_lost_again=judged again in fresh processes, the reference failed again"*) ;;
  *) fail "hack_disk_fill.cpp without its own tmpfs: $got" ;;
esac
# The second judgment, which did not stand, keeps its figures beside the first.
python3 - "$tmp/shared.json" <<'PY' || fail "the second judgment's figures"
import json, sys
j = json.load(open(sys.argv[1]))
r, e = j["rechecks"], j["earlier_judgments"]
assert len(r) == 1 and r[0]["verdict"] == "rejected" and r[0]["seconds"] > 0, r
assert "reference" in r[0]["message"], r[0]["message"]
assert e == [], e
PY
echo "shared filesystem: rejected as reference_interference after a second judgment"
