// A judgment: the verdict on one candidate for one task, with the evidence.
// Measurement fills it; report/ only renders it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timing/stats.h"

namespace cudal1 {

enum class verdict { correct, incorrect, compile_error, runtime_error, timeout, rejected };
/// Stable strings, stored and printed: "correct", "incorrect", ...
const char* to_string(verdict v);

/// One check the judge made, passed or not.
struct check_result {
  std::string name;    // stable: "compile", "entry_point", "correctness", ...
  bool pass = false;
  std::string reason;  // one line
};

/// A reward hack the judge caught, and what gave it away.
struct hack_evidence {
  std::string cls;       // stable: "background_thread", "replay", "input_modification", ...
  std::string evidence;  // one line
};

/// Timing of one side (reference or candidate).
struct side_timing {
  std::vector<double> samples_ms;  // device window per measured call
  std::vector<double> wall_ms;     // the judge's own clock around each measured call
  std::optional<sample_summary> summary;
};

/// The worst error figures over every checked call.
struct error_figures {
  bool measured = false;
  std::optional<double> max_abs, max_rel, rel_norm;  // empty: infinite
};

struct judgment {
  verdict outcome = verdict::runtime_error;
  std::string message;  // why, for anything but correct (trimmed compiler output, the crash)
  std::optional<double> speedup;
  std::optional<double> recheck_speedup;  // the re-measurement in fresh processes, when there was one
  std::optional<double> recheck_third_speedup;  // a third, where the first two did not agree
  /// Each re-measurement's own figures (recheck_figures): its verdict and
  /// message, speedup, both medians, the host's state and its clock checks,
  /// so that a re-check that lowered or overruled the first can be traced
  /// (its whole JSON is not kept).
  nlohmann::json rechecks = nlohmann::json::array();
  /// A first judgment that this one, judged again in fresh processes,
  /// replaced (its clock disagreed or could not tell, or its reference was
  /// lost after the candidate's code ran): its figures, as in `rechecks`.
  nlohmann::json earlier_judgments = nlohmann::json::array();
  /// The speedup's relative standard error (speedup_error_rel(): batch means
  /// over the timed pairs in call order); empty with too few pairs.
  std::optional<double> speedup_error_rel;
  /// The CPUs the candidate's and the reference's workers were pinned to
  /// (-1: not pinned; the same CPU by default).
  int cpu = -1;
  int reference_cpu = -1;
  side_timing reference, candidate;
  error_figures error;
  std::vector<check_result> checks;
  std::vector<hack_evidence> hacks;
  nlohmann::json audit = nlohmann::json::array();  // static-screen findings (audit_hits_json)
  /// {floor_ms, fraction (floor over the candidate's median), bytes, flops,
  /// bandwidth_bytes_per_s, peak_flops_per_s, calibration}; null when unknown.
  nlohmann::json speed_of_light = nullptr;
  /// The kernels the candidate launched in its correctness trials
  /// (summarize_census()), or {"available": false, "reason"}; null before the trials.
  nlohmann::json kernels = nullptr;
  nlohmann::json device = nlohmann::json::object();
  /// {policy, reference ("float64" or why not), reference_rel_norm (the worst
  /// distance of PyTorch's policy-precision reference from float64 in the trials)}.
  nlohmann::json precision = nlohmann::json::object();
  std::string backend;
  std::string baseline = "eager";  // what the reference was timed as (judge_options::baseline)
  std::string task_path, candidate_path;
  std::string profile;  // size profile used, empty for the task's own sizes
  std::string python, torch_version;
  bool compile_cached = false;
  double compile_s = 0;
  int calls = 0;         // calls of the candidate, all checked
  int trials = 0;        // correctness trials before timing
  std::string stop_reason;
  uint64_t seed = 0;
  double total_s = 0;
  /// Where the time went, in order: start, compile, reference, load, trials,
  /// warmup, timing, finish (seconds, wall clock of the judge).
  std::vector<std::pair<std::string, double>> phases_s;
  /// The worker requests in each phase: {phase: {"reference"|"candidate":
  /// {op: {"count", "ms"}}}}, ms the judge's whole time in them; the rest of
  /// a phase is the judge's own work and the waits outside requests.
  nlohmann::json phase_requests = nlohmann::json::object();
  /// The reference worker's own init steps (seconds): import_task,
  /// build_model, first_forward, float64_model, exchange, flops, calibration.
  nlohmann::json reference_init_s = nullptr;
  /// The task's tensors as the reference reports them: {"inputs", "params",
  /// "outputs"}, each a list of {"name", "dtype", "shape"} (the optimizer's
  /// task card); null when the reference did not load.
  nlohmann::json signature = nullptr;
  /// How the reference worker checks outputs: "fused CUDA kernels", or
  /// "PyTorch operations" with the reason.
  std::string output_check;
  /// The judge's wall clock around each kind of worker request of the call
  /// loop (prepare, reference_run, stage, run, collect, check), per call.
  std::map<std::string, std::vector<double>> requests_ms;
  /// The reference's median by its place in the timed pairs (order_effect()).
  nlohmann::json reference_order = nullptr;
  /// How many placements of the reference's working memory its runs saw
  /// (judge_options::reference_replace_every; 1 where it was never moved).
  int reference_placements = 0;
  /// How many of the reference's timed runs followed an untimed warm call
  /// (judge_options::reference_warm_call).
  int reference_warm_calls = 0;
  /// How many of the candidate's timed calls followed an untimed warm call of
  /// its own: one for each of the reference's, on the last call's inputs.
  int candidate_warm_calls = 0;
  /// The host's state over the timed phase, to tell its speed from the
  /// kernels' (diagnostics, not judged): "reference_probe_us", per timed
  /// pair, a fixed piece of pure Python the reference worker timed just
  /// after its window; "cpus", for each worker's CPU, what /proc/stat counted
  /// over the phase (seconds busy, idle and stolen by the hypervisor).
  nlohmann::json host = nullptr;
  /// What the reference worker measured for the cache folder (a device
  /// calibration, a task's FLOP count), for the judge to write once the
  /// judgment's final verdict stands (write_cache_updates()); not reported.
  nlohmann::json cache_updates = nlohmann::json::object();
  /// The judge's clock against the worker's window (see timing/clock_check.h).
  nlohmann::json judge_clock = nullptr;
  /// The layers an untrusted task's reference worker ran under (null: a
  /// trusted task, its reference not sealed).
  nlohmann::json reference_sandbox = nullptr;
  /// How the candidate's worker started: "spawned" (the judge's own
  /// process), "forked" (a ModelNew worker from the candidate server).
  std::string candidate_start = "spawned";
};

}  // namespace cudal1
