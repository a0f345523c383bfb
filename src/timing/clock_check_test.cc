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
