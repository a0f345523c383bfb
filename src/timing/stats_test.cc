#include "timing/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cudal1 {
namespace {

TEST(sorted_quantile, interpolates_between_order_statistics) {
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(sorted_quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(sorted_quantile(x, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(sorted_quantile(x, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(sorted_quantile(x, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(sorted_quantile(x, 0.75), 3.25);
  const std::vector<double> y = {0, 10};
  EXPECT_DOUBLE_EQ(sorted_quantile(y, 0.1), 1.0);
  const std::vector<double> z = {7};
  EXPECT_DOUBLE_EQ(sorted_quantile(z, 0.3), 7.0);
}

TEST(summarize_samples, computes_every_field_of_unsorted_input) {
  const std::vector<double> samples_ms = {4, 1, 3, 2};
  const sample_summary s = summarize_samples(samples_ms);
  EXPECT_EQ(s.samples, 4);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 4.0);
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.p25_ms, 1.75);
  EXPECT_DOUBLE_EQ(s.p75_ms, 3.25);
  EXPECT_DOUBLE_EQ(s.stdev_ms, std::sqrt(5.0 / 3.0));
  EXPECT_DOUBLE_EQ(s.rel_iqr, 0.6);
  EXPECT_TRUE(std::isinf(s.median_ci_rel));  // n < 6
  EXPECT_EQ(samples_ms, (std::vector<double>{4, 1, 3, 2}));  // input untouched
}

TEST(summarize_samples, odd_count_median_is_middle_element) {
  const std::vector<double> samples_ms = {9, 1, 5, 3, 7};
  const sample_summary s = summarize_samples(samples_ms);
  EXPECT_DOUBLE_EQ(s.median_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.p25_ms, 3.0);
  EXPECT_DOUBLE_EQ(s.p75_ms, 7.0);
  EXPECT_DOUBLE_EQ(s.stdev_ms, std::sqrt(10.0));
}

TEST(summarize_samples, single_sample_has_zero_spread) {
  const std::vector<double> samples_ms = {5};
  const sample_summary s = summarize_samples(samples_ms);
  EXPECT_EQ(s.samples, 1);
  EXPECT_DOUBLE_EQ(s.median_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.p25_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.p75_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.stdev_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.rel_iqr, 0.0);
}

TEST(summarize_samples, constant_samples_have_zero_relative_spread) {
  const std::vector<double> samples_ms(50, 2.0);
  const sample_summary s = summarize_samples(samples_ms);
  EXPECT_DOUBLE_EQ(s.stdev_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.rel_iqr, 0.0);
  EXPECT_DOUBLE_EQ(s.median_ci_rel, 0.0);
}

TEST(summarize_samples, all_zero_samples_are_not_nan) {
  const std::vector<double> samples_ms(10, 0.0);
  const sample_summary s = summarize_samples(samples_ms);
  EXPECT_DOUBLE_EQ(s.rel_iqr, 0.0);
  EXPECT_DOUBLE_EQ(s.median_ci_rel, 0.0);
}

TEST(summarize_samples, empty_input_is_a_precondition_violation) {
  EXPECT_DEBUG_DEATH(summarize_samples({}), "");
}

TEST(median_ci_rel, too_few_samples_is_infinite) {
  const std::vector<double> x = {1, 1, 1, 1, 1};
  EXPECT_TRUE(std::isinf(median_ci_rel(x)));
  EXPECT_TRUE(std::isinf(median_ci_rel({})));
}

TEST(median_ci_rel, uses_order_statistics_around_the_median) {
  // n = 6: lo = floor(3 - 2.40) = 0, hi = ceil(3 + 2.40) = 6 -> clamped to 5.
  const std::vector<double> six = {1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(median_ci_rel(six), 5.0 / 7.0);

  // n = 16: lo = floor(8 - 3.92) = 4, hi = ceil(8 + 3.92) = 12.
  std::vector<double> sixteen;
  for (int i = 0; i < 16; ++i) sixteen.push_back(10 + i);
  EXPECT_DOUBLE_EQ(median_ci_rel(sixteen), (22.0 - 14.0) / (2 * 17.5));

  // n = 100: lo = floor(50 - 9.8) = 40, hi = ceil(50 + 9.8) = 60.
  std::vector<double> hundred;
  for (int i = 0; i < 100; ++i) hundred.push_back(i + 1);
  EXPECT_DOUBLE_EQ(median_ci_rel(hundred), (61.0 - 41.0) / (2 * 50.5));
}

TEST(median_ci_rel, shrinks_as_samples_grow) {
  // Uniform grid on [1, 2]: the interval narrows like 1/sqrt(n).
  auto grid = [](int n) {
    std::vector<double> x;
    for (int i = 0; i < n; ++i) x.push_back(1.0 + static_cast<double>(i) / (n - 1));
    return x;
  };
  const double small = median_ci_rel(grid(100));
  const double large = median_ci_rel(grid(1600));
  EXPECT_GT(small, large * 3.5);
  EXPECT_LT(small, large * 4.5);
}

TEST(median_ci_rel, zero_median_with_spread_is_infinite) {
  const std::vector<double> x = {0, 0, 0, 0, 1, 1};
  EXPECT_TRUE(std::isinf(median_ci_rel(x)));
}

TEST(speedup_error_rel, zero_for_a_steady_ratio_even_when_both_sides_drift) {
  // Both sides slow down together (a drifting machine): every block's ratio is 2.
  std::vector<double> ref, cand;
  for (int i = 0; i < 64; ++i) {
    double speed = 1.0 + 0.5 * (i / 16);
    ref.push_back(2.0 * speed);
    cand.push_back(speed);
  }
  EXPECT_NEAR(speedup_error_rel(ref, cand), 0.0, 1e-12);
}

TEST(speedup_error_rel, sees_drift_that_the_median_interval_does_not) {
  // The reference is slow for the second half of the judgment: the blocks'
  // speedups are 2 and 3, so the error is their spread over sqrt(8).
  std::vector<double> ref, cand(80, 1.0);
  for (int i = 0; i < 80; ++i) ref.push_back(i < 40 ? 2.0 : 3.0);
  double mean = 2.5, sd = std::sqrt(4 * 0.25 * 2 / 7.0);  // four blocks at 2, four at 3
  EXPECT_NEAR(speedup_error_rel(ref, cand), sd / mean / std::sqrt(8.0), 1e-12);
}

TEST(speedup_error_rel, infinite_without_enough_pairs_or_with_unequal_sides) {
  std::vector<double> few(31, 1.0), more(32, 1.0);
  EXPECT_TRUE(std::isinf(speedup_error_rel(few, few)));
  EXPECT_FALSE(std::isinf(speedup_error_rel(more, more)));
  EXPECT_TRUE(std::isinf(speedup_error_rel(more, few)));
}

}  // namespace
}  // namespace cudal1
