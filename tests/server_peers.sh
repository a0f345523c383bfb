#!/usr/bin/env bash
# The fork servers serve judges only. Landlock does not cover connecting to
# a named unix socket, so where the sandbox cannot change the user (a judge
# that is not root) a sealed candidate could reach the server's socket and
# ask for an unsealed process. The server refuses a peer that runs under
# more restriction than itself: no_new_privs, more seccomp filters, another
# PID namespace (every sealed worker has the first two). A client like the
# judge gets a worker; the same client under no_new_privs, or (as root) in a
# PID namespace of its own, is refused.
# Usage: server_peers.sh CUDAL1 SWISH_EXAMPLE_DIR [PYTHON]
set -euo pipefail
cudal1=$1
swish=$2
py=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
export XDG_RUNTIME_DIR=$tmp/run  # the servers' sockets in a folder of this test's
mkdir -m 700 "$XDG_RUNTIME_DIR"
cleanup() {
  for p in "$XDG_RUNTIME_DIR"/cudal1/*.pid; do [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export CUDAL1_REF_SERVER_IDLE=60
"$cudal1" eval "$swish/task.py" "$swish/cpu/correct.cpp" --backend cpu --time-budget 0.3 -q --cache-dir "$tmp/cache" \
  > /dev/null || true
sock=$(ls "$XDG_RUNTIME_DIR"/cudal1/ref-*.sock 2>/dev/null | head -1)
[ -S "$sock" ] || { echo "FAIL: no reference server was started"; ls -la "$XDG_RUNTIME_DIR"/cudal1 || true; exit 1; }
log=${sock%.sock}.log

got=$("$py" "$here/server_peer_client.py" "$sock")
echo "as the judge runs: $got"
[[ $got == worker* ]] || { echo "FAIL: a client like the judge got no worker"; exit 1; }
grep -q '"ok": true' <<<"$got" || { echo "FAIL: the worker did not answer"; exit 1; }

got=$(setpriv --no-new-privs "$py" "$here/server_peer_client.py" "$sock")
echo "under no_new_privs: $got"
[ "$got" = refused ] || { echo "FAIL: a client under no_new_privs was served"; exit 1; }
grep -q "refused a request from pid .*no_new_privs set" "$log" || { echo "FAIL: the server's log does not say why"; cat "$log"; exit 1; }

if [ "$(id -u)" = 0 ]; then
  got=$(unshare --pid --fork --mount-proc "$py" "$here/server_peer_client.py" "$sock")
  echo "in a PID namespace of its own: $got"
  [ "$got" = refused ] || { echo "FAIL: a client in another PID namespace was served"; exit 1; }
  grep -q "refused a request from pid .*another PID namespace" "$log" || { echo "FAIL: the server's log does not say why"; exit 1; }
else
  echo "NOTE: not root: the PID namespace case was not checked"
fi
echo PASS
