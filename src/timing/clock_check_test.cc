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

TEST(ClockCheck, LargeWindowsGetARelativeTolerance) {
  auto a = compare_excess(around(0.2, 0.001, 20), around(0.6, 0.001, 200), 10.0);
  EXPECT_NEAR(a.tolerance_ms, 0.5, 0.01);
  EXPECT_TRUE(a.agrees);
}

}  // namespace
}  // namespace cudal1
