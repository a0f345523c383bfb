// libcudal1_seal.so: the native worker's sandbox and census for a worker
// written in another language (the Python candidate worker loads it with
// ctypes). Each function writes a JSON object into `out` (truncated to
// out_len - 1 bytes) and returns 0, or -1 when `out` was too small.
#include <unistd.h>

#include <cstring>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#ifdef CUDAL1_CONTEXT_WATCH
#include "device/kernel_census.h"
#endif
#include "worker/census.h"
#include "worker/sandbox.h"

namespace {

std::set<std::string> g_baseline;
#ifdef CUDAL1_CONTEXT_WATCH
std::unique_ptr<cudal1::context_watch> g_contexts;
#endif

int put(const nlohmann::json& j, char* out, size_t out_len) {
  std::string s = cudal1::json_text(j);
  if (out_len == 0) return -1;
  size_t n = std::min(s.size(), out_len - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
  return n == s.size() ? 0 : -1;
}

std::vector<std::string> split_colons(const char* text) {
  std::vector<std::string> out;
  std::stringstream in(text ? text : "");
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) out.push_back(part);
  return out;
}

}  // namespace

#define CUDAL1_EXPORT __attribute__((visibility("default")))

extern "C" {

/// Moves the process into a network namespace of its own: {"network": ...}.
CUDAL1_EXPORT int cudal1_isolate_network(char* out, size_t out_len) {
  if (!cudal1::sandbox_enabled()) return put({{"network", "not isolated (CUDAL1_SANDBOX=0)"}}, out, out_len);
  std::string why = cudal1::isolate_network();
  return put({{"network", why.empty() ? "isolated (own network namespace)" : "not isolated: " + why}}, out, out_len);
}

/// The sandbox's layers, as the native worker applies them: reads and writes
/// in own_dir, reads of the system and of extra_reads (colon-separated),
/// /dev/nvidia* where gpu; then uid (if not 0); then, where forbid, the
/// process filter. Reports each layer as the native worker's load does.
CUDAL1_EXPORT int cudal1_seal(const char* own_dir, const char* extra_reads, int gpu, unsigned uid, int forbid, char* out, size_t out_len) {
  nlohmann::json sb;
  if (!cudal1::sandbox_enabled()) {
    for (const char* layer : {"filesystem", "user", "processes"}) sb[layer] = "not restricted (CUDAL1_SANDBOX=0)";
  } else {
    std::string why = cudal1::restrict_files(own_dir, gpu != 0, split_colons(extra_reads));
    sb["filesystem"] = why.empty() ? "reads and writes only in the scratch folder and the system's files" : "not restricted: " + why;
    why = uid ? cudal1::drop_privileges(uid) : "no unprivileged user given (the judge is not root)";
    sb["user"] = why.empty() ? "uid " + std::to_string(uid) + ", no capabilities" : "not dropped: " + why;
    if (forbid) {
      std::string no_spawn = cudal1::forbid_processes(gpu == 0);
      sb["processes"] = no_spawn.empty() ? "threads only (fork, exec and process clones denied; timers and signal-driven I/O denied; " + std::string(gpu == 0 ? "memfds and System V shared memory denied; " : "") + "CPU affinity fixed)"
                                         : "not restricted: " + no_spawn;
    } else {
      sb["processes"] = "not restricted (a build may start compilers)";
    }
  }
  sb["pid_namespace"] = getpid() == 1 ? "own (a private /proc)" : "shared: the judge could not create one (needs root)";
  return put(sb, out, out_len);
}

/// Takes the thread baseline: threads running now are the worker's own.
CUDAL1_EXPORT int cudal1_census_baseline(char* out, size_t out_len) {
  g_baseline = cudal1::list_threads();
  return put({{"threads", g_baseline.size()}}, out, out_len);
}

/// Watches for CUDA contexts created from now on (the native worker's
/// context_watch): {"contexts": "watched"} or {"contexts": "unwatched: why"}.
CUDAL1_EXPORT int cudal1_watch_contexts(char* out, size_t out_len) {
#ifdef CUDAL1_CONTEXT_WATCH
  auto w = cudal1::context_watch::watch();
  if (!w) return put({{"contexts", "unwatched: " + w.message()}}, out, out_len);
  g_contexts = std::move(*w);
  return put({{"contexts", "watched"}}, out, out_len);
#else
  return put({{"contexts", "unwatched: built without CUDA"}}, out, out_len);
#endif
}

/// What the last call left: new_threads (not in the baseline, still running),
/// own_contexts (CUDA contexts created since cudal1_watch_contexts) and
/// own_contexts_lost (what undid that watch, if anything),
/// child_processes, process_attempts and escape_attempts (denied), deferred_work (armed timers,
/// O_ASYNC, denied timer or signal calls).
CUDAL1_EXPORT int cudal1_census(char* out, size_t out_len) {
  cudal1::forbidden_attempts attempts = cudal1::take_attempts();
  std::string deferred = cudal1::deferred_work_state();
  for (const auto& call : attempts.deferred_work) deferred += (deferred.empty() ? "" : "; ") + ("a denied " + call);
  nlohmann::json own_contexts = nlohmann::json::array();
  std::string lost;
#ifdef CUDAL1_CONTEXT_WATCH
  if (g_contexts) {
    for (const auto& c : g_contexts->created()) own_contexts.push_back(c);
    lost = g_contexts->lost();
  }
#endif
  return put({{"new_threads", cudal1::new_threads(g_baseline)},
              {"own_contexts", own_contexts},
              {"own_contexts_lost", lost},
              {"child_processes", cudal1::child_processes()},
              {"process_attempts", attempts.processes},
              {"escape_attempts", attempts.escapes},
              {"deferred_work", deferred}},
             out, out_len);
}

}  // extern "C"
