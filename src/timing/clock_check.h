// Whether the worker's own timing agrees with the judge's clock.
#pragma once

#include <span>

namespace cudal1 {

/// The judge's clock against the worker's window, per call: the excess is
/// the judge's time for a call's requests less the window the worker
/// reported. Honest calls have the excess of a no-op call (probes, timed
/// before the candidate loaded); a forged window or work moved into the
/// requests around it shows as more.
struct clock_agreement {
  double overhead_ms = 0;   // median excess of the probes
  double excess_ms = 0;     // median excess of the candidate's timed calls
  double missing_ms = 0;    // excess_ms - overhead_ms: time the window does not account for
  double tolerance_ms = 0;  // what noise allows
  bool agrees = true;
};

/// The tolerance: max(0.05 ms, 5% of the candidate's median window), plus
/// four standard errors of the difference of the two medians (from each
/// side's median absolute deviation).
/// Precondition: both non-empty.
clock_agreement compare_excess(std::span<const double> probe_excess_ms, std::span<const double> candidate_excess_ms,
                               double candidate_median_ms);

}  // namespace cudal1
