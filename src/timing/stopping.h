#pragma once

#include <span>

namespace cudal1 {

/// When to stop sampling a paired (reference, candidate) measurement.
struct stopping_config {
  int min_samples = 10;          // pairs
  int max_samples = 2000;        // pairs
  double min_time_s = 1.0;      // measurement wall time before we may stop
  double max_time_s = 2.0;       // time budget: stop regardless (keeps a warm judgment near 5 s)
  double target_ci_rel = 0.005;  // stop once both medians' CI half-width is within this
};

/// Why should_stop() said to stop; none means keep sampling.
enum class stop_reason { none, converged, time_budget, max_samples };

/// The reason's name: "none", "converged", "time_budget" or "max_samples".
const char* to_string(stop_reason reason);

/// Decides whether to stop after the paired samples so far (unsorted) and the
/// elapsed measurement time. Returns, in this order of precedence:
///   max_samples  if n >= max_samples;
///   time_budget  if elapsed_s >= max_time_s;
///   converged    if n >= min_samples, elapsed_s >= min_time_s, and
///                median_ci_rel() of both ref_ms and cand_ms is <= target_ci_rel
///                (never for n < 6, where median_ci_rel is infinite);
///   none         otherwise.
/// Precondition: ref_ms.size() == cand_ms.size() (asserted in debug builds;
/// in release builds n is the smaller size). Cost: O(n log n), one allocation.
stop_reason should_stop(const stopping_config& config, std::span<const double> ref_ms,
                        std::span<const double> cand_ms, double elapsed_s);

}  // namespace cudal1
