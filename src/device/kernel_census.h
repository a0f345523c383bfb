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

/// Contexts created in this process after watch() (CUPTI's callback for a
/// context's creation, kept from before the candidate's library loads to the
/// worker's end, and costing nothing in a call that creates none). The
/// window's cudaDeviceSynchronize() waits for the worker's own context only:
/// work a candidate queues in a context of its own runs on after the window,
/// while the reference is timed on the same GPU.
class context_watch {
 public:
  /// Loads CUPTI and subscribes; an error says why nothing is watched.
  static result<std::unique_ptr<context_watch>> watch();
  ~context_watch();
  context_watch(const context_watch&) = delete;
  context_watch& operator=(const context_watch&) = delete;

  /// Each context created since watch(), described ("context 0x..., green"):
  /// kept, so every later call reports it too.
  std::vector<std::string> created() const;
  /// "" while the subscription still answers for both callbacks; else what
  /// undid it (a candidate's cuptiFinalize() drops every subscriber).
  std::string lost() const;

 private:
  context_watch() = default;
  void* subscriber_ = nullptr;
};

}  // namespace cudal1
