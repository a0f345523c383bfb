// The device a candidate runs on, as the candidate worker sees it: memory,
// copies, sentinel fills, cache flushes and the timed window.
//
// Host-only header (no CUDA includes): the CUDA implementation lives in
// cuda_device.cu, the CPU one in cpu_device.cc. Only the worker links these;
// the cudal1 program itself never creates a CUDA context.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "worker/layout.h"

namespace cudal1 {

/// Facts about the device, reported in every judgment.
struct device_facts {
  std::string backend;  // "cuda" or "cpu"
  std::string name;
  int cc_major = 0, cc_minor = 0;  // CUDA compute capability
  int sm_count = 0;
  uint64_t l2_bytes = 0;
  uint64_t memory_bytes = 0;
  int driver_version = 0, runtime_version = 0;
  int sm_clock_mhz = 0, memory_clock_mhz = 0;
};
nlohmann::json facts_to_json(const device_facts& facts);

/// Non-copyable: owns device memory, streams and events.
class device {
 public:
  virtual ~device() = default;
  device() = default;
  device(const device&) = delete;
  device& operator=(const device&) = delete;

  virtual const device_facts& facts() const = 0;
  /// Memory the candidate's tensors live in (device memory on CUDA).
  virtual result<void*> allocate(size_t bytes) = 0;
  virtual void release(void* ptr) = 0;
  /// Maps the reference worker's exchange buffer into this process.
  virtual result<void*> open_exchange(const exchange_ref& ref) = 0;
  /// Synchronous copy within device memory (the exchange counts as device memory).
  virtual status copy(void* dst, const void* src, size_t bytes) = 0;
  /// Fills with a sentinel for a dtype: NaN for floating types; for the
  /// others all-ones bytes (variant 0) or 0x5A bytes (variant 1), so an
  /// element left unwritten cannot match the reference in both variants.
  virtual status fill_sentinel(void* ptr, size_t bytes, int dtype_code, int variant) = 0;
  /// Evicts caches before a sample: on CUDA a write of twice the L2 and a
  /// reset of persisting L2 lines; on the CPU a write of a large buffer.
  virtual status flush_caches() = 0;
  /// The stream handed to the candidate (NULL on the CPU).
  virtual void* stream() = 0;
  /// Starts the timed window (after a device-wide synchronization).
  virtual status start_timer() = 0;
  /// Ends the timed window with a device-wide synchronization, so work on any
  /// stream counts; returns the window in milliseconds. Errors carry the
  /// device's message (an illegal address, a launch failure).
  virtual result<double> stop_timer() = 0;
  /// Synchronizes and reports any pending device error.
  virtual status synchronize() = 0;
  /// Makes the driver start the threads it starts lazily (a host function's
  /// thread on CUDA), so the thread census's baseline holds them.
  virtual status warm_up() { return ok_status(); }
  /// The judge's probe in place of a candidate's call: work lasting `ms`
  /// done the way a candidate's is (CPU: the calling thread busy; CUDA: a
  /// kernel on the stream, which the window's device synchronization waits
  /// for), so that a probe's request costs what an honest call's does.
  virtual status probe_work(double ms) {
    auto begin = std::chrono::steady_clock::now();
    while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count() < ms) {
    }
    return ok_status();
  }
  /// After a call: evidence that the candidate set up persisting-L2 or other
  /// cache state that would outlive the flush; empty when there is none.
  virtual std::string cache_tampering() { return ""; }
};

/// The CPU backend (always available).
std::unique_ptr<device> make_cpu_device(uint64_t flush_bytes);
/// The CUDA backend; an error if there is no usable GPU or no CUDA support
/// was built in.
result<std::unique_ptr<device>> make_cuda_device();

}  // namespace cudal1
