#include "optimize/reward.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace cudal1 {
namespace {

using nlohmann::json;

TEST(RewardTest, SpeedupAboveOneRoundsDown) {
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.118), 1.11);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.237), 1.23);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.004), 1.0);  // noise is no win
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 3.999), 3.99);
}

TEST(RewardTest, SpeedupBelowOneRoundsUp) {
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.992), 1.0);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.876), 0.88);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.401), 0.41);
}

TEST(RewardTest, ExactStepsStayPut) {
  // 1.23 / 0.01 is 122.99999999999999 in binary: still 1.23, not 1.22.
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.23), 1.23);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.88), 0.88);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.0), 1.0);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.29), 0.29);
}

TEST(RewardTest, OtherSteps) {
  reward_options o;
  o.round_to = 0.1;
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.19, o), 1.1);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.81, o), 0.9);
  o.round_to = 0.25;
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.7, o), 1.5);
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 0.3, o), 0.5);
  o.round_to = 0;  // no rounding
  EXPECT_DOUBLE_EQ(kernel_reward("correct", 1.2345, o), 1.2345);
}

TEST(RewardTest, FloorsForKernelsThatAreNotCorrect) {
  for (const char* v : {"incorrect", "runtime_error", "timeout", "compile_error", "", "no_such_verdict"})
    EXPECT_EQ(kernel_reward(v, 5.0), 0) << v;
  reward_options o;
  o.incorrect_floor = -0.5;
  EXPECT_EQ(kernel_reward("timeout", std::nullopt, o), -0.5);
}

TEST(RewardTest, HackPenaltyBelowIncorrect) {
  EXPECT_EQ(kernel_reward("rejected", 12.7), -1);
  EXPECT_LT(kernel_reward("rejected", 12.7), kernel_reward("incorrect", std::nullopt));
}

TEST(RewardTest, CorrectWithoutUsableSpeedup) {
  EXPECT_EQ(kernel_reward("correct", std::nullopt), 1);
  EXPECT_EQ(kernel_reward("correct", 0.0), 0);
  EXPECT_EQ(kernel_reward("correct", -2.0), 0);
  EXPECT_EQ(kernel_reward("correct", std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(kernel_reward("correct", std::numeric_limits<double>::infinity()), 0);
}

TEST(RewardTest, FromJudgmentJson) {
  EXPECT_DOUBLE_EQ(kernel_reward(json{{"verdict", "correct"}, {"speedup", 2.345}}), 2.34);
  EXPECT_EQ(kernel_reward(json{{"verdict", "rejected"}, {"speedup", 40.0}}), -1);
  EXPECT_EQ(kernel_reward(json{{"verdict", "incorrect"}, {"speedup", nullptr}}), 0);
  EXPECT_EQ(kernel_reward(json{{"verdict", "correct"}, {"speedup", nullptr}}), 1);
  EXPECT_EQ(kernel_reward(json::object()), 0);
  EXPECT_EQ(kernel_reward(json(nullptr)), 0);
  EXPECT_EQ(kernel_reward(json{{"verdict", 3}, {"speedup", "fast"}}), 0);
}

TEST(RewardTest, GroupNormalizationByHand) {
  // Rewards 1, 2, 3, 4: mean 2.5; deviations -1.5, -0.5, 0.5, 1.5; variance
  // (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25; sd 1.1180.
  const auto g = group_rewards({1, 2, 3, 4});
  ASSERT_EQ(g.size(), 4u);
  EXPECT_NEAR(g[0], -1.3416407865, 1e-9);
  EXPECT_NEAR(g[1], -0.4472135955, 1e-9);
  EXPECT_NEAR(g[2], 0.4472135955, 1e-9);
  EXPECT_NEAR(g[3], 1.3416407865, 1e-9);
  // Order does not matter; a hack's -1 pulls the others up.
  const auto h = group_rewards({1.5, -1, 0, 1.5});
  // mean 0.5; deviations 1, -1.5, -0.5, 1; variance (1 + 2.25 + 0.25 + 1) / 4 = 1.125; sd 1.0607.
  EXPECT_NEAR(h[0], 0.9428090416, 1e-9);
  EXPECT_NEAR(h[1], -1.4142135624, 1e-9);
  EXPECT_NEAR(h[2], -0.4714045208, 1e-9);
  EXPECT_NEAR(h[3], 0.9428090416, 1e-9);
}

TEST(RewardTest, GroupOfTwoIsMinusOnePlusOne) {
  const auto g = group_rewards({0.88, 2.5});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_NEAR(g[0], -1, 1e-12);
  EXPECT_NEAR(g[1], 1, 1e-12);
}

TEST(RewardTest, GroupClipping) {
  // 0 x 9 and 10: mean 1, deviations -1 (x9) and 9, variance (9 + 81) / 10 = 9, sd 3:
  // -1/3 for the nine, 3 for the outlier, clipped to 1.5.
  std::vector<double> r(9, 0.0);
  r.push_back(10);
  const auto g = group_rewards(r);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(g[i], -1.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(g[9], 1.5);
  reward_options o;
  o.clip = 2;
  EXPECT_DOUBLE_EQ(group_rewards(r, o)[9], 2);
  o.clip = 0;
  EXPECT_NEAR(group_rewards(r, o)[9], 3, 1e-12);
  // And a low outlier: 10 x 9 and -1 (a hack among good kernels).
  std::vector<double> low(9, 10.0);
  low.push_back(-1);
  EXPECT_DOUBLE_EQ(group_rewards(low)[9], -1.5);
}

TEST(RewardTest, GroupAllEqualGetsZeros) {
  EXPECT_EQ(group_rewards({1.11, 1.11, 1.11}), (std::vector<double>{0, 0, 0}));
  // 0.1 * 3 / 3 is not 0.1 in binary; equal rewards are still zeros.
  EXPECT_EQ(group_rewards({0.1, 0.1, 0.1}), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(group_rewards({-1}), (std::vector<double>{0}));
}

TEST(RewardTest, GroupEmpty) { EXPECT_TRUE(group_rewards({}).empty()); }

TEST(RewardTest, KindsByName) {
  EXPECT_EQ(parse_reward_kind("cuda_l1"), reward_kind::cuda_l1);
  EXPECT_EQ(parse_reward_kind("kevin"), reward_kind::kevin);
  EXPECT_EQ(parse_reward_kind("kernelgym"), reward_kind::kernelgym);
  EXPECT_FALSE(parse_reward_kind("speed"));
  EXPECT_STREQ(reward_kind_name(reward_kind::kernelgym), "kernelgym");
}

TEST(RewardTest, KevinAndKernelGymForms) {
  json fast = {{"verdict", "correct"}, {"speedup", 2.0}};
  EXPECT_DOUBLE_EQ(reward_of(reward_kind::kevin, fast), 2.3);
  EXPECT_DOUBLE_EQ(reward_of(reward_kind::kernelgym, fast), 0.7 + 0.6);
  EXPECT_DOUBLE_EQ(reward_of(reward_kind::cuda_l1, fast), 2.0);
  json untimed = {{"verdict", "correct"}, {"speedup", nullptr}};
  EXPECT_DOUBLE_EQ(reward_of(reward_kind::kevin, untimed), 0.3);
  EXPECT_DOUBLE_EQ(reward_of(reward_kind::kernelgym, untimed), 0.7);
  // A hack is paid less than any incorrect kernel, in every form.
  for (reward_kind k : {reward_kind::cuda_l1, reward_kind::kevin, reward_kind::kernelgym}) {
    double hacked = reward_of(k, {{"verdict", "rejected"}, {"speedup", nullptr}});
    double wrong = reward_of(k, {{"verdict", "incorrect"}, {"speedup", nullptr}});
    EXPECT_LT(hacked, wrong) << reward_kind_name(k);
    EXPECT_DOUBLE_EQ(wrong, 0);
  }
}

}  // namespace
}  // namespace cudal1
