#include "timing/clock_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cudal1 {
namespace {

std::vector<double> around(double center, double spread, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center + spread * ((i * 7919) % 101 - 50) / 50.0);
  return v;
}

TEST(ClockCheck, HonestCallsAgree) {
  auto probes = around(0.200, 0.02, 20), calls = around(0.205, 0.02, 200);
  clock_agreement a = compare_excess(probes, calls, 1.0);
  EXPECT_TRUE(a.agrees);
  EXPECT_NEAR(a.missing_ms, 0.005, 0.01);
}

TEST(ClockCheck, AWindowForgedToAThirdIsCaught) {
  // A 1.2 ms call reported as 0.4 ms: 0.8 ms more excess than the probes.
  auto probes = around(0.200, 0.02, 20), calls = around(1.000, 0.02, 200);
  clock_agreement a = compare_excess(probes, calls, 0.4);
  EXPECT_FALSE(a.agrees);
  EXPECT_NEAR(a.missing_ms, 0.8, 0.02);
}

TEST(ClockCheck, TheOrderOfAPairIsNotNoise) {
  // Probes half after the reference's run (0.26 ms dearer), half alone, each
  // order tight: mixed, the gap read as noise; taken out, the spread is the
  // requests' own and the centre the midpoint, as calls in random order.
  std::vector<double> probes;
  std::vector<bool> after;
  for (int i = 0; i < 16; ++i) {
    after.push_back(i % 2 == 1);
    probes.push_back((after.back() ? 1.26 : 1.00) + 0.002 * (i % 4));
  }
  auto calls = around(1.13, 0.01, 200);
  auto mixed = compare_excess(probes, calls, 2.5);
  auto adjusted_probes = order_adjusted(probes, after);
  auto adjusted = compare_excess(adjusted_probes, calls, 2.5);
  EXPECT_NEAR(adjusted.overhead_ms, 1.13 + 0.003, 0.005);
  EXPECT_LT(adjusted.tolerance_ms, mixed.tolerance_ms - 0.1);
  // A window forged by 0.3 ms shows against the adjusted probes, not the mixed.
  auto forged = around(1.43, 0.01, 200);
  EXPECT_FALSE(compare_excess(adjusted_probes, forged, 2.5).agrees);
  EXPECT_TRUE(compare_excess(probes, forged, 2.5).agrees);
}

TEST(ClockCheck, OneOrderAloneIsLeftAsItIs) {
  std::vector<double> probes = {1.0, 1.1, 1.2};
  EXPECT_EQ(order_adjusted(probes, {false, false, false}), probes);
  EXPECT_EQ(order_adjusted(probes, {true, false}), probes);  // a flag per probe, or none taken
}

TEST(ClockCheck, NoiseWidensTheTolerance) {
  auto quiet = compare_excess(around(0.2, 0.001, 20), around(0.2, 0.001, 200), 0.1);
  auto noisy = compare_excess(around(0.2, 0.5, 20), around(0.2, 0.5, 200), 0.1);
  EXPECT_NEAR(quiet.tolerance_ms, 0.05, 0.005);
  EXPECT_GT(noisy.tolerance_ms, quiet.tolerance_ms + 0.2);
}

// A forger's calls in a fixed cycle: 40% reported 0.1 ms longer than they
// took, 20% shaved by 0.2 ms, 40% by 0.5 ms. The median excess moves by
// 0.2 ms; the spread, the forger's to shape, would widen the tolerance over it.
std::vector<double> shaped_forgery(double overhead, int n) {
  static const char kCycle[] = "AMBABMBABAMBABMABABMBABAB";
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    char g = kCycle[i % 25];
    v.push_back(overhead + (g == 'A' ? -0.1 : g == 'M' ? 0.2 : 0.5) + 0.002 * (i % 5));
  }
  return v;
}

TEST(ClockCheck, TheCandidatesSpreadIsCapped) {
  auto probes = around(0.2, 0.04, 32);
  auto forged = shaped_forgery(0.2, 150);
  auto uncapped = compare_excess(probes, forged, 0.4);
  EXPECT_NEAR(uncapped.missing_ms, 0.2, 0.01);
  EXPECT_TRUE(uncapped.agrees);  // the attack, without the cap
  double probe_sigma = robust_sigma(probes);
  auto capped = compare_excess(probes, forged, 0.4, 3 * probe_sigma);
  EXPECT_TRUE(capped.spread_capped);
  EXPECT_GT(capped.candidate_spread_ms, 8 * probe_sigma);
  EXPECT_FALSE(capped.agrees);
  EXPECT_LT(capped.tolerance_ms, 0.1);
  // Honest calls twice as spread as the probes: the cap leaves them alone.
  auto honest = around(0.21, 0.08, 150);
  auto h = compare_excess(probes, honest, 0.4, 3 * probe_sigma);
  EXPECT_FALSE(h.spread_capped);
  EXPECT_TRUE(h.agrees);
  EXPECT_DOUBLE_EQ(h.tolerance_ms, compare_excess(probes, honest, 0.4).tolerance_ms);
}

TEST(ClockCheck, LargeWindowsGetARelativeTolerance) {
  auto a = compare_excess(around(0.2, 0.001, 20), around(0.6, 0.001, 200), 10.0);
  EXPECT_NEAR(a.tolerance_ms, 0.5, 0.01);
  EXPECT_TRUE(a.agrees);
}

}  // namespace
}  // namespace cudal1
