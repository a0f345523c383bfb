// judge_candidate(): one honest, sandboxed evaluation of a native candidate
// against a KernelBench-format PyTorch task.
#pragma once

#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "judge/judgment.h"
#include "timing/stopping.h"

namespace cudal1 {

struct judge_options {
  std::string backend = "auto";  // auto: .cu -> cuda, .cpp -> cpu
  std::string python;            // interpreter with torch; empty: search
  std::string profile;           // task size profile; empty: "cpu" on the CPU backend if the task has one
  std::string cache_dir;         // empty: default_cache_dir()
  /// What the candidate may compute fp32 outputs in, and what the reference
  /// is timed in: "fp32", "tf32" or "bf16" (see tolerance_for()).
  std::string precision = "fp32";
  /// What the speedup is over: "eager" (KernelBench's PyTorch eager),
  /// "compile" (torch.compile of the model) or "cuda_graph" (the forward
  /// replayed as a CUDA graph; CUDA only).
  std::string baseline = "eager";
  int trials = 5;                // correctness trials (fresh seeds) before timing
  int warmup_calls = 2;          // at least, and at least warmup_s of calls
  double warmup_s = 0.1;
  double call_timeout_s = 10;    // one call of the candidate
  double compile_timeout_s = 120;
  double task_timeout_s = 600;   // importing the task and building the model
  stopping_config stopping;
  std::optional<uint64_t> seed;  // for reproducing a judgment; default: random
  /// A speedup above this is re-measured in fresh processes before it stands
  /// (CUDA-L1 re-checked anything above 3x); 0 turns the re-check off. It is
  /// rejected as unstable if the two differ by more than recheck_tolerance.
  double recheck_above = 3.0;
  /// Also re-measured: a speedup above this multiple of the best that has
  /// stood for the task on this device (kept in the cache folder); 0: never.
  double recheck_above_best = 2.0;
  double recheck_tolerance = 0.10;
  /// At most this many judgments in all before a speedup no two of them
  /// agree on is rejected as unstable (2: CUDA-L1's rule, the first and one
  /// re-measurement).
  int recheck_judgments = 5;
  /// The reference's working memory placed afresh every this many of its
  /// runs (0: never): on an H200, where its tensors landed moved an eager
  /// reference's time by up to 6.6% (bench/reference_placement.py), a
  /// factor fixed per process that a judgment's median otherwise inherits.
  int reference_replace_every = 0;
  /// An untimed call of the reference before a timed run, so that its
  /// Python dispatch runs with the host's caches warm, as in KernelBench's
  /// back-to-back trials: "on" before every timed run, "off" never, "auto"
  /// before the first 5 and then on where the fastest took under 1 ms (where
  /// the host's part of the window is large enough to matter), decided once.
  std::string reference_warm_call = "auto";
  /// An untimed call of the candidate before each of its timed calls that
  /// the reference's warm call matches, on the last call's inputs
  /// (warm_candidate): "on", "off", or "auto": on the CPU backend, where it is
  /// measured; off on CUDA until it is measured there.
  std::string candidate_warm_call = "auto";
  /// Timed pairs matched by the host's state (timing/host_match.h): where
  /// the reference takes under 1 ms, the speedup is taken over the pairs
  /// timed while the host ran at full speed (by the reference worker's probe
  /// after each window) where there are enough of them. "auto": on CUDA;
  /// "on"; "off": every pair, as timed.
  std::string host_match = "auto";
  /// Where matching is on and the reference's median is under 1 ms (where
  /// its Python dispatch weighs), how long the timing may run past its
  /// budget to find enough pairs at full speed.
  double host_wait_s = 3;
  /// When the reference worker times its host probe: "after" each timed
  /// window, or "both" right before it and after it, the slower of the two
  /// counting (a window during which the host changed speed is then less
  /// often read as at full speed). Its own levels in the cache.
  std::string host_probe = "after";
  /// Reject a candidate that launches no kernel of its own in the trials
  /// (only library kernels, or none): needs the kernel census (CUDA, CUPTI).
  bool require_custom_kernel = false;
  bool keep_scratch = false;
  /// The CPU both workers run on, so that the reference and the candidate
  /// see the same core (their medians otherwise drift apart with the host's
  /// load on separate cores): "auto" (on CUDA the last CPU this process may
  /// use; on the CPU backend none, as its reference and candidate may use
  /// threads), "none", or a CPU number. Judgments on several GPUs at once
  /// each need a CPU of their own.
  std::string cpu = "auto";
  /// For measuring what the defenses cost (judge_bench) only: false keeps the
  /// correctness trials as they are but then reuses one input set, checks no
  /// timed output, takes no kernel census or float64 check, and runs the
  /// candidate without the sandbox. The L2 flush and the timing stay.
  bool defenses = true;
  /// Fork reference workers from a long-lived server that has imported torch
  /// (also off when CUDAL1_REF_SERVER=0).
  bool reference_server = true;
  /// The task's code is not trusted (a server's inline reference code, a
  /// task from a dataset): its reference worker runs sealed as a candidate
  /// does (own namespaces, the unprivileged user, reads of the system and
  /// its own folder only, no processes), is started afresh (not forked
  /// from the reference server), and what it measured never enters the
  /// cache folder's calibration or FLOP counts.
  bool untrusted_task = false;
  /// Whether a correct verdict may raise the task's best speedup (off for a
  /// re-check's inner judgment: only a final verdict that stands does).
  bool record_best = true;
};

/// Where progress goes; the CLI prints it to stderr, tests ignore it.
class progress_sink {
 public:
  virtual ~progress_sink() = default;
  virtual void phase(const std::string& what) = 0;
};

/// Progress that goes nowhere (--json output, tests, benchmarks).
class no_progress : public progress_sink {
 public:
  void phase(const std::string&) override {}
};

/// Judges one candidate. A candidate's failure is a verdict in the judgment;
/// errors are failures of the setup (missing file, a task that does not
/// import, no Python with torch, no GPU for a .cu candidate).
result<judgment> judge_candidate(const std::string& task_path, const std::string& candidate_path,
                                 const judge_options& options, progress_sink& progress);

/// Audits a task: can it tell a real kernel from a trivial one? Runs the
/// reference on `seeds` fresh inputs and reports, as {"task", "backend",
/// "flags": [{"class", "evidence"}]}, the trivial outputs that would pass
/// (zeros, a constant, a copy of an input), outputs that do not depend on the
/// inputs, outputs below common tolerances, and a nondeterministic reference.
/// `flags` is empty for a sound task. Uses options.backend ("auto": the GPU
/// if the machine has one), python, profile.
result<nlohmann::json> audit_task(const std::string& task_path, int seeds, const judge_options& options,
                                  progress_sink& progress);

/// The reference alone, timed as a judgment times it.
struct reference_timing {
  std::string task_path, backend, profile, python, torch_version;
  std::vector<double> samples_ms;
  sample_summary summary;
  std::string stop_reason;
  /// As in a judgment, with fraction = floor over the reference's median.
  nlohmann::json speed_of_light = nullptr;
  nlohmann::json signature = nullptr;  // as judgment::signature
  double total_s = 0;
};

/// Times the reference of a task on options.backend ("auto": the GPU if the
/// machine has one): fresh inputs every call, the L2 flushed before each,
/// the judgment's warm-up and stopping rule (both sides being the reference).
result<reference_timing> time_reference(const std::string& task_path, const judge_options& options,
                                        progress_sink& progress);

/// The cache folder the options name: options.cache_dir, else default_cache_dir().
std::string cache_dir_of(const judge_options& options);

/// The backend "auto" means where no candidate file says: "cuda" when the
/// machine has an NVIDIA driver (/dev/nvidiactl), else "cpu".
std::string auto_backend();

/// Writes what a reference worker measured for the cache folder (its init
/// reply's cache_updates: "calibration", the device's figures, as
/// calibration-BACKEND.json; "flops" {key, flops}, merged into flops.json;
/// "host_level" {key, us}, the host's full-speed level, appended to the
/// machine's last 16 in host-levels.json).
/// judge_candidate() calls it for a final verdict that stands; errors are
/// ignored (the figures are measured again next time).
void write_cache_updates(const std::string& cache_dir, const nlohmann::json& updates, const std::string& backend);

/// A JSON object kept in the cache folder (flops.json, host-levels.json):
/// empty where the file is missing or not an object.
nlohmann::json cached_object(const std::string& path);

/// Changes such an object under a lock (path + ".lock"), so that judges
/// running at once (a suite run's workers) do not lose each other's entries:
/// `change` edits the object and says whether to write it back. Errors are
/// ignored, as for the caches.
void update_cached_object(const std::string& path, const std::function<bool(nlohmann::json&)>& change);

/// The CPUs a judgment's two workers are pinned to; -1: not pinned.
struct cpu_pins {
  int reference = -1;
  int candidate = -1;
};

/// The CPUs for options.cpu on `backend`: "auto" (on CUDA both workers on the
/// last CPU this process may use; on the CPU backend none), "none", "N" (both
/// on CPU N), "split" (the candidate on the last CPU, the reference on the
/// last CPU of another physical core, by /sys's topology) or "R,C" (the
/// reference on R, the candidate on C). Errors: not one of these, or a CPU
/// this process may not use.
result<cpu_pins> choose_cpus(const std::string& choice, const std::string& backend);

/// The reference's median when it ran first in its timed pair and when it
/// ran second (after the candidate), or null when either is missing: work
/// the candidate leaves behind (on the GPU, or on the CPU both share) slows
/// the reference that runs after it.
nlohmann::json order_effect(const std::vector<double>& ref_ms, const std::vector<bool>& ref_first);

/// After a first judgment rejected for a clock disagreement, whether a second
/// judgment, correct but with a clock check that could not vouch for the
/// window (`conclusive` false), clears it: only where that check found
/// nothing missing, its candidate's excess within its tolerance of the
/// probes' (not in the grey zone), over all pairs and over the full-speed
/// pairs alike. `judge_clock` is the second judgment's.
bool inconclusive_recheck_clears(const nlohmann::json& judge_clock);

/// Whether a judgment's window span showed the window short
/// (`window_disagrees`) over the pairs that were counted: the full-speed
/// pairs where the statistics kept those, else all pairs, and not in their
/// slow calls alone (`window_disagrees_in_slow_calls_only`: the calls'
/// slack's lower quartile within the tolerance of the probes'). Such a
/// judgment's calls were counted from the span, and it is not judged again
/// (a second judgment would only give a shaved window another draw).
bool span_disagreed(const nlohmann::json& judge_clock);

/// Where a second judgment stands in place of the first (a clock check
/// judged again), its compile check found the first's build in the cache:
/// how the first made it (its time, the precompiled header, a retry afresh)
/// is appended to that check's reason. Other checks are left as they are.
void say_first_build(judgment& second, const judgment& first);

/// The backend a candidate file runs on: "cuda" for .cu, "cpu" for .cpp/.cc;
/// checks an explicit choice against the extension.
result<std::string> resolve_backend(const std::string& candidate_path, const std::string& requested);

}  // namespace cudal1
