#include <nlohmann/json.hpp>

#include "device/device.h"

namespace cudal1 {

nlohmann::json facts_to_json(const device_facts& f) {
  nlohmann::json j = {{"backend", f.backend}, {"name", f.name}};
  if (f.backend == "cuda") {
    j["compute_capability"] = std::to_string(f.cc_major) + "." + std::to_string(f.cc_minor);
    j["sm_count"] = f.sm_count;
    j["l2_bytes"] = f.l2_bytes;
    j["memory_bytes"] = f.memory_bytes;
    j["driver_version"] = f.driver_version;
    j["runtime_version"] = f.runtime_version;
    j["sm_clock_mhz"] = f.sm_clock_mhz;
    j["memory_clock_mhz"] = f.memory_clock_mhz;
  } else {
    j["l2_bytes"] = f.l2_bytes;
  }
  return j;
}

}  // namespace cudal1
