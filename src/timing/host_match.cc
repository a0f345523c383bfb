#include "timing/host_match.h"

#include <algorithm>

#include "timing/stats.h"

namespace cudal1 {

std::optional<double> own_host_level(std::span<const double> probe_us) {
  std::vector<double> valid;
  for (double p : probe_us)
    if (p >= 0) valid.push_back(p);
  if (valid.size() < 20) return std::nullopt;
  std::sort(valid.begin(), valid.end());
  return sorted_quantile(valid, 0.05);
}

host_match match_host(std::span<const double> probe_us, std::optional<double> known_level_us,
                      const host_match_config& config) {
  host_match m;
  m.own_level_us = own_host_level(probe_us);
  std::optional<double> level = m.own_level_us;
  if (!level) {
    // Too few probes for a level of its own: the least of them.
    for (double p : probe_us)
      if (p >= 0 && (!level || p < *level)) level = p;
  }
  if (known_level_us && *known_level_us > 0 && (!level || *known_level_us < *level)) level = known_level_us;
  m.at_full_speed.assign(probe_us.size(), false);
  if (!level) return m;
  m.level_us = *level;
  for (size_t i = 0; i < probe_us.size(); ++i)
    if (probe_us[i] >= 0 && probe_us[i] <= config.factor * *level) {
      m.at_full_speed[i] = true;
      ++m.count;
    }
  m.usable = m.count >= config.min_pairs;
  return m;
}

std::optional<double> known_host_level(std::span<const double> recent_levels_us) {
  std::vector<double> v;
  for (double x : recent_levels_us)
    if (x > 0) v.push_back(x);
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return v.size() < 3 ? v[0] : v[1];
}

std::vector<double> kept(std::span<const double> values, const std::vector<bool>& keep) {
  std::vector<double> out;
  for (size_t i = 0; i < values.size() && i < keep.size(); ++i)
    if (keep[i]) out.push_back(values[i]);
  return out;
}

}  // namespace cudal1
