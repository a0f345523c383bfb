#include "timing/host_match.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "timing/stats.h"

namespace cudal1 {
namespace {

// A judgment's pairs on a host with two speeds, as the lent machines showed
// (bench/results/2026-12-05): the probe takes ~19 us at full speed and ~36
// at half, and each side's time is its device part plus a host part that
// scales with the probe (the reference's Python dispatch weighs more).
struct pairs {
  std::vector<double> probe_us, ref_ms, cand_ms;
};

pairs judgment_with(double slow_share, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> jitter(0, 0.01);
  std::uniform_real_distribution<double> u(0, 1);
  pairs p;
  // Phases, not coin flips: the first slow_share of the pairs run slow.
  for (int i = 0; i < n; ++i) {
    bool slow = i < slow_share * n;
    double probe = (slow ? 36 : 19) * (1 + jitter(rng));
    double scale = probe / 19;
    p.probe_us.push_back(probe);
    p.ref_ms.push_back((0.080 + 0.020 * scale) * (1 + jitter(rng)));
    p.cand_ms.push_back((0.027 + 0.001 * scale) * (1 + jitter(rng)));
  }
  return p;
}

double speedup(const std::vector<double>& ref, const std::vector<double>& cand) {
  return summarize_samples(ref).median_ms / summarize_samples(cand).median_ms;
}

TEST(HostMatch, SpeedupsOverFullSpeedPairsAgreeWhereTheirMixDoesNot) {
  std::vector<double> mixed, matched;
  const double known = 19;
  for (double share : {0.0, 0.3, 0.6, 0.8}) {
    pairs p = judgment_with(share, 200, 7 + static_cast<unsigned>(share * 10));
    mixed.push_back(speedup(p.ref_ms, p.cand_ms));
    host_match m = match_host(p.probe_us, known);
    ASSERT_TRUE(m.usable) << "slow share " << share;
    EXPECT_NEAR(m.count, 200 * (1 - share), 2);
    matched.push_back(speedup(kept(p.ref_ms, m.at_full_speed), kept(p.cand_ms, m.at_full_speed)));
  }
  auto spread = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end()) / *std::min_element(v.begin(), v.end());
  };
  EXPECT_GT(spread(mixed), 1.05);    // the share of slow pairs moves the speedup
  EXPECT_LT(spread(matched), 1.01);  // the pairs at full speed do not
}

TEST(HostMatch, AJudgmentAllSlowIsKnownSlowOnlyByTheMachinesLevel) {
  pairs p = judgment_with(1.0, 150, 3);
  // Its own level is the slow one: every pair is within it.
  host_match alone = match_host(p.probe_us, std::nullopt);
  EXPECT_TRUE(alone.usable);
  EXPECT_EQ(alone.count, 150);
  ASSERT_TRUE(alone.own_level_us);
  EXPECT_NEAR(*alone.own_level_us, 36, 2);
  // The machine has run at 19 us: none of these pairs is at full speed.
  host_match known = match_host(p.probe_us, 19.0);
  EXPECT_FALSE(known.usable);
  EXPECT_EQ(known.count, 0);
  EXPECT_DOUBLE_EQ(known.level_us, 19.0);
}

TEST(HostMatch, TooFewPairsAtFullSpeedAreNotUsed) {
  pairs p = judgment_with(0.9, 200, 5);  // 20 fast pairs
  host_match m = match_host(p.probe_us, 19.0);
  EXPECT_EQ(m.count, 20);
  EXPECT_FALSE(m.usable);
  host_match_config lower;
  lower.min_pairs = 20;
  EXPECT_TRUE(match_host(p.probe_us, 19.0, lower).usable);
}

TEST(HostMatch, OneFastGlitchSetsNoLevel) {
  std::vector<double> probes(100, 36.0);
  probes[40] = 5;  // a single probe far below the rest
  auto own = own_host_level(probes);
  ASSERT_TRUE(own);
  EXPECT_DOUBLE_EQ(*own, 36.0);
  EXPECT_FALSE(own_host_level(std::vector<double>(19, 20.0)));  // too few probes for a level
  // Missing probes (-1) are neither levels nor pairs at full speed.
  std::vector<double> some = {-1, -1, 20, 21};
  host_match m = match_host(some, std::nullopt);
  EXPECT_EQ(m.count, 2);
  EXPECT_FALSE(m.at_full_speed[0]);
  EXPECT_DOUBLE_EQ(m.level_us, 20);
  EXPECT_EQ(match_host(std::vector<double>{-1, -1}, std::nullopt).level_us, 0);
}

TEST(HostMatch, TheMachinesLevelIsTheSecondLowestOfItsRecentJudgments) {
  EXPECT_FALSE(known_host_level({}));
  EXPECT_DOUBLE_EQ(*known_host_level(std::vector<double>{30}), 30);
  EXPECT_DOUBLE_EQ(*known_host_level(std::vector<double>{30, 20}), 20);
  EXPECT_DOUBLE_EQ(*known_host_level(std::vector<double>{36, 19.5, 35, 2, 37}), 19.5);  // one low outlier cannot set it
  EXPECT_DOUBLE_EQ(*known_host_level(std::vector<double>{0, -3, 25, 24, 26}), 25);
}

TEST(HostMatch, KeptTakesTheMarkedEntriesInOrder) {
  std::vector<double> v = {1, 2, 3, 4};
  EXPECT_EQ(kept(v, {true, false, false, true}), (std::vector<double>{1, 4}));
  EXPECT_TRUE(kept(v, {false, false, false, false}).empty());
}

}  // namespace
}  // namespace cudal1
