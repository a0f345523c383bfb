#include "audit/speed_of_light.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace cudal1 {

sol_inputs parse_sol_inputs(const nlohmann::json& j) {
  auto number = [&](const char* key) -> std::optional<double> {
    if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
    double v = j[key].get<double>();
    return v > 0 ? std::optional<double>(v) : std::nullopt;
  };
  sol_inputs in;
  in.bytes = j.value("bytes", uint64_t{0});
  in.flops = number("flops");
  in.bandwidth_bytes_per_s = number("bandwidth_bytes_per_s");
  in.peak_flops_per_s = number("peak_flops_per_s");
  return in;
}

std::optional<double> sol_floor_ms(const sol_inputs& in) {
  if (!in.bandwidth_bytes_per_s) return std::nullopt;
  double floor_s = static_cast<double>(in.bytes) / *in.bandwidth_bytes_per_s;
  if (in.flops && in.peak_flops_per_s) floor_s = std::max(floor_s, *in.flops / *in.peak_flops_per_s);
  return floor_s * 1e3;
}

std::optional<double> add_floor(nlohmann::json& sol, double median_ms) {
  auto floor = sol_floor_ms(parse_sol_inputs(sol));
  if (!floor) return std::nullopt;
  sol["floor_ms"] = *floor;
  sol["fraction"] = median_ms > 0 ? *floor / median_ms : 0.0;
  return floor;
}

bool faster_than_light(double floor_ms, double candidate_ms) { return candidate_ms < kImpossibleFraction * floor_ms; }

}  // namespace cudal1
