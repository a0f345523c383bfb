#!/usr/bin/env bash
# Configures and builds cudal1 into build/ (or $CUDAL1_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CUDAL1_BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j"$(nproc)"
