#!/usr/bin/env bash
# GPU work a candidate leaves running outside its window (docs/judge.md,
# private_context and "Not defended yet"): prepared 2026-12-07, not yet run
# on a GPU. On the device machine, from the repository root, with build/
# carried:  bash bench/context_attack/run.sh   (files under $OUT)
#  - ctxprobe: what a second context changes from outside the process (fds,
#    maps) and how long a tiny kernel waits while another context spins;
#  - probe_context_watch: whether CUPTI's context callback fires per route,
#    and whether the primary context's synchronization waits;
#  - judgments at p100us: the honest kernel, the corpus's private-context and
#    cuptiFinalize attacks, and the routes not defended yet (a worker hook
#    launching a spin at the end mark; one computing the rows in the judge's
#    pause before the window; a second driver through dlmopen).
set -u
out=${OUT:-/tmp/context-attack}; mkdir -p "$out/judgments"
here=bench/context_attack
nvcc -arch=sm_90 -std=c++17 -o "$out/ctxprobe" $here/ctxprobe.cu -lcuda -lcublas && "$out/ctxprobe" 2>&1 | tee "$out/ctxprobe.log"
nvcc -arch=sm_90 -std=c++20 -rdc=true -o "$out/probe_context_watch" $here/probe_context_watch.cu -lcupti -lcuda -ldl -lcudadevrt &&
  timeout 60 "$out/probe_context_watch" 2>&1 | tee "$out/probe_context_watch.log"
for c in examples/swish/cuda/correct.cu examples/swish/cuda/hack_private_context.cu examples/swish/cuda/hack_cupti_finalize.cu \
         $here/got_hog_after_end_mark.cu $here/got_prewindow_spin.cu $here/dlmopen_libcuda.cu \
         examples/swish/cuda/modelnew_correct.py examples/swish/cuda/modelnew_hack_private_context.py; do
  name=$(basename "$c"); name=${name%.*}
  timeout 120 build/bin/cudal1 eval --profile p100us --json examples/swish/task.py "$c" > "$out/judgments/$name.json" 2> "$out/judgments/$name.err"
  python3 -c "
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print(f\"{sys.argv[2]:28s} {j.get('verdict')!s:10s} {j.get('speedup')!s:8.8s} ref {j['reference'].get('median_ms')!s:8.8s} \"
      f\"cand {j['candidate'].get('median_ms')!s:8.8s} order {(j.get('reference_order') or {}).get('second_over_first')!s:6.6s} {j.get('message', '')[:160]}\")
" "$out/judgments/$name.json" "$name" 2>/dev/null || echo "$name: no judgment"
done
tar czf "$out/judgments.tgz" -C "$out" judgments && rm -rf "$out/judgments"
