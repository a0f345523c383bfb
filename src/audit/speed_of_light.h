// Speed-of-light floors: the least time a task can take on a device, from
// the fewest bytes it must move (inputs and parameters read once, outputs
// written once) over the measured copy bandwidth, and its FLOPs (the task's
// declared cudal1_flops, else PyTorch's counter) over the fastest measured
// matrix rate; the larger of the two.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json_fwd.hpp>

namespace cudal1 {

struct sol_inputs {
  uint64_t bytes = 0;
  std::optional<double> flops;
  std::optional<double> bandwidth_bytes_per_s, peak_flops_per_s;
};

sol_inputs parse_sol_inputs(const nlohmann::json& j);

/// The floor in milliseconds; empty without a bandwidth measurement.
std::optional<double> sol_floor_ms(const sol_inputs& in);

/// Adds floor_ms and fraction (the floor over median_ms; 0 for a median of 0)
/// to sol, the reference worker's figures, and returns the floor; leaves sol
/// as it is and returns nothing where the floor is unknown.
std::optional<double> add_floor(nlohmann::json& sol, double median_ms);

/// A candidate faster than this fraction of the floor is impossible: the
/// slack covers kernels that beat a plain copy's bandwidth (read-mostly
/// kernels do) and measurement noise.
constexpr double kImpossibleFraction = 0.8;

/// Whether a candidate's median time beats the floor by more than the slack.
bool faster_than_light(double floor_ms, double candidate_ms);

}  // namespace cudal1
