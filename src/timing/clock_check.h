// Whether the worker's own timing agrees with the judge's clock.
#pragma once

#include <limits>
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
  double candidate_spread_ms = 0;  // the candidate's excess: robust sigma, as measured
  bool spread_capped = false;      // that spread was above the cap, and the cap stood for it
  bool agrees = true;
};

/// Sigma from the median absolute deviation (1.4826 MAD); 0 for none.
double robust_sigma(std::span<const double> v);

/// The tolerance: max(0.05 ms, 5% of the candidate's median window), plus
/// four standard errors of the difference of the two medians (from each
/// side's median absolute deviation). The candidate's side counts at most
/// `candidate_spread_cap_ms`: its spread is the candidate's to shape (an
/// attack review: calls shaved by 0.2-0.5 ms and others lengthened by 0.1,
/// in a fixed cycle, moved the median by 0.2 ms while their spread, ten
/// times the probes', widened the tolerance to 0.23 ms, and the forged
/// window stood at 1.5x the honest speedup).
/// Precondition: both non-empty.
clock_agreement compare_excess(std::span<const double> probe_excess_ms, std::span<const double> candidate_excess_ms,
                               double candidate_median_ms,
                               double candidate_spread_cap_ms = std::numeric_limits<double>::infinity());

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
