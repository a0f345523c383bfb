#!/usr/bin/env bash
# Runs on the GPU machine (the tool library's `device`), over a copy of this
# repository with the build folder carried: the GPU tests and a few judgments.
# Usage: scripts/device-run.sh [STEP...]  (steps: info examples gpu-tests bench)
set -u
out=${OUT:-/tmp/cudal1-out}
mkdir -p "$out"
steps=${*:-info examples gpu-tests}
echo "repo at $PWD"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version,temperature.gpu --format=csv,noheader
# CTest files name the build folder by its absolute path here; give it the same path there.
if [ "$PWD" != /work/main ] && [ ! -e /work/main ]; then mkdir -p /work && ln -s "$PWD" /work/main; fi
for step in $steps; do
  echo "=== $step"
  case $step in
    info)
      build/bin/cudal1 info
      python3 -c "import time; t=time.time(); import torch; a=time.time(); torch.zeros(1, device='cuda'); b=time.time(); print(f'python: import torch {a-t:.2f} s, CUDA init {b-a:.2f} s')" ;;
    examples)
      for c in examples/swish/cuda/*.cu; do build/bin/cudal1 eval -q examples/swish/task.py "$c" --timeout 3; done
      build/bin/cudal1 eval -q examples/rowsoftmax/task.py examples/rowsoftmax/cuda/correct.cu ;;
    gpu-tests) (cd /work/main/build && ctest -L gpu --output-on-failure 2>&1 | tee "$out/gpu-tests.log" | tail -40) ;;
    bench) build/bin/judge_bench 2>&1 | tee "$out/bench.log" ;;
  esac
done
