#include "optimize/reward.h"

#include <algorithm>
#include <cmath>

namespace cudal1 {

namespace {

// The speedup rounded toward 1 to a multiple of `step`. The tolerance keeps a
// speedup that is a multiple of the step in binary floating point from
// falling a step (1.23 / 0.01 is 122.99999999999999).
double round_toward_one(double speedup, double step) {
  if (!(step > 0)) return speedup;
  constexpr double kSlack = 1e-9;
  const double steps = speedup / step;
  const double k = speedup >= 1 ? std::floor(steps + kSlack) : std::ceil(steps - kSlack);
  // k / 100 is the double nearest to 1.23; k * 0.01 may be 1.2300000000000002.
  const double per_unit = 1 / step;
  if (std::abs(per_unit - std::round(per_unit)) < kSlack) return k / std::round(per_unit);
  return k * step;
}

}  // namespace

double kernel_reward(const std::string& verdict, std::optional<double> speedup, const reward_options& options) {
  if (verdict == "rejected") return options.hack_penalty;
  if (verdict != "correct") return options.incorrect_floor;
  // A correct kernel that was not timed is neither a win nor a loss.
  if (!speedup) return 1;
  // A speedup that is not a positive number is not a measurement.
  if (!std::isfinite(*speedup) || *speedup <= 0) return options.incorrect_floor;
  return round_toward_one(*speedup, options.round_to);
}

double kernel_reward(const nlohmann::json& judgment, const reward_options& options) {
  std::string verdict;
  std::optional<double> speedup;
  if (judgment.is_object()) {
    if (auto it = judgment.find("verdict"); it != judgment.end() && it->is_string()) verdict = it->get<std::string>();
    if (auto it = judgment.find("speedup"); it != judgment.end() && it->is_number()) speedup = it->get<double>();
  }
  return kernel_reward(verdict, speedup, options);
}

std::optional<reward_kind> parse_reward_kind(const std::string& name) {
  if (name == "cuda_l1" || name == "cuda-l1") return reward_kind::cuda_l1;
  if (name == "kevin") return reward_kind::kevin;
  if (name == "kernelgym") return reward_kind::kernelgym;
  return std::nullopt;
}

const char* reward_kind_name(reward_kind kind) {
  switch (kind) {
    case reward_kind::kevin: return "kevin";
    case reward_kind::kernelgym: return "kernelgym";
    default: return "cuda_l1";
  }
}

double reward_of(reward_kind kind, const nlohmann::json& judgment, const reward_options& options) {
  if (kind == reward_kind::cuda_l1) return kernel_reward(judgment, options);
  std::string verdict;
  double speedup = 0;
  if (judgment.is_object()) {
    if (auto it = judgment.find("verdict"); it != judgment.end() && it->is_string()) verdict = it->get<std::string>();
    if (auto it = judgment.find("speedup"); it != judgment.end() && it->is_number()) speedup = it->get<double>();
  }
  if (verdict == "rejected") return options.hack_penalty;
  if (verdict != "correct") return options.incorrect_floor;
  // Not timed, or not a measurement: the correctness part alone.
  if (!std::isfinite(speedup) || speedup <= 0) speedup = 0;
  return kind == reward_kind::kevin ? 0.3 + speedup : 0.7 + 0.3 * speedup;
}

std::vector<double> group_rewards(const std::vector<double>& rewards, const reward_options& options) {
  std::vector<double> out(rewards.size(), 0.0);
  if (rewards.empty()) return out;
  const auto [lo, hi] = std::minmax_element(rewards.begin(), rewards.end());
  // Equal rewards carry no signal; their floating-point std need not be 0.
  if (*lo == *hi) return out;
  double mean = 0;
  for (double r : rewards) mean += r;
  mean /= rewards.size();
  // The population std (divide by n): a group of two gets exactly -1 and +1.
  // (TRL's GRPO divides by the sample std, sqrt(n / (n - 1)) larger.)
  double var = 0;
  for (double r : rewards) var += (r - mean) * (r - mean);
  const double sd = std::sqrt(var / rewards.size());
  for (size_t i = 0; i < rewards.size(); ++i) {
    out[i] = (rewards[i] - mean) / sd;
    if (options.clip > 0) out[i] = std::clamp(out[i], -options.clip, options.clip);
  }
  return out;
}

}  // namespace cudal1
