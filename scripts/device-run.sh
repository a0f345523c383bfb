#!/usr/bin/env bash
# Runs on the GPU machine (the tool library's `device`), over a copy of this
# repository with the build folder carried: the GPU tests and a few judgments.
# Usage: scripts/device-run.sh [STEP...]  (steps: info examples hacks gpu-tests cpu-tests suites suite-bench check-bench bench stability placement window cpu-placement headstart modelnew warm-call nvcc-split optimize optimize-bench queue competition)
set -u
out=${OUT:-/tmp/cudal1-out}
mkdir -p "$out"
steps=${*:-info examples gpu-tests}
echo "repo at $PWD"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version,temperature.gpu --format=csv,noheader
# CTest files name the build folder by its absolute path here; give it the same path there.
if [ "$PWD" != /work/main ] && [ ! -e /work/main ]; then mkdir -p /work && ln -s "$PWD" /work/main; fi
for step in $steps; do
  echo "=== $step (at ${SECONDS} s)"
  case $step in
    info)
      build/bin/cudal1 info
      python3 -c "import time; t=time.time(); import torch; a=time.time(); torch.zeros(1, device='cuda'); b=time.time(); print(f'python: import torch {a-t:.2f} s, CUDA init {b-a:.2f} s')" ;;
    examples)
      for c in examples/swish/cuda/*.cu; do build/bin/cudal1 eval -q examples/swish/task.py "$c" --timeout 3; done
      build/bin/cudal1 eval -q examples/rowsoftmax/task.py examples/rowsoftmax/cuda/correct.cu ;;
    gpu-tests)
      (cd /work/main/build && ctest -L gpu --output-on-failure > "$out/gpu-tests.log" 2>&1
       grep -E "Test +#|tests passed" "$out/gpu-tests.log"
       if grep -q "tests FAILED" "$out/gpu-tests.log"; then
         echo "--- the failed ones again, without the sandbox (CUDAL1_SANDBOX=0):"
         CUDAL1_SANDBOX=0 ctest --rerun-failed 2>&1 | grep -E "Test +#|tests passed"
       fi) ;;
    cpu-tests)  # the CPU backend's end-to-end tests (the whole CPU hack corpus) on this machine too
      (cd /work/main/build && ctest -L e2e -j4 --output-on-failure > "$out/cpu-tests.log" 2>&1
       grep -E "tests passed|Failed|\*\*\*" "$out/cpu-tests.log") ;;
    hacks)
      for c in examples/swish/cuda/hack_*.cu; do build/bin/cudal1 eval -q examples/swish/task.py "$c" --timeout 3 --time-budget 0.5; done ;;
    suites)  # every task: its solution judged, else its reference timed
      timeout ${SUITE_TIMEOUT:-400} build/bin/cudal1 suite ${SUITES:-suites/*/} ${SUITE_ARGS:-} -q --json "$out/suites.jsonl" --markdown "$out/suites.md" 2>&1 | grep -v "^\[" ;;
    suite-bench)  # `cudal1 bench` over the whole own suite: killed at KILL_AT s, then the same command resumes it
      store="$out/suite.sqlite"; rm -f "$store"*
      t0=$(date +%s.%N)
      timeout -s KILL ${KILL_AT:-100} build/bin/cudal1 bench suites/*/ --store "$store" --run h200-suite > "$out/bench-1.log" 2>&1
      t1=$(date +%s.%N)
      timeout ${RESUME_LIMIT:-420} build/bin/cudal1 bench suites/*/ --store "$store" --run h200-suite > "$out/bench-2.log" 2>&1
      t2=$(date +%s.%N)
      python3 -c "print(f\"first (killed) {$t1-$t0:.1f} s, resumed {$t2-$t1:.1f} s, total {$t2-$t0:.1f} s\")"
      tail -12 "$out/bench-1.log" | grep -v "^\[" ; tail -14 "$out/bench-2.log"
      build/bin/cudal1 report --store "$store" --html "$out/suite-report.html" --json > "$out/suite-report.json" ;;
    check-bench) python3 bench/check_bench.py build/share/cudal1/python 2>&1 | tee "$out/check-bench.log" ;;
    stability)  # the judgments' JSON and the CPUs' counters (cpu.jsonl) in one archive (the device returns a few files only);
      # STABILITY_ARGS="--runs 10", STABILITY_ALSO="--reference-replace-every 4;--cpu split" for series side by side
      mkdir -p "$out/stability"
      taskset -c 0 python3 bench/cpu_monitor.py --probe --out "$out/stability/cpu.jsonl" & monitor=$!
      # the GPU's clocks, power and clock-event reasons beside them (GPU_MONITOR_MS=0: none)
      gpumon=
      if [ "${GPU_MONITOR_MS:-200}" != 0 ]; then
        nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
          --format=csv,noheader -lms ${GPU_MONITOR_MS:-200} > "$out/stability/gpu.csv" 2>&1 & gpumon=$!
      fi
      also=(); IFS=';' read -ra extra <<<"${STABILITY_ALSO:-}"; for e in "${extra[@]}"; do [ -n "$e" ] && also+=(--also "$e"); done
      timeout ${STABILITY_TIMEOUT:-3600} build/bin/stability_bench ${STABILITY_ARGS:-} "${also[@]}" --save "$out/stability" 2>&1 | tee "$out/stability.log"
      kill $monitor ${gpumon}; wait $monitor ${gpumon}
      tar czf "$out/stability.tgz" -C "$out" stability && rm -rf "$out/stability" ;;
    placement) python3 bench/reference_placement.py --save "$out/reference-placement.json" ${PLACEMENT_PROBE_ARGS:-} 2>&1 | tee "$out/reference-placement.log" ;;
    bench)  # the judgments' JSON in one archive (the device returns a few files only)
      mkdir -p "$out/bench"
      build/bin/judge_bench ${BENCH_ARGS:-} --save "$out/bench" 2>&1 | tee "$out/bench.log"
      tar czf "$out/bench-json.tgz" -C "$out" bench && rm -rf "$out/bench" ;;
    queue) python3 bench/queue_bench.py --save "$out" ${QUEUE_ARGS:-} 2>&1 | tee "$out/queue-bench.log" ;;  # needs build/redis (scripts/stage-redis.sh)
    optimize) python3 bench/optimize_suite.py --keep "$out" ${OPTIMIZE_ARGS:-} 2>&1 | tee "$out/optimize-suite.log" ;;
    optimize-bench) python3 bench/optimize_bench.py ${OPTIMIZE_BENCH_ARGS:-} --save "$out" 2>&1 | tee "$out/optimize-bench.log" ;;
    headstart) python3 bench/window_headstart.py ${HEADSTART_ARGS:-} --save "$out/window-headstart.jsonl" 2>&1 | tee "$out/window-headstart.log"; gzip -f "$out/window-headstart.jsonl" ;;
    window) python3 bench/reference_window.py --save "$out/reference-window.jsonl" ${WINDOW_ARGS:-} 2>&1 | tee "$out/reference-window.log"; gzip -f "$out/reference-window.jsonl" ;;
    cpu-placement) python3 bench/cpu_placement.py --save "$out/placement" ${PLACEMENT_ARGS:-} 2>&1 | tee "$out/placement.log"; tar czf "$out/placement.tgz" -C "$out" placement && rm -rf "$out/placement" ;;
    competition) python3 bench/competition_bench.py ${COMPETITION_ARGS:-} --save "$out" 2>&1 | tee "$out/competition-bench.log" ;;  # serve --competition with 3 CUDA submissions: the board's ranking beside cudal1 eval's
    modelnew) python3 bench/modelnew_bench.py ${MODELNEW_ARGS:-} --save "$out" 2>&1 | tee "$out/modelnew-bench.log" ;;
    warm-call)  # the candidate's warm call off and on, interleaved (WARM_ARGS="--runs 4 --profiles ,p100us")
      python3 bench/warm_call_bench.py ${WARM_ARGS:-} --save "$out/warm-call.jsonl" ${WARM_CANDIDATES:-examples/swish/cuda/modelnew_identical.py examples/swish/cuda/modelnew_correct.py examples/swish/cuda/correct.cu} 2>&1 | tee "$out/warm-call.log" ;;
    nvcc-split) python3 bench/nvcc_split_bench.py --runs ${NVCC_SPLIT_RUNS:-3} --save "$out" 2>&1 | tee "$out/nvcc-split-bench.log" ;;
  esac
done
echo "=== done (at ${SECONDS} s)"
