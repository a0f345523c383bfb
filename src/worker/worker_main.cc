// cudal1-worker: the sandboxed process that loads one candidate and calls it.
//
// The judge starts a fresh worker for every candidate. It reads one JSON
// command per line on fd 3 and writes one JSON reply per line on fd 4; the
// candidate's own stdout and stderr go to a log the judge keeps. A crash, a
// hang or a sticky CUDA error ends this process, never the judge.
//
// Protocol (replies are {"ok": true, ...} or {"ok": false, "kind", "message"}):
//   (start)        -> hello: {"device": {...}}
//   load           {"library", "layout"}: map the exchange, copy the parameters into
//                  memory of our own, restrict writes to the scratch folder, then
//                  dlopen the candidate and find cudal1_forward
//   stage          {"arena", "shift", "sentinel"}: fresh inputs at fresh addresses
//                  (copied from the exchange), outputs filled with sentinels, caches flushed
//   run            {"census"}: the timed call: start .. cudal1_forward .. device sync
//                  .. stop; then a census of threads and processes the call left
//                  running and cache state it left behind; with census (the
//                  correctness trials), the kernels it launched (CUPTI), which
//                  stops being recorded at the first call without it
//   collect        outputs and (possibly modified) inputs back into the exchange
//   return_params  parameters back into the exchange, to check they are unchanged
//   quit
#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cudal1/abi.h"
#include "device/device.h"
#include "device/kernel_census.h"
#include "worker/layout.h"
#include "worker/sandbox.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;
using forward_fn = int (*)(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*);

// The largest shift of the arenas' base address between calls.
constexpr uint64_t kMaxShiftBytes = 1 << 20;

void send(const json& reply) {
  std::string line = reply.dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = write(4, line.data() + off, line.size() - off);
    if (n <= 0) _exit(3);  // the judge is gone
    off += static_cast<size_t>(n);
  }
}

json failure(const char* kind, const std::string& message) {
  return {{"ok", false}, {"kind", kind}, {"message", message}};
}

cudal1_tensor make_tensor(const tensor_slot& slot, void* data) {
  cudal1_tensor t{};
  t.data = data;
  t.dtype = dtype_code(slot.dtype);
  t.ndim = static_cast<int>(slot.shape.size());
  int64_t stride = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    t.shape[i] = slot.shape[i];
    t.stride[i] = stride;
    stride *= slot.shape[i];
  }
  t.name = slot.name.c_str();
  return t;
}

class worker {
 public:
  /// network: how the sandbox's network isolation went, for the load reply.
  worker(std::unique_ptr<device> dev, std::string network) : dev_(std::move(dev)), network_(std::move(network)) {}

  json handle(const json& cmd) {
    std::string op = cmd.value("op", "");
    if (op == "load") return load(cmd);
    if (!forward_) return failure("internal", "no candidate loaded");
    if (op == "stage") return stage(cmd.at("arena").get<int>(), cmd.at("shift").get<uint64_t>(), cmd.value("sentinel", 0));
    if (op == "run") return run(cmd.value("census", false));
    if (op == "collect") return collect();
    if (op == "return_params") return return_params();
    return failure("internal", "unknown command " + op);
  }

 private:
  char* exchange_at(const tensor_slot& s) { return exchange_ + s.offset; }

  json load(const json& cmd) {
    auto layout = parse_layout(cmd.at("layout"));
    if (!layout) return failure("internal", layout.message());
    layout_ = std::move(*layout);
    auto ex = dev_->open_exchange(layout_.exchange);
    if (!ex) return failure("internal", ex.message());
    exchange_ = static_cast<char*>(*ex);
    uint64_t arena_bytes = 0;
    for (const auto* group : {&layout_.inputs, &layout_.outputs})
      for (const auto& s : *group) arena_bytes = std::max(arena_bytes, s.offset + s.nbytes);
    arena_bytes += kMaxShiftBytes;
    for (auto& arena : arenas_) {
      auto mem = dev_->allocate(arena_bytes);
      if (!mem) return failure("internal", mem.message());
      arena = static_cast<char*>(*mem);
    }
    params_.clear();
    for (const auto& s : layout_.params) {
      auto mem = dev_->allocate(s.nbytes);
      if (!mem) return failure("internal", mem.message());
      if (auto st = dev_->copy(*mem, exchange_at(s), s.nbytes); !st) return failure("internal", st.message());
      params_.push_back(make_tensor(s, *mem));
    }
    // Everything the worker itself opens is open: from here on, and before
    // the candidate's static initializers run, writes stay in the scratch folder.
    std::string filesystem = "not restricted (CUDAL1_SANDBOX=0)", processes = filesystem;
    if (sandbox_enabled()) {
      char cwd[4096];
      std::string why = getcwd(cwd, sizeof cwd) ? restrict_writes(cwd, dev_->facts().backend == "cuda") : "no working folder";
      filesystem = why.empty() ? "writes only to the scratch folder" : "not restricted: " + why;
      std::string no_spawn = forbid_processes();
      processes = no_spawn.empty() ? "threads only (fork, exec and process clones denied)" : "not restricted: " + no_spawn;
    }
    // Kernels are recorded from before the candidate's library loads, for
    // the census of the correctness trials.
    if (dev_->facts().backend == "cuda") {
      auto census = kernel_census::start();
      if (census) census_ = std::move(*census);
      else census_note_ = "unavailable: " + census.message();
    } else {
      census_note_ = "unavailable on the cpu backend";
    }
    std::string library = cmd.at("library").get<std::string>();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return failure("load_error", dlerror());
    forward_ = reinterpret_cast<forward_fn>(dlsym(handle, "cudal1_forward"));
    if (!forward_) return failure("missing_entry", "the candidate does not define cudal1_forward (extern \"C\", see cudal1/abi.h)");
    return {{"ok", true}, {"sandbox", {{"network", network_}, {"filesystem", filesystem}, {"processes", processes}}}};
  }

  json stage(int arena, uint64_t shift, int sentinel) {
    if (arena < 0 || arena > 1 || shift % 256 != 0 || shift >= kMaxShiftBytes)
      return failure("internal", "bad stage arguments");
    char* base = arenas_[arena] + shift;
    args_.clear();
    outs_.clear();
    for (const auto& s : layout_.inputs) {
      if (auto st = dev_->copy(base + s.offset, exchange_at(s), s.nbytes); !st) return failure("runtime_error", st.message());
      args_.push_back(make_tensor(s, base + s.offset));
    }
    for (const auto& s : layout_.outputs) {
      if (auto st = dev_->fill_sentinel(base + s.offset, s.nbytes, dtype_code(s.dtype), sentinel); !st)
        return failure("runtime_error", st.message());
      outs_.push_back(make_tensor(s, base + s.offset));
    }
    if (auto st = dev_->flush_caches(); !st) return failure("runtime_error", st.message());
    if (auto st = dev_->synchronize(); !st) return failure("runtime_error", st.message());
    return {{"ok", true}};
  }

  json run(bool census) {
    if (census_ && !census) census_->stop();  // the trials are over: timed calls pay nothing
    if (census_ && census) census_->begin();
    std::set<std::string> threads_before = list_threads();
    if (auto st = dev_->start_timer(); !st) return failure("runtime_error", st.message());
    int rc = forward_(args_.data(), static_cast<int>(args_.size()), params_.data(), static_cast<int>(params_.size()),
                      outs_.data(), static_cast<int>(outs_.size()), dev_->stream());
    auto ms = dev_->stop_timer();
    // Census, outside the window: threads the call left running, and cache
    // state it left behind.
    json new_threads = json::array();
    for (const auto& tid : list_threads()) {
      if (threads_before.count(tid)) continue;
      std::string name = thread_name(tid);
      // The CUDA driver starts threads of its own ("cuda-EvtHandlr", ...) on
      // a library's first call; the candidate's threads carry our name.
      if (dev_->facts().backend == "cuda" && name.rfind("cuda", 0) == 0 && name != process_name_) continue;
      new_threads.push_back(name.empty() ? tid : name);
    }
    std::string cache = dev_->cache_tampering();
    json kernels = json::array();
    if (census_ && census && ms) {
      std::map<std::pair<std::string, uint32_t>, int> counts;
      for (const auto& k : census_->end()) ++counts[{k.name, k.stream}];
      for (const auto& [key, n] : counts) kernels.push_back({{"name", key.first}, {"stream", key.second}, {"launches", n}});
    }
    json children = json::array();
    for (const auto& pid : child_processes()) children.push_back(pid);
    json denied = process_attempts();
    if (!ms) return failure("runtime_error", ms.message());
    if (rc != 0) return failure("runtime_error", "cudal1_forward returned " + std::to_string(rc));
    json reply = {{"ok", true}, {"ms", *ms}, {"new_threads", new_threads}, {"child_processes", children},
                  {"process_attempts", denied}, {"cache_tampering", cache}};
    if (census) {
      if (census_) reply["kernels"] = kernels;
      else reply["census"] = census_note_;
    }
    return reply;
  }

  // The worker starts no processes of its own: any child is the candidate's.
  static std::vector<std::string> child_processes() {
    std::vector<std::string> pids;
    for (const auto& tid : list_threads()) {
      std::ifstream in("/proc/self/task/" + tid + "/children");
      for (std::string pid; in >> pid;) pids.push_back(pid);
    }
    return pids;
  }

  static std::set<std::string> list_threads() {
    std::set<std::string> tids;
    if (DIR* d = opendir("/proc/self/task")) {
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') tids.insert(e->d_name);
      closedir(d);
    }
    return tids;
  }

  static std::string thread_name(const std::string& tid) {
    std::ifstream in(tid == "self" ? std::string("/proc/self/comm") : "/proc/self/task/" + tid + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
  }

  json collect() {
    for (size_t i = 0; i < layout_.outputs.size(); ++i) {
      const auto& s = layout_.outputs[i];
      if (auto st = dev_->copy(exchange_at(s), outs_[i].data, s.nbytes); !st) return failure("runtime_error", st.message());
    }
    for (size_t i = 0; i < layout_.inputs.size(); ++i) {
      const auto& s = layout_.inputs[i];
      if (auto st = dev_->copy(exchange_at(s), args_[i].data, s.nbytes); !st) return failure("runtime_error", st.message());
    }
    if (auto st = dev_->synchronize(); !st) return failure("runtime_error", st.message());
    return {{"ok", true}};
  }

  json return_params() {
    for (size_t i = 0; i < layout_.params.size(); ++i) {
      const auto& s = layout_.params[i];
      if (auto st = dev_->copy(exchange_at(s), params_[i].data, s.nbytes); !st) return failure("runtime_error", st.message());
    }
    return {{"ok", true}};
  }

  std::unique_ptr<device> dev_;
  std::unique_ptr<kernel_census> census_;  // CUDA only; stopped after the trials
  std::string census_note_;
  std::string network_;
  std::string process_name_ = thread_name("self");  // "cudal1-worker": inherited by threads the candidate starts
  exchange_layout layout_;
  forward_fn forward_ = nullptr;
  char* exchange_ = nullptr;
  char* arenas_[2] = {nullptr, nullptr};
  std::vector<cudal1_tensor> args_, outs_, params_;
};

int worker_main(int argc, char** argv) {
  std::string backend = "cpu";
  uint64_t flush_bytes = 64ull << 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--flush-bytes" && i + 1 < argc) flush_bytes = std::stoull(argv[++i]);
    else {
      std::fprintf(stderr, "usage: cudal1-worker --backend cpu|cuda [--flush-bytes N] (started by cudal1)\n");
      return 2;
    }
  }
  // No network for the candidate, before anything else runs here.
  std::string network = "not isolated (CUDAL1_SANDBOX=0)";
  if (sandbox_enabled()) {
    std::string why = isolate_network();
    network = why.empty() ? "isolated (own network namespace)" : "not isolated: " + why;
  }
  std::unique_ptr<device> dev;
  if (backend == "cuda") {
    auto made = make_cuda_device();
    if (!made) {
      send(failure("no_device", made.message()));
      return 1;
    }
    dev = std::move(*made);
  } else {
    dev = make_cpu_device(flush_bytes);
  }
  json facts = facts_to_json(dev->facts());
  if (backend == "cuda") facts["kernel_census"] = kernel_census::availability();
  send({{"ok", true}, {"device", facts}});
  worker w(std::move(dev), network);
  FILE* commands = fdopen(3, "r");
  if (!commands) return 3;
  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, commands) > 0) {
    json cmd = json::parse(line, nullptr, false);
    if (cmd.is_discarded()) {
      send(failure("internal", "malformed command"));
      continue;
    }
    if (cmd.value("op", "") == "quit") {
      send({{"ok", true}, {"id", cmd.value("id", json())}});
      break;
    }
    json reply = w.handle(cmd);
    if (cmd.contains("id")) reply["id"] = cmd["id"];
    send(reply);
    // After a device error the context may be poisoned: end the process.
    if (!reply.value("ok", false) && reply.value("kind", "") == "runtime_error") return 4;
  }
  std::free(line);
  return 0;
}

}  // namespace
}  // namespace cudal1

int main(int argc, char** argv) {
  try {
    return cudal1::worker_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudal1-worker: %s\n", e.what());
    return 5;
  }
}
