// Whether the worker's own timing agrees with the judge's clock.
#pragma once

#include <span>
#include <vector>

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

/// Probes of one length, half of them right after a run of the reference
/// (`after`, per probe), as half the timed calls are: each taken about its
/// own order's median and recentred on the midpoint of the two orders'
/// medians, where the median of calls in random order sits. Their spread is
/// then the requests' own: mixed as they are, the gap between the orders
/// would count as noise and widen the tolerance (on a 2-core VM a Python
/// worker's requests cost 0.26 ms more after the reference's run, and a
/// ModelNew taking 20% off its window passed). Where either order has no
/// probe, the probes as they are.
std::vector<double> order_adjusted(std::span<const double> excess_ms, const std::vector<bool>& after);

}  // namespace cudal1
