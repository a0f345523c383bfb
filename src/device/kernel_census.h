// The kernel census: which kernels a candidate's call launched, on which
// streams, recorded by CUPTI's activity API in the candidate worker.
//
// CUPTI is loaded at run time (dlopen), so a machine without it still judges;
// the census then says why it is unavailable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

struct kernel_launch {
  std::string name;  // as the driver knows it (mangled for C++ kernels)
  uint32_t stream = 0;
};

class kernel_census {
 public:
  /// "available (PATH)" when CUPTI loads, else "unavailable: why"; records nothing.
  static std::string availability();
  /// Loads CUPTI and starts recording kernel launches (this process, all streams).
  static result<std::unique_ptr<kernel_census>> start();
  ~kernel_census();
  kernel_census(const kernel_census&) = delete;
  kernel_census& operator=(const kernel_census&) = delete;

  /// Forgets what was recorded so far (the worker's own fills and flushes).
  void begin();
  /// The launches since begin(); the caller has synchronized the device.
  std::vector<kernel_launch> end();
  /// Stops recording, so later (timed) calls pay nothing for it.
  void stop();

 private:
  kernel_census() = default;
  bool recording_ = false;
};

}  // namespace cudal1
