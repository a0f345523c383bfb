#!/usr/bin/env bash
# The main job on the bundled examples: judges every example candidate (native
# sources and KernelBench ModelNew files) with the backend this machine has
# (the GPU if there is one, else the CPU) and prints each verdict. Each
# candidate's first line says what it should get.
set -euo pipefail
cd "$(dirname "$0")/.."
cudal1=${CUDAL1_BUILD_DIR:-build}/bin/cudal1
if "$cudal1" info --json | grep -q '"cuda_available": true'; then backend=cuda ext=cu; else backend=cpu ext=cpp; fi
echo "run-examples: $backend backend"
for task in examples/*/task.py; do
  dir=$(dirname "$task")
  candidates=()
  for c in "$dir/$backend"/*."$ext" "$dir/$backend"/*.py; do [ -e "$c" ] && candidates+=("$c"); done
  [ ${#candidates[@]} -gt 0 ] || continue
  echo
  echo "== $task"
  for c in "${candidates[@]}"; do echo "   $(basename "$c"): $(head -1 "$c")"; done
  "$cudal1" eval "$task" "${candidates[@]}" --backend "$backend" --timeout 3 -q
done
