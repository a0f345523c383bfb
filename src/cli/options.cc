// The judge options shared by eval and suite.
#include "cli/options.h"

#include <pthread.h>

#include "check/tolerance.h"

namespace cudal1 {

const char* const kJudgeOptionsHelp = R"(
judge options:
  --backend auto|cpu|cuda   where to run (auto: .cu -> cuda, .cpp -> cpu)
  --python PATH             Python with PyTorch for the reference
                            (default: $CUDAL1_PYTHON, else the first of python3,
                            /usr/bin/python3, ... that imports torch)
  --profile NAME            task size profile (cudal1_profiles in the task);
                            the CPU backend uses "cpu" when the task has one
  --precision fp32|tf32|bf16
                            what fp32 outputs may be computed in (default fp32);
                            the reference is timed under the same policy (TF32
                            products; bf16 autocast) and the tolerance follows
  --baseline eager|compile|cuda_graph
                            what the speedup is over (default eager, KernelBench's
                            definition; compile: torch.compile of the reference;
                            cuda_graph: its forward replayed as a CUDA graph)
  --trials N                correctness trials before timing (default 5)
  --timeout SECONDS         limit for one call of the candidate (default 10)
  --compile-timeout SECONDS limit for compiling (default 120)
  --time-budget SECONDS     most time spent timing (default 2)
  --min-time SECONDS        least time spent timing (default 1)
  --min-samples N           least timed pairs (default 10)
  --max-samples N           most timed pairs (default 2000)
  --target-ci FRACTION      stop once both medians' 95% CI half-widths are
                            within this fraction (default 0.005)
  --recheck-above X         re-measure a speedup above X in fresh processes before
                            it stands (default 3; 0: never)
  --recheck-above-best X    also re-measure a speedup above X times the best that
                            has stood for the task on this device (default 2; 0: never)
  --require-custom-kernel   reject a candidate whose trials launch no kernel of
                            its own (only cuBLAS/cuDNN/PyTorch ones, or none);
                            every judgment lists its kernels (CUDA, via CUPTI)
  --recheck-tolerance F     the least relative gap at which two speedups disagree
                            (default 0.1; widened to the judgments' measured
                            noise, at most 3x); where the first two disagree
                            another judgment decides, and a speedup no two agree
                            on is rejected as unstable
  --recheck-judgments N     at most N judgments in all before that rejection
                            (2-9, default 5; 2: CUDA-L1's rule, one re-measurement)
  --reference-replace-every N
                            place the reference's working memory afresh every N
                            of its runs (its cached blocks returned, a pad of
                            random size first), so its median spans several
                            placements (default 0: never; under evaluation: on
                            an H200 the placement moved an eager reference's
                            time by up to 6.6%)
  --reference-warm-call auto|on|off
                            an untimed call of the reference on the same inputs
                            before a timed one, so that its Python dispatch runs
                            on a warm host as in back-to-back trials (auto, the
                            default: where the fastest of its first 5 runs is under
                            1 ms)
  --candidate-warm-call auto|on|off
                            the same for the candidate: an untimed call on the
                            last call's inputs before each timed call, wherever
                            the reference had its warm call (auto, the default:
                            on the CPU backend; not yet measured on a GPU)
  --host-match auto|on|off  where the reference takes under 1 ms, take the speedup
                            over the pairs timed while the host ran at full speed
                            (by a probe of the reference's Python after each
                            window), where there are at least 30 (auto, the
                            default: on CUDA)
  --host-wait S             how long the timing may run past its budget to find
                            them, where the reference takes under 1 ms (default 3)
  --host-probe after|both   the host probe after each reference window (the
                            default), or also right before it, the slower of
                            the two deciding the pair's host state
  --seed N                  reproduce a judgment's inputs (default: random)
  --cache-dir DIR           compile cache (default: $CUDAL1_CACHE_DIR or
                            ~/.cache/cudal1)
  --cpu auto|none|N|split|R,C
                            the CPUs the workers run on: N both on CPU N, so
                            both see the same core; split: the candidate on the
                            last CPU, the reference on another physical core;
                            R,C: the reference on R, the candidate on C
                            (default auto: on CUDA both on the last CPU cudal1
                            may use, on the CPU backend none)
  --keep-scratch            keep the judgment's scratch folder (logs; the
                            worker's own folder, a tmpfs, copied to sandbox.kept)
  --no-ref-server           start the reference's Python afresh (pays torch's
                            import every time) instead of forking it from the
                            reference server, a background Python that keeps
                            torch imported and exits after 10 idle minutes
                            (also: CUDAL1_REF_SERVER=0)
  --untrusted-task          the task's code is not trusted (a dataset's, a
                            remote client's): its reference runs sealed as a
                            candidate does (own namespaces, unprivileged user,
                            reads of the system and its own folder only, no
                            processes), started afresh, and its measurements
                            never enter the cache folder
)";

bool read_judge_option(option_reader& r, judge_options& opt, bool* ok) {
  const std::string& a = r.args[r.i];
  std::string flag = a.substr(0, a.find('='));
  double d = 0;
  *ok = true;
  if (a == "--keep-scratch") opt.keep_scratch = true;
  else if (a == "--no-ref-server") opt.reference_server = false;
  else if (a == "--untrusted-task") opt.untrusted_task = true;
  else if (a == "--require-custom-kernel") opt.require_custom_kernel = true;
  else if (flag == "--backend") *ok = r.value(&opt.backend);
  else if (flag == "--python") *ok = r.value(&opt.python);
  else if (flag == "--profile") *ok = r.value(&opt.profile);
  else if (flag == "--precision") {
    *ok = r.value(&opt.precision);
    if (*ok && !is_precision_policy(opt.precision)) {
      r.error = "--precision must be fp32, tf32 or bf16, not '" + opt.precision + "'";
      *ok = false;
    }
  }
  else if (flag == "--cache-dir") *ok = r.value(&opt.cache_dir);
  else if (flag == "--baseline") {
    *ok = r.value(&opt.baseline);
    if (*ok && opt.baseline != "eager" && opt.baseline != "compile" && opt.baseline != "cuda_graph") {
      r.error = "--baseline must be eager, compile or cuda_graph, not '" + opt.baseline + "'";
      *ok = false;
    }
  }
  else if (flag == "--cpu") *ok = r.value(&opt.cpu);
  else if (flag == "--trials") *ok = r.integer(&opt.trials, 1);
  else if (flag == "--timeout") *ok = r.number(&opt.call_timeout_s, 0.1);
  else if (flag == "--compile-timeout") *ok = r.number(&opt.compile_timeout_s, 1);
  else if (flag == "--time-budget") *ok = r.number(&opt.stopping.max_time_s, 0);
  else if (flag == "--min-time") *ok = r.number(&opt.stopping.min_time_s, 0);
  else if (flag == "--min-samples") *ok = r.integer(&opt.stopping.min_samples, 1);
  else if (flag == "--max-samples") *ok = r.integer(&opt.stopping.max_samples, 1);
  else if (flag == "--target-ci") *ok = r.number(&opt.stopping.target_ci_rel, 0);
  else if (flag == "--recheck-above") *ok = r.number(&opt.recheck_above, 0);
  else if (flag == "--recheck-above-best") *ok = r.number(&opt.recheck_above_best, 0);
  else if (flag == "--recheck-tolerance") *ok = r.number(&opt.recheck_tolerance, 0);
  else if (flag == "--recheck-judgments") *ok = r.integer(&opt.recheck_judgments, 2, 9);
  else if (flag == "--reference-replace-every") *ok = r.integer(&opt.reference_replace_every, 0);
  else if (flag == "--reference-warm-call") {
    std::string v;
    *ok = r.value(&v) && (v == "auto" || v == "on" || v == "off");
    if (*ok) opt.reference_warm_call = v;
    else if (r.error.empty()) r.error = "--reference-warm-call: auto, on or off";
  }
  else if (flag == "--candidate-warm-call") {
    std::string v;
    *ok = r.value(&v) && (v == "auto" || v == "on" || v == "off");
    if (*ok) opt.candidate_warm_call = v;
    else if (r.error.empty()) r.error = "--candidate-warm-call: auto, on or off";
  }
  else if (flag == "--host-match") {
    std::string v;
    *ok = r.value(&v) && (v == "auto" || v == "on" || v == "off");
    if (*ok) opt.host_match = v;
    else if (r.error.empty()) r.error = "--host-match: auto, on or off";
  }
  else if (flag == "--host-wait") *ok = r.number(&opt.host_wait_s, 0);
  else if (flag == "--host-probe") {
    std::string v;
    *ok = r.value(&v) && (v == "after" || v == "both");
    if (*ok) opt.host_probe = v;
    else if (r.error.empty()) r.error = "--host-probe: after or both";
  }
  else if (flag == "--seed") {
    *ok = r.number(&d, 0);
    opt.seed = static_cast<uint64_t>(d);
  } else {
    return false;
  }
  return true;
}

sigset_t block_stop_signals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

}  // namespace cudal1
