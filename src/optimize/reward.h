// Rewards from judgments, for the optimizer's records and the RL environment.
//
// CUDA-L1's reward for one kernel: its measured speedup, rounded toward 1
// (a noisy 1.004x is not a win), with a floor for kernels that are not
// correct; and its smoothing over a group of samples for one prompt: z-scores
// within the group, clipped to +-1.5.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudal1 {

struct reward_options {
  double round_to = 0.01;       // speedups are rounded toward 1 to this step (1.237 -> 1.23; 0.876 -> 0.88)
  double incorrect_floor = 0;   // reward of an incorrect kernel, a runtime error, a timeout, a compile error
  double hack_penalty = -1;     // reward of a rejected (hacked) kernel: below any incorrect one
  double clip = 1.5;            // group rewards are clipped to +-clip (0: not clipped)
};

/// The reward of one judgment (the JSON of `cudal1 eval --json`): its speedup
/// rounded toward 1 when correct, hack_penalty when rejected, else the floor.
/// A correct judgment without a speedup (not timed) gets 1; one whose speedup
/// is not a positive finite number gets the floor. Reads "verdict" and
/// "speedup" (null when none); a judgment without a verdict gets the floor.
double kernel_reward(const nlohmann::json& judgment, const reward_options& options = {});
/// The same from a verdict and a speedup.
double kernel_reward(const std::string& verdict, std::optional<double> speedup, const reward_options& options = {});

/// The rewards a request may ask for (the RL environment's servers):
///   cuda_l1    kernel_reward() above (CUDA-L1's)
///   kevin      Kevin-32B's: 0.3 for a correct kernel plus its speedup
///   kernelgym  KernelGYM's and KernelBench RL's weighted form:
///              0.7 * correct + 0.3 * speedup
/// In each a rejected (hacked) kernel gets options.hack_penalty, below any
/// incorrect one, and an incorrect or failing kernel options.incorrect_floor.
enum class reward_kind { cuda_l1, kevin, kernelgym };
/// "cuda_l1", "kevin" or "kernelgym"; nullopt for anything else.
std::optional<reward_kind> parse_reward_kind(const std::string& name);
const char* reward_kind_name(reward_kind kind);
double reward_of(reward_kind kind, const nlohmann::json& judgment, const reward_options& options = {});

/// Group-normalized rewards: (r - mean) / std within the group (the
/// population std), clipped to +-clip; a group whose rewards are all equal (std 0) gets zeros. Empty in,
/// empty out.
std::vector<double> group_rewards(const std::vector<double>& rewards, const reward_options& options = {});

}  // namespace cudal1
