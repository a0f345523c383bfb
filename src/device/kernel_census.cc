// CUPTI activity records of kind CONCURRENT_KERNEL, collected through
// buffers CUPTI fills and hands back on a flush.
#include "device/kernel_census.h"

#include <cupti.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace cudal1 {
namespace {

// The CUPTI entry points the census uses, resolved from the shared library.
struct cupti_api {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
};

cupti_api g_api;
std::string g_loaded_from;
std::mutex g_mutex;
std::vector<kernel_launch> g_launches;  // guarded by g_mutex
constexpr size_t kBufferBytes = 1 << 20;

void CUPTIAPI request_buffer(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI complete_buffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  while (g_api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    // The kernel record of the CUPTI this worker was built with; name and
    // streamId sit where every recent record version has them.
    auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
    g_launches.push_back({k->name ? k->name : "?", k->streamId});
  }
  std::free(buffer);
}

// The CUDA 13 toolkit's CUPTI, wherever the machine keeps it.
std::string load_api() {
  const char* names[] = {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
                         "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "/usr/local/cuda/lib/libcupti.so.13",
                         "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13"};
  void* lib = nullptr;
  std::string why;
  for (const char* n : names) {
    if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL))) {
      g_loaded_from = n;
      break;
    }
  }
  if (!lib) return "CUPTI (libcupti.so.13) not found";
  g_api.register_callbacks = reinterpret_cast<decltype(g_api.register_callbacks)>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
  g_api.enable = reinterpret_cast<decltype(g_api.enable)>(dlsym(lib, "cuptiActivityEnable"));
  g_api.disable = reinterpret_cast<decltype(g_api.disable)>(dlsym(lib, "cuptiActivityDisable"));
  g_api.flush_all = reinterpret_cast<decltype(g_api.flush_all)>(dlsym(lib, "cuptiActivityFlushAll"));
  g_api.next_record = reinterpret_cast<decltype(g_api.next_record)>(dlsym(lib, "cuptiActivityGetNextRecord"));
  if (!g_api.register_callbacks || !g_api.enable || !g_api.disable || !g_api.flush_all || !g_api.next_record)
    return "CUPTI lacks the activity API";
  return "";
}

// Loads the API once per process; "" when it is usable.
const std::string& load_error() {
  static std::string error = load_api();
  return error;
}

}  // namespace

std::string kernel_census::availability() {
  return load_error().empty() ? "available (" + g_loaded_from + ")" : "unavailable: " + load_error();
}

result<std::unique_ptr<kernel_census>> kernel_census::start() {
  if (const std::string& why = load_error(); !why.empty()) return make_error(why);
  if (g_api.register_callbacks(request_buffer, complete_buffer) != CUPTI_SUCCESS)
    return make_error("CUPTI refused the activity buffers");
  if (CUptiResult r = g_api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return make_error("CUPTI could not record kernels (error " + std::to_string(static_cast<int>(r)) + ")");
  std::unique_ptr<kernel_census> census(new kernel_census());
  census->recording_ = true;
  return census;
}

kernel_census::~kernel_census() { stop(); }

void kernel_census::begin() {
  if (!recording_) return;
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_launches.clear();
}

std::vector<kernel_launch> kernel_census::end() {
  if (!recording_) return {};
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  return std::exchange(g_launches, {});
}

void kernel_census::stop() {
  if (!recording_) return;
  g_api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  recording_ = false;
}

}  // namespace cudal1
