#include "timing/stopping.h"

#include <algorithm>
#include <cassert>
#include <vector>

#include "timing/stats.h"

namespace cudal1 {

const char* to_string(stop_reason reason) {
  switch (reason) {
    case stop_reason::none: return "none";
    case stop_reason::converged: return "converged";
    case stop_reason::time_budget: return "time_budget";
    case stop_reason::max_samples: return "max_samples";
  }
  return "unknown";
}

namespace {

/// Whether the median CI of `samples_ms` is within `target_ci_rel`; `scratch`
/// is reused storage for the sorted copy.
bool is_median_tight(std::span<const double> samples_ms, double target_ci_rel,
                     std::vector<double>& scratch) {
  scratch.assign(samples_ms.begin(), samples_ms.end());
  std::sort(scratch.begin(), scratch.end());
  return median_ci_rel(scratch) <= target_ci_rel;
}

}  // namespace

stop_reason should_stop(const stopping_config& config, std::span<const double> ref_ms,
                        std::span<const double> cand_ms, double elapsed_s) {
  assert(ref_ms.size() == cand_ms.size());
  const size_t n = std::min(ref_ms.size(), cand_ms.size());
  ref_ms = ref_ms.first(n);
  cand_ms = cand_ms.first(n);

  if (static_cast<long>(n) >= config.max_samples) return stop_reason::max_samples;
  if (elapsed_s >= config.max_time_s) return stop_reason::time_budget;
  if (static_cast<long>(n) < config.min_samples || elapsed_s < config.min_time_s) {
    return stop_reason::none;  // cheap exit: no sorting needed
  }
  std::vector<double> scratch;
  scratch.reserve(n);
  if (is_median_tight(ref_ms, config.target_ci_rel, scratch) &&
      is_median_tight(cand_ms, config.target_ci_rel, scratch)) {
    return stop_reason::converged;
  }
  return stop_reason::none;
}

}  // namespace cudal1
