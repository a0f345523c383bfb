#include "timing/clock_check.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cudal1 {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The standard error of a median, from the median absolute deviation
// (1.4826 MAD estimates sigma; a median's error is 1.2533 sigma / sqrt(n)).
double median_error(std::span<const double> v, double median) {
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - median));
  return 1.2533 * 1.4826 * median_of(dev) / std::sqrt(static_cast<double>(v.size()));
}

}  // namespace

clock_agreement compare_excess(std::span<const double> probe_excess_ms, std::span<const double> candidate_excess_ms,
                               double candidate_median_ms) {
  clock_agreement a;
  a.overhead_ms = median_of({probe_excess_ms.begin(), probe_excess_ms.end()});
  a.excess_ms = median_of({candidate_excess_ms.begin(), candidate_excess_ms.end()});
  a.missing_ms = a.excess_ms - a.overhead_ms;
  double noise = std::hypot(median_error(probe_excess_ms, a.overhead_ms), median_error(candidate_excess_ms, a.excess_ms));
  a.tolerance_ms = std::max(0.05, 0.05 * candidate_median_ms) + 4 * noise;
  a.agrees = a.missing_ms <= a.tolerance_ms;
  return a;
}

}  // namespace cudal1
