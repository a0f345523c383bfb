#!/usr/bin/env bash
# A stopped reference server is replaced, not waited on: judge once (the
# server starts), SIGSTOP the server, judge again; the second judgment must be
# correct within 20 s and served by a fresh server, and the stopped one gone.
# Usage: ref_server_replaced.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
# A private runtime folder, so the developer's own server is not touched.
export XDG_RUNTIME_DIR=$tmp/run
export CUDAL1_REF_SERVER=1 CUDAL1_REF_SERVER_IDLE=120
unset CUDAL1_PYTHON || true
mkdir -m 700 "$XDG_RUNTIME_DIR"
folder=$XDG_RUNTIME_DIR/cudal1

old=""
cleanup() {
  for pidfile in "$folder"/ref-*.pid; do
    [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
  done
  [ -n "$old" ] && kill -KILL "$old" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for log in "$folder"/ref-*.log; do [ -f "$log" ] && sed 's/^/  server log: /' "$log" >&2; done
  exit 1
}

judge() {
  "$cudal1" eval "$swish/task.py" "$swish/cpu/correct.cpp" --backend cpu --time-budget 0.5 \
    --recheck-above 0 --recheck-above-best 0 --cache-dir "$tmp/cache" --json -q
}

server_pid() {
  local files=("$folder"/ref-*.pid)
  [ "${#files[@]}" -eq 1 ] && [ -f "${files[0]}" ] || fail "not one server pid file: ${files[*]}"
  cat "${files[0]}"
}

# A process that is gone, or a zombie waiting to be reaped by its new parent.
gone() {
  [ ! -e "/proc/$1/stat" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" = Z ]
}

first=$(judge) || fail "first judgment: exit $?"
grep -q '"verdict":"correct"' <<<"$first" || fail "first judgment: $first"
old=$(server_pid)
grep -q -- "--serve" "/proc/$old/cmdline" || fail "pid $old is not a reference server"
echo "first judgment correct; server pid $old; stopping it"
kill -STOP "$old"

start=$(date +%s.%N)
second=$(judge) || fail "second judgment: exit $?"
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
grep -q '"verdict":"correct"' <<<"$second" || fail "second judgment: $second"
new=$(server_pid)
echo "second judgment correct in $elapsed s; server pid $new"
awk -v t="$elapsed" 'BEGIN { exit !(t < 20) }' || fail "the second judgment took $elapsed s (limit 20)"
[ "$new" != "$old" ] || fail "the stopped server $old still serves"
kill -0 "$new" 2>/dev/null || fail "the new server $new is not running"
gone "$old" || fail "the stopped server $old is still there"
echo "PASS: the stopped server $old was replaced by $new"
