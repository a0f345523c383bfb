// The CUDA backend: device memory, CUDA IPC for the exchange, sentinel fills,
// an L2 flush with persisting-L2 reset, and an event window closed by a
// device-wide synchronization.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "cudal1/abi.h"
#include "device/device.h"

namespace cudal1 {
namespace {

std::string cuda_message(cudaError_t e, const char* call, const char* file, int line) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " (" + call + " at " + file + ":" +
         std::to_string(line) + ")";
}

// Returns an error from the enclosing function when a CUDA call fails.
#define CUDAL1_CUDA_TRY(call)                                                        \
  do {                                                                               \
    cudaError_t cudal1_err_ = (call);                                                \
    if (cudal1_err_ != cudaSuccess)                                                  \
      return make_error(cuda_message(cudal1_err_, #call, __FILE__, __LINE__));       \
  } while (0)

__global__ void fill_pattern(unsigned char* p, size_t count, uint64_t pattern, int size) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    switch (size) {
      case 8: reinterpret_cast<uint64_t*>(p)[i] = pattern; break;
      case 4: reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(pattern); break;
      case 2: reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(pattern); break;
      default: p[i] = static_cast<unsigned char>(pattern); break;
    }
  }
}

// One thread that waits on the GPU's global timer (nanoseconds) for `ns`.
__global__ void spin_for(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

class cuda_device final : public device {
 public:
  ~cuda_device() override {
    // No-throw teardown; errors here cannot change a verdict.
    if (flush_) cudaFree(flush_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  status init() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      // Without a driver the runtime says "driver version is insufficient": say what it means.
      if (access("/dev/nvidiactl", F_OK) != 0) return make_error("no CUDA device: no NVIDIA driver is loaded on this machine");
      return make_error(std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found"));
    }
    CUDAL1_CUDA_TRY(cudaSetDevice(0));
    cudaDeviceProp prop;
    CUDAL1_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
    facts_.backend = "cuda";
    facts_.name = prop.name;
    facts_.cc_major = prop.major;
    facts_.cc_minor = prop.minor;
    facts_.sm_count = prop.multiProcessorCount;
    facts_.l2_bytes = prop.l2CacheSize;
    facts_.memory_bytes = prop.totalGlobalMem;
    cudaDriverGetVersion(&facts_.driver_version);
    cudaRuntimeGetVersion(&facts_.runtime_version);
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess) facts_.sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess) facts_.memory_clock_mhz = khz / 1000;
    CUDAL1_CUDA_TRY(cudaStreamCreate(&stream_));
    CUDAL1_CUDA_TRY(cudaEventCreate(&start_));
    CUDAL1_CUDA_TRY(cudaEventCreate(&stop_));
    flush_bytes_ = 2 * static_cast<size_t>(prop.l2CacheSize > 0 ? prop.l2CacheSize : (64 << 20));
    CUDAL1_CUDA_TRY(cudaMalloc(&flush_, flush_bytes_));
    // No persisting L2 for anyone in this context: a candidate's access-policy
    // window would survive a plain flush (llm.c#851).
    if (prop.persistingL2CacheMaxSize > 0) CUDAL1_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    persisting_l2_ = prop.persistingL2CacheMaxSize > 0;
    // Memory freed with cudaFreeAsync stays in the stream-ordered pool, as it
    // does in PyTorch's caching allocator. With the default threshold (0) the
    // pool gives it back to the driver at the worker's next synchronize: host
    // time after the candidate's window, which the judge's clock counted as
    // unaccounted (an honest suite solution, level3/mamba_block, rejected as
    // timer_tampering on an H200 with 0.106 ms against a 0.098 ms tolerance).
    cudaMemPool_t pool = nullptr;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      CUDAL1_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    return ok_status();
  }

  const device_facts& facts() const override { return facts_; }

  result<void*> allocate(size_t bytes) override {
    void* p = nullptr;
    CUDAL1_CUDA_TRY(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
  }

  void release(void* ptr) override { cudaFree(ptr); }

  result<void*> open_exchange(const exchange_ref& ref) override {
    if (ref.kind != "cuda_ipc") return make_error("the CUDA backend needs a cuda_ipc exchange, got " + ref.kind);
    cudaIpcMemHandle_t handle;
    if (ref.ipc_handle.size() != 2 * sizeof(handle)) return make_error("malformed CUDA IPC handle");
    for (size_t i = 0; i < sizeof(handle); ++i)
      handle.reserved[i] = static_cast<char>(std::stoi(ref.ipc_handle.substr(2 * i, 2), nullptr, 16));
    void* base = nullptr;
    CUDAL1_CUDA_TRY(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
    return static_cast<char*>(base) + ref.offset;
  }

  status copy(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return ok_status();
    CUDAL1_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
    CUDAL1_CUDA_TRY(cudaStreamSynchronize(stream_));
    return ok_status();
  }

  status fill_sentinel(void* ptr, size_t bytes, int dtype_code, int variant) override {
    uint64_t pattern = variant ? 0x5A5A5A5A5A5A5A5Aull : ~uint64_t{0};
    int size = 1;
    switch (dtype_code) {
      case CUDAL1_F32: pattern = 0x7FC00000u; size = 4; break;
      case CUDAL1_F64: pattern = 0x7FF8000000000000ull; size = 8; break;
      case CUDAL1_F16: pattern = 0x7E00u; size = 2; break;
      case CUDAL1_BF16: pattern = 0x7FC0u; size = 2; break;
      default: break;
    }
    size_t count = bytes / size;
    if (count == 0) return ok_status();
    int blocks = static_cast<int>(std::min<size_t>((count + 255) / 256, 4096));
    fill_pattern<<<blocks, 256, 0, stream_>>>(static_cast<unsigned char*>(ptr), count, pattern, size);
    CUDAL1_CUDA_TRY(cudaGetLastError());
    return ok_status();
  }

  status flush_caches() override {
    ++flush_round_;
    CUDAL1_CUDA_TRY(cudaMemsetAsync(flush_, flush_round_ & 0xFF, flush_bytes_, stream_));
    if (persisting_l2_) {
      CUDAL1_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
      CUDAL1_CUDA_TRY(cudaCtxResetPersistingL2Cache());
    }
    return ok_status();
  }

  void* stream() override { return stream_; }

  status start_timer() override {
    CUDAL1_CUDA_TRY(cudaDeviceSynchronize());
    CUDAL1_CUDA_TRY(cudaEventRecord(start_, stream_));
    return ok_status();
  }

  result<double> stop_timer() override {
    // The device-wide sync comes before the end event, so work the candidate
    // left on any stream of this process is inside the window.
    CUDAL1_CUDA_TRY(cudaDeviceSynchronize());
    CUDAL1_CUDA_TRY(cudaGetLastError());
    CUDAL1_CUDA_TRY(cudaEventRecord(stop_, stream_));
    CUDAL1_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDAL1_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms);
  }

  status synchronize() override {
    CUDAL1_CUDA_TRY(cudaDeviceSynchronize());
    CUDAL1_CUDA_TRY(cudaGetLastError());
    return ok_status();
  }

  status warm_up() override {
    // Measured on an H200 (driver 580): the first host function starts a
    // driver thread named after the process; context creation starts two.
    CUDAL1_CUDA_TRY(cudaLaunchHostFunc(stream_, [](void*) {}, nullptr));
    CUDAL1_CUDA_TRY(fill_sentinel(flush_, 4096, CUDAL1_F32, 0) ? cudaSuccess : cudaErrorUnknown);
    CUDAL1_CUDA_TRY(cudaEventRecord(start_, stream_));
    CUDAL1_CUDA_TRY(cudaEventSynchronize(start_));
    CUDAL1_CUDA_TRY(cudaDeviceSynchronize());
    return ok_status();
  }

  status probe_work(double ms) override {
    spin_for<<<1, 1, 0, stream_>>>(static_cast<unsigned long long>(ms * 1e6));
    CUDAL1_CUDA_TRY(cudaGetLastError());
    return ok_status();
  }

  std::string cache_tampering() override {
    std::string evidence;
    cudaStreamAttrValue window{};
    if (cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &window) == cudaSuccess &&
        window.accessPolicyWindow.num_bytes > 0)
      evidence = "an access-policy window of " + std::to_string(window.accessPolicyWindow.num_bytes) +
                 " bytes on the judge's stream";
    size_t persisting = 0;
    if (persisting_l2_ && cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize) == cudaSuccess && persisting > 0)
      evidence += std::string(evidence.empty() ? "" : "; ") + "a persisting-L2 limit of " + std::to_string(persisting) + " bytes";
    return evidence;
  }

 private:
  device_facts facts_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  unsigned flush_round_ = 0;
  bool persisting_l2_ = false;
};

}  // namespace

result<std::unique_ptr<device>> make_cuda_device() {
  auto dev = std::make_unique<cuda_device>();
  status s = dev->init();
  if (!s) return s.err();
  return std::unique_ptr<device>(std::move(dev));
}

}  // namespace cudal1
