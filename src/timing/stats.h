#pragma once

#include <span>

namespace cudal1 {

/// Summary of a set of timing samples (milliseconds).
struct sample_summary {
  int samples = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  double p25_ms = 0, p75_ms = 0;  // quartiles (linear interpolation between order statistics)
  double stdev_ms = 0;            // sample standard deviation (n-1); 0 for n < 2
  double rel_iqr = 0;             // (p75 - p25) / median; 0 if the IQR is 0, +inf if only the median is 0
  double median_ci_rel = 0;       // see median_ci_rel(); +inf for fewer than 6 samples
};

/// Summarizes samples (any order; the input is not modified).
/// Precondition: samples_ms non-empty, all finite and >= 0 (asserted in debug
/// builds; an empty span yields a default summary in release builds).
sample_summary summarize_samples(std::span<const double> samples_ms);

/// Quantile q of already-sorted (ascending) data, interpolating linearly
/// between the order statistics at positions floor(q*(n-1)) and ceil(q*(n-1)).
/// Preconditions: sorted non-empty and ascending; q in [0, 1] (asserted in
/// debug builds; q is clamped to [0, 1] in release builds).
double sorted_quantile(std::span<const double> sorted, double q);

/// Relative half-width of the distribution-free ~95% confidence interval of the
/// median, from order statistics: with n sorted samples,
/// lo = floor(n/2 - 0.98*sqrt(n)), hi = ceil(n/2 + 0.98*sqrt(n)), both clamped
/// to [0, n-1]; returns (x[hi] - x[lo]) / (2 * median).
/// Returns +infinity for n < 6 (too few samples to say), 0 if x[hi] == x[lo],
/// and +infinity if the median is 0 but the interval is not.
/// Precondition: sorted ascending, values finite and >= 0.
double median_ci_rel(std::span<const double> sorted);

/// The relative standard error of a speedup (reference median over candidate
/// median) from paired samples in call order, by batch means: the pairs are
/// cut into `blocks` runs of consecutive calls, each run gives a speedup
/// (its reference median over its candidate median), and the error is the
/// standard deviation of those over their mean and sqrt(blocks). Unlike the
/// median's confidence interval, which assumes independent samples, this
/// sees a machine whose speed drifts over a judgment (a reference driven by
/// Python is such a case: runs of slower calls seconds long).
/// Returns +infinity with fewer than 4 pairs per block, or unequal inputs.
double speedup_error_rel(std::span<const double> ref_ms, std::span<const double> cand_ms, int blocks = 8);

}  // namespace cudal1
