#include "timing/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

namespace cudal1 {

double sorted_quantile(std::span<const double> sorted, double q) {
  assert(!sorted.empty());
  assert(q >= 0.0 && q <= 1.0);
  if (sorted.empty()) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(position));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lo);
  return sorted[lo] + fraction * (sorted[hi] - sorted[lo]);
}

double median_ci_rel(std::span<const double> sorted) {
  const auto n = static_cast<long>(sorted.size());
  if (n < 6) return std::numeric_limits<double>::infinity();
  const double half = static_cast<double>(n) / 2.0;
  const double spread = 0.98 * std::sqrt(static_cast<double>(n));
  const long lo = std::clamp(static_cast<long>(std::floor(half - spread)), 0L, n - 1);
  const long hi = std::clamp(static_cast<long>(std::ceil(half + spread)), 0L, n - 1);
  const double width = sorted[hi] - sorted[lo];
  if (width == 0.0) return 0.0;
  const double median = sorted_quantile(sorted, 0.5);
  if (median == 0.0) return std::numeric_limits<double>::infinity();
  return width / (2.0 * median);
}

sample_summary summarize_samples(std::span<const double> samples_ms) {
  assert(!samples_ms.empty());
  sample_summary summary;
  if (samples_ms.empty()) return summary;

  std::vector<double> sorted(samples_ms.begin(), samples_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());

  summary.samples = static_cast<int>(sorted.size());
  summary.min_ms = sorted.front();
  summary.max_ms = sorted.back();
  summary.median_ms = sorted_quantile(sorted, 0.5);
  summary.p25_ms = sorted_quantile(sorted, 0.25);
  summary.p75_ms = sorted_quantile(sorted, 0.75);

  double sum_ms = 0;
  for (double x : sorted) sum_ms += x;
  summary.mean_ms = sum_ms / n;
  if (sorted.size() >= 2) {
    double sum_squares = 0;  // two-pass: numerically stable
    for (double x : sorted) sum_squares += (x - summary.mean_ms) * (x - summary.mean_ms);
    summary.stdev_ms = std::sqrt(sum_squares / (n - 1));
  }

  const double iqr_ms = summary.p75_ms - summary.p25_ms;
  if (iqr_ms == 0.0) {
    summary.rel_iqr = 0.0;
  } else if (summary.median_ms == 0.0) {
    summary.rel_iqr = std::numeric_limits<double>::infinity();
  } else {
    summary.rel_iqr = iqr_ms / summary.median_ms;
  }
  summary.median_ci_rel = median_ci_rel(sorted);
  return summary;
}

double speedup_error_rel(std::span<const double> ref_ms, std::span<const double> cand_ms, int blocks) {
  const double inf = std::numeric_limits<double>::infinity();
  if (ref_ms.size() != cand_ms.size() || blocks < 2 || ref_ms.size() < 4 * static_cast<size_t>(blocks)) return inf;
  std::vector<double> speedups, ref, cand;
  for (int b = 0; b < blocks; ++b) {
    size_t from = ref_ms.size() * b / blocks, to = ref_ms.size() * (b + 1) / blocks;
    ref.assign(ref_ms.begin() + from, ref_ms.begin() + to);
    cand.assign(cand_ms.begin() + from, cand_ms.begin() + to);
    std::sort(ref.begin(), ref.end());
    std::sort(cand.begin(), cand.end());
    double c = sorted_quantile(cand, 0.5);
    if (!(c > 0)) return inf;
    speedups.push_back(sorted_quantile(ref, 0.5) / c);
  }
  double mean = 0;
  for (double s : speedups) mean += s;
  mean /= blocks;
  double ss = 0;
  for (double s : speedups) ss += (s - mean) * (s - mean);
  if (!(mean > 0)) return inf;
  return std::sqrt(ss / (blocks - 1)) / mean / std::sqrt(static_cast<double>(blocks));
}

}  // namespace cudal1
