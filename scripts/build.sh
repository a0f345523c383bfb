#!/usr/bin/env bash
# Configures and builds cudal1 into build/ (or $CUDAL1_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CUDAL1_BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j"$(nproc)"
# A redis-server beside the build for machines without one (the GPU machine):
# bench/queue_bench.py finds it in build/redis.
if command -v redis-server >/dev/null 2>&1; then CUDAL1_BUILD_DIR=$build "$(dirname "$0")/stage-redis.sh" >/dev/null; fi
