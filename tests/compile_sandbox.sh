#!/usr/bin/env bash
# A native candidate's compiler runs sandboxed (cudal1-worker --exec-sandboxed):
# a compiler reads whatever a source names and quotes it in its diagnostics,
# so `#include "/path/to/token"` once put a root-only file's contents in a
# compile_error's message. Here a readable file outside the system's folders
# is named by #include and by .incbin: both must fail to compile without
# its contents in the message, and (the control) both compile and are judged
# correct with the sandbox off (CUDAL1_SANDBOX=0), so the file was readable.
# Usage: compile_sandbox.sh CUDAL1 SWISH_EXAMPLE_DIR
set -euo pipefail
cudal1=$1
swish=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
token="cudal1_secret_$RANDOM$RANDOM"
printf '#define CUDAL1_SECRET_OK 1 // %s\n' "$token" > "$tmp/secret.h"
printf '%s\n' "$token" > "$tmp/secret.bin"
chmod 644 "$tmp/secret.h" "$tmp/secret.bin"
# The honest swish candidate with one line more.
{ echo "#include \"$tmp/secret.h\""; echo 'static_assert(CUDAL1_SECRET_OK == 1, "read");'; cat "$swish/cpu/correct.cpp"; } > "$tmp/by_include.cpp"
{ echo "__asm__(\".section .rodata\\n.incbin \\\"$tmp/secret.bin\\\"\\n.previous\");"; cat "$swish/cpu/correct.cpp"; } > "$tmp/by_incbin.cpp"
judge() {
  "$cudal1" eval "$swish/task.py" "$1" --backend cpu --time-budget 0.3 --recheck-above 0 --recheck-above-best 0 \
    --cache-dir "$tmp/cache-$2" --json -q
}
field() { python3 -c 'import json,sys; j=json.loads(sys.stdin.readline()); print(j[sys.argv[1]])' "$1"; }
for c in by_include by_incbin; do
  open=$(CUDAL1_SANDBOX=0 judge "$tmp/$c.cpp" open)
  [ "$(field verdict <<<"$open")" = correct ] || { echo "FAIL (control): $c without the sandbox: $(field verdict <<<"$open"): $(field message <<<"$open")"; exit 1; }
  boxed=$(judge "$tmp/$c.cpp" boxed)
  verdict=$(field verdict <<<"$boxed")
  [ "$verdict" = compile_error ] || { echo "FAIL: $c compiled in the sandbox ($verdict)"; exit 1; }
  if grep -q "$token" <<<"$boxed"; then echo "FAIL: $c: the file's contents are in the judgment"; exit 1; fi
  echo "$c: correct without the sandbox, compile_error in it: $(field message <<<"$boxed" | grep -m1 -iE 'denied|error' || true)"
done
# An honest candidate compiles in the sandbox and says so.
honest=$(judge "$swish/cpu/correct.cpp" boxed)
[ "$(field verdict <<<"$honest")" = correct ] || { echo "FAIL: the honest candidate: $(field verdict <<<"$honest")"; exit 1; }
python3 -c '
import json, sys
j = json.loads(sys.stdin.readline())
c = [c["reason"] for c in j["checks"] if c["name"] == "compile"][0]
assert "compiled sandboxed" in c and "filesystem: the system" in c, c
print("honest:", c)' <<<"$honest"
echo "PASS"
