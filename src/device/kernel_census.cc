// CUPTI activity records of kind CONCURRENT_KERNEL, collected through
// buffers CUPTI fills and hands back on a flush.
#include "device/kernel_census.h"

#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
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
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetCallbackState) callback_state = nullptr;
};

cupti_api g_api;
std::string g_loaded_from;
std::mutex g_mutex;
std::vector<kernel_launch> g_launches;  // guarded by g_mutex
constexpr size_t kBufferBytes = 1 << 20;
std::vector<std::string> g_contexts;  // created since the watch began; guarded by g_mutex

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

// A CUPTI of another version already in the process (a Python worker's torch
// may bring its own): a second copy beside it attaches to the same driver,
// which nothing here has tried, so the caller then loads none. "" if none.
std::string other_cupti_loaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t at = line.find("libcupti");
    if (at != std::string::npos && line.find("libcupti.so.13", at) == std::string::npos)
      return line.substr(line.find('/') == std::string::npos ? at : line.find('/'));
  }
  return "";
}

// The CUDA 13 toolkit's CUPTI, wherever the machine keeps it.
std::string load_api() {
  if (std::string other = other_cupti_loaded(); !other.empty()) return "another CUPTI is loaded here (" + other + ")";
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
  g_api.subscribe = reinterpret_cast<decltype(g_api.subscribe)>(dlsym(lib, "cuptiSubscribe"));
  g_api.unsubscribe = reinterpret_cast<decltype(g_api.unsubscribe)>(dlsym(lib, "cuptiUnsubscribe"));
  g_api.enable_callback = reinterpret_cast<decltype(g_api.enable_callback)>(dlsym(lib, "cuptiEnableCallback"));
  g_api.callback_state = reinterpret_cast<decltype(g_api.callback_state)>(dlsym(lib, "cuptiGetCallbackState"));
  if (!g_api.register_callbacks || !g_api.enable || !g_api.disable || !g_api.flush_all || !g_api.next_record)
    return "CUPTI lacks the activity API";
  if (!g_api.subscribe || !g_api.unsubscribe || !g_api.enable_callback || !g_api.callback_state)
    return "CUPTI lacks the callback API";
  return "";
}

// Loads the API once per process; "" when it is usable.
const std::string& load_error() {
  static std::string error = load_api();
  return error;
}

// A context created (the resource callback) or a green context asked for
// (the driver's entry point): recorded, whatever thread made it.
void CUPTIAPI on_context(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  char what[96];
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    std::snprintf(what, sizeof what, "context %p", static_cast<const void*>(static_cast<const CUpti_ResourceData*>(data)->context));
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
             static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) {
    std::snprintf(what, sizeof what, "a green context (%s)", static_cast<const CUpti_CallbackData*>(data)->functionName);
  } else {
    return;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_contexts.size() < 16) g_contexts.push_back(what);
}

}  // namespace

result<std::unique_ptr<context_watch>> context_watch::watch() {
  if (const std::string& why = load_error(); !why.empty()) return make_error(why);
  CUpti_SubscriberHandle sub = nullptr;
  if (CUptiResult r = g_api.subscribe(&sub, on_context, nullptr); r != CUPTI_SUCCESS)
    return make_error("CUPTI refused a subscriber (error " + std::to_string(static_cast<int>(r)) + ")");
  std::unique_ptr<context_watch> w(new context_watch());
  w->subscriber_ = sub;
  if (CUptiResult r = g_api.enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
      r != CUPTI_SUCCESS)
    return make_error("CUPTI could not watch context creation (error " + std::to_string(static_cast<int>(r)) + ")");
  // A green context may be created without a context-created callback.
  if (CUptiResult r = g_api.enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGreenCtxCreate);
      r != CUPTI_SUCCESS)
    return make_error("CUPTI could not watch green contexts (error " + std::to_string(static_cast<int>(r)) + ")");
  return w;
}

context_watch::~context_watch() {
  if (subscriber_ && lost().empty()) g_api.unsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
}

std::string context_watch::lost() const {
  auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
  const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> watched[] = {
      {CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGreenCtxCreate}};
  for (const auto& [domain, id] : watched) {
    uint32_t on = 0;
    if (CUptiResult r = g_api.callback_state(&on, sub, domain, id); r != CUPTI_SUCCESS)
      return "CUPTI no longer knows the watch's subscriber (error " + std::to_string(static_cast<int>(r)) + ")";
    if (!on) return "the watch's callback was switched off";
  }
  return "";
}

std::vector<std::string> context_watch::created() const {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_contexts;
}

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
