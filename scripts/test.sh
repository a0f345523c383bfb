#!/usr/bin/env bash
# Runs the whole test suite. Tests labelled gpu need a CUDA GPU: where there is
# none they are listed as not run, by name, never skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CUDAL1_BUILD_DIR:-build}
cd "$build"
# Reference servers the tests start need not outlive them by long.
export CUDAL1_REF_SERVER_IDLE=${CUDAL1_REF_SERVER_IDLE:-60}
if bin/cudal1 info --json 2>/dev/null | grep -q '"cuda_available": true'; then
  ctest --output-on-failure
else
  echo "test: no CUDA GPU here; these tests (label gpu) are not run:"
  ctest -N -L gpu | sed -n 's/^ *Test *#[0-9]*: /  /p'
  ctest --output-on-failure -LE gpu
fi
