#!/usr/bin/env bash
# Copies this machine's redis-server and redis-cli, with the libraries the GPU
# machine lacks (Ubuntu 24.04 there has no Redis, liblzf or jemalloc), into
# build/redis/ (bin and lib), which the device runs carry with build/.
# bench/queue_bench.py puts build/redis first on PATH when it exists.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
b=${CUDAL1_BUILD_DIR:-build}
case $b in /*) out=$b/redis ;; *) out=$here/$b/redis ;; esac
mkdir -p "$out/lib"
for b in redis-server redis-cli; do
  src=$(readlink -f "$(command -v $b)")  # redis-server is a link to redis-check-rdb: the name picks the mode
  cp "$src" "$out/$b"
done
for lib in liblzf.so.1 libjemalloc.so.2 libatomic.so.1; do
  path=$(ldd "$(command -v redis-server)" | awk -v l=$lib '$1 == l {print $3}')
  [ -n "$path" ] && cp -L "$path" "$out/lib/$lib"
done
echo "stage-redis: $(ls "$out" "$out/lib" | tr '\n' ' ')"
