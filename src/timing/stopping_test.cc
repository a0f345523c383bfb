#include "timing/stopping.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace cudal1 {
namespace {

/// Feeds pairs one at a time to should_stop and reports the first non-none
/// decision and the pair count at which it came.
struct stop_event {
  stop_reason reason = stop_reason::none;
  int samples = 0;
};

/// `next_pair` returns the next (ref, cand) pair; `elapsed_s_at(n)` the
/// measurement time after n pairs. Gives up after `limit` pairs.
template <class next_pair_fn, class elapsed_fn>
stop_event run_until_stop(const stopping_config& config, next_pair_fn next_pair,
                          elapsed_fn elapsed_s_at, int limit = 100000) {
  std::vector<double> ref_ms, cand_ms;
  for (int n = 1; n <= limit; ++n) {
    const auto [ref, cand] = next_pair();
    ref_ms.push_back(ref);
    cand_ms.push_back(cand);
    const stop_reason reason = should_stop(config, ref_ms, cand_ms, elapsed_s_at(n));
    if (reason != stop_reason::none) return {reason, n};
  }
  return {};
}

/// Deterministic uniform [0, 1) from mt19937 (whose output is standardized,
/// unlike std::uniform_real_distribution's).
struct uniform_source {
  std::mt19937 engine;
  explicit uniform_source(uint32_t seed) : engine(seed) {}
  double next() { return static_cast<double>(engine()) / 4294967296.0; }
};

TEST(stop_reason, has_stable_names) {
  EXPECT_EQ(std::string(to_string(stop_reason::none)), "none");
  EXPECT_EQ(std::string(to_string(stop_reason::converged)), "converged");
  EXPECT_EQ(std::string(to_string(stop_reason::time_budget)), "time_budget");
  EXPECT_EQ(std::string(to_string(stop_reason::max_samples)), "max_samples");
}

TEST(should_stop, constant_samples_converge_at_min_samples) {
  const stopping_config config;
  const stop_event event = run_until_stop(
      config, [] { return std::pair{1.0, 2.0}; }, [](int) { return 1.0; });
  EXPECT_EQ(event.reason, stop_reason::converged);
  EXPECT_EQ(event.samples, config.min_samples);
}

TEST(should_stop, constant_samples_wait_for_min_time) {
  stopping_config config;
  config.min_time_s = 0.25;
  // 10 ms per pair: min_time_s is reached at the 25th pair.
  const stop_event event = run_until_stop(
      config, [] { return std::pair{1.0, 2.0}; }, [](int n) { return n * 0.01; });
  EXPECT_EQ(event.reason, stop_reason::converged);
  EXPECT_EQ(event.samples, 25);
}

TEST(should_stop, never_converges_below_six_samples) {
  stopping_config config;
  config.min_samples = 1;
  config.min_time_s = 0;
  const stop_event event = run_until_stop(
      config, [] { return std::pair{1.0, 1.0}; }, [](int) { return 1.0; });
  EXPECT_EQ(event.reason, stop_reason::converged);
  EXPECT_EQ(event.samples, 6);
}

TEST(should_stop, noisy_samples_converge_later_but_before_max) {
  const stopping_config config;
  uniform_source uniform(12345);
  // 20% uniform noise on top of the true time.
  auto noisy_pair = [&] {
    const double ref = 1.0 * (1.0 + 0.2 * uniform.next());
    const double cand = 3.0 * (1.0 + 0.2 * uniform.next());
    return std::pair{ref, cand};
  };
  const stop_event event = run_until_stop(config, noisy_pair, [](int) { return 1.0; },
                                          config.max_samples);
  EXPECT_EQ(event.reason, stop_reason::converged);
  EXPECT_GT(event.samples, 10 * config.min_samples);
  EXPECT_LT(event.samples, config.max_samples);
}

TEST(should_stop, noisy_samples_do_not_converge_at_min_samples) {
  const stopping_config config;
  uniform_source uniform(7);
  std::vector<double> ref_ms, cand_ms;
  for (int i = 0; i < config.min_samples; ++i) {
    ref_ms.push_back(1.0 + 0.2 * uniform.next());
    cand_ms.push_back(1.0 + 0.2 * uniform.next());
  }
  EXPECT_EQ(should_stop(config, ref_ms, cand_ms, 1.0), stop_reason::none);
}

TEST(should_stop, needs_both_series_to_converge) {
  const stopping_config config;
  uniform_source uniform(99);
  std::vector<double> steady_ms, noisy_ms;
  for (int i = 0; i < 200; ++i) {
    steady_ms.push_back(1.0);
    noisy_ms.push_back(1.0 + 0.2 * uniform.next());
  }
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, 1.0), stop_reason::converged);
  EXPECT_EQ(should_stop(config, steady_ms, noisy_ms, 1.0), stop_reason::none);
  EXPECT_EQ(should_stop(config, noisy_ms, steady_ms, 1.0), stop_reason::none);
}

TEST(should_stop, looser_target_converges_sooner) {
  stopping_config tight;
  stopping_config loose;
  loose.target_ci_rel = 0.02;
  auto run = [](const stopping_config& config) {
    uniform_source uniform(2024);
    return run_until_stop(
        config, [&] { return std::pair{1.0 + 0.2 * uniform.next(), 1.0 + 0.2 * uniform.next()}; },
        [](int) { return 1.0; }, config.max_samples);
  };
  const stop_event tight_event = run(tight);
  const stop_event loose_event = run(loose);
  EXPECT_EQ(tight_event.reason, stop_reason::converged);
  EXPECT_EQ(loose_event.reason, stop_reason::converged);
  EXPECT_LT(loose_event.samples * 4, tight_event.samples);
}

TEST(should_stop, time_budget_stops_unconverged_stream) {
  stopping_config config;
  config.max_time_s = 4;
  uniform_source uniform(3);
  // 100 ms per pair with 50% noise: never converges within 40 pairs.
  const stop_event event = run_until_stop(
      config, [&] { return std::pair{1.0 + 0.5 * uniform.next(), 1.0 + 0.5 * uniform.next()}; },
      [](int n) { return n * 0.1; });
  EXPECT_EQ(event.reason, stop_reason::time_budget);
  EXPECT_EQ(event.samples, 40);
}

TEST(should_stop, time_budget_wins_over_convergence) {
  const stopping_config config;
  const std::vector<double> steady_ms(100, 1.0);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, config.max_time_s),
            stop_reason::time_budget);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, config.max_time_s - 0.01),
            stop_reason::converged);
  // Even before min_samples: the budget is absolute.
  const std::vector<double> two_ms(2, 1.0);
  EXPECT_EQ(should_stop(config, two_ms, two_ms, 10.0), stop_reason::time_budget);
}

TEST(should_stop, max_samples_stops_unconverged_stream) {
  stopping_config config;
  config.max_samples = 300;
  uniform_source uniform(5);
  const stop_event event = run_until_stop(
      config, [&] { return std::pair{1.0 + 0.5 * uniform.next(), 1.0 + 0.5 * uniform.next()}; },
      [](int) { return 1.0; });
  EXPECT_EQ(event.reason, stop_reason::max_samples);
  EXPECT_EQ(event.samples, 300);
}

TEST(should_stop, max_samples_wins_over_everything) {
  stopping_config config;
  config.max_samples = 50;
  const std::vector<double> steady_ms(50, 1.0);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, 100.0), stop_reason::max_samples);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, 1.0), stop_reason::max_samples);
}

TEST(should_stop, min_time_boundary_is_inclusive) {
  const stopping_config config;
  const std::vector<double> steady_ms(20, 1.0);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, config.min_time_s), stop_reason::converged);
  EXPECT_EQ(should_stop(config, steady_ms, steady_ms, config.min_time_s - 1e-9),
            stop_reason::none);
}

TEST(should_stop, mismatched_sizes_are_a_precondition_violation) {
  const stopping_config config;
  const std::vector<double> ten_ms(10, 1.0), eleven_ms(11, 1.0);
  EXPECT_DEBUG_DEATH(should_stop(config, ten_ms, eleven_ms, 1.0), "");
}

}  // namespace
}  // namespace cudal1
