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


}  // namespace

double robust_sigma(std::span<const double> v) {
  if (v.empty()) return 0;
  double median = median_of({v.begin(), v.end()});
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - median));
  return 1.4826 * median_of(dev);
}

std::vector<double> order_adjusted(std::span<const double> excess_ms, const std::vector<bool>& after) {
  std::vector<double> by_order[2];
  for (size_t i = 0; i < excess_ms.size() && i < after.size(); ++i) by_order[after[i] ? 1 : 0].push_back(excess_ms[i]);
  if (by_order[0].empty() || by_order[1].empty() || after.size() != excess_ms.size())
    return {excess_ms.begin(), excess_ms.end()};
  const double median[2] = {median_of(by_order[0]), median_of(by_order[1])};
  const double midpoint = (median[0] + median[1]) / 2;
  std::vector<double> out;
  for (size_t i = 0; i < excess_ms.size(); ++i) out.push_back(excess_ms[i] - median[after[i] ? 1 : 0] + midpoint);
  return out;
}

clock_agreement compare_excess(std::span<const double> probe_excess_ms, std::span<const double> candidate_excess_ms,
                               double candidate_median_ms, double candidate_spread_cap_ms) {
  clock_agreement a;
  // The probes' median, as the candidate's. (Their lower quartile rejected
  // four honest solutions on an H200, whose excess sat 0.03-0.1 ms above the
  // probes'; the first probes of a worker, slower on a 2-core VM, are not
  // kept, so a batch of them no longer lets a forged window through.)
  a.overhead_ms = median_of({probe_excess_ms.begin(), probe_excess_ms.end()});
  a.excess_ms = median_of({candidate_excess_ms.begin(), candidate_excess_ms.end()});
  a.missing_ms = a.excess_ms - a.overhead_ms;
  // A median's standard error is 1.2533 sigma / sqrt(n).
  auto n = [](std::span<const double> v) { return std::sqrt(static_cast<double>(v.size())); };
  a.candidate_spread_ms = robust_sigma(candidate_excess_ms);
  a.spread_capped = a.candidate_spread_ms > candidate_spread_cap_ms;
  const double spread = a.spread_capped ? candidate_spread_cap_ms : a.candidate_spread_ms;
  double noise = std::hypot(1.2533 * robust_sigma(probe_excess_ms) / n(probe_excess_ms),
                            1.2533 * spread / n(candidate_excess_ms));
  a.tolerance_ms = std::max(0.05, 0.05 * candidate_median_ms) + 4 * noise;
  a.agrees = a.missing_ms <= a.tolerance_ms;
  return a;
}

}  // namespace cudal1
