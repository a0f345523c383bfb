// cudal1-worker: the sandboxed process that loads one candidate and calls it.
//
// The judge starts a fresh worker for every candidate. It reads one JSON
// command per line on fd 3 and writes one JSON reply per line on fd 4; the
// candidate's own stdout and stderr go to a log the judge keeps. A crash, a
// hang or a sticky CUDA error ends this process, never the judge.
//
// Protocol (replies are {"ok": true, ...} or {"ok": false, "kind", "message"}):
//   (start)        -> hello: {"device": {...}}
//   load           {"layout"}: map the exchange, copy the parameters into memory of
//                  our own, warm the driver up, start the kernel census, enter the
//                  sandbox and take the thread baseline; until "open", a run writes
//                  the outputs itself (the judge's probes: it times its requests
//                  to learn their overhead before any candidate code exists here)
//   open           {"library"}: dlopen the candidate and find cudal1_forward
//   run            {"arena", "shift", "census"}: the timed call on the tensors the
//                  reference's process staged in that arena of the exchange (fresh
//                  inputs at a fresh address, outputs filled with sentinels; it flushed
//                  the caches too): start .. cudal1_forward .. device sync
//                  .. stop; then a census of threads not in the baseline (taken before
//                  the candidate loaded) still running, processes, work set up for
//                  later (timers, signal-driven I/O) and cache state it left behind; with census (the
//                  correctness trials), the kernels it launched (CUPTI), which
//                  stops being recorded at the first call without it
//   return_params  parameters back into the exchange, to check they are unchanged
//   quit
#include <dirent.h>
#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "base/json_text.h"
#include "cudal1/abi.h"
#include "device/device.h"
#include "device/kernel_census.h"
#include "worker/census.h"
#include "worker/layout.h"
#include "worker/sandbox.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;
using forward_fn = int (*)(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*);


void send(const json& reply) {
  std::string line = json_text(reply) + "\n";
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
  /// network: how the sandbox's network isolation went, for the load reply;
  /// sandbox_uid: the unprivileged user to become (0: stay).
  worker(std::unique_ptr<device> dev, std::string network, unsigned sandbox_uid, FILE* commands)
      : dev_(std::move(dev)), network_(std::move(network)), sandbox_uid_(sandbox_uid), commands_(commands) {}

  json handle(const json& cmd) {
    std::string op = cmd.value("op", "");
    if (op == "load") return load(cmd);
    if (op == "open") return open_library(cmd);
    if (layout_.outputs.empty()) return failure("internal", "no layout loaded");
    if (op == "run") {
      if (auto bad = place_call(cmd.value("arena", -1), cmd.value("shift", uint64_t{1})); !bad.empty())
        return failure("internal", bad);
      split_id_ = cmd.value("split", false) ? cmd.value("id", json()) : json();
      return run(cmd.value("census", false), cmd.value("probe_ms", 0.0));
    }
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
    params_.clear();
    for (const auto& s : layout_.params) {
      auto mem = dev_->allocate(s.nbytes);
      if (!mem) return failure("internal", mem.message());
      if (auto st = dev_->copy(*mem, exchange_at(s), s.nbytes); !st) return failure("internal", st.message());
      params_.push_back(make_tensor(s, *mem));
    }
    // Kernels are recorded from before the candidate's library loads, for
    // the census of the correctness trials.
    if (dev_->facts().backend == "cuda") {
      auto census = kernel_census::start();
      if (census) census_ = std::move(*census);
      else census_note_ = "unavailable: " + census.message();
      auto watch = context_watch::watch();
      if (watch) contexts_ = std::move(*watch);
      else contexts_note_ = "unwatched: " + watch.message();
    } else {
      census_note_ = "unavailable on the cpu backend";
    }
    // The driver's lazily started threads (a host function's, say) start
    // now, before the baseline, so they are never taken for the candidate's.
    if (auto st = dev_->warm_up(); !st) return failure("internal", st.message());
    // So do OpenMP's, for a library that links libgomp (the judge reads its
    // ELF file): a parallel region's threads stay parked after it, and
    // started by the candidate's first region they would be taken for
    // threads it left running.
    json openmp = nullptr;
    if (cmd.value("openmp", false)) openmp = warm_openmp();
    // Everything the worker itself opens is open: from here on, and before
    // the candidate's static initializers run, the sandbox holds.
    json sandbox = {{"network", network_}};
    if (sandbox_enabled()) {
      char cwd[4096];
      std::string why = getcwd(cwd, sizeof cwd) ? restrict_files(cwd, dev_->facts().backend == "cuda") : "no working folder";
      sandbox["filesystem"] = why.empty() ? "reads and writes only in the scratch folder and the system's files" : "not restricted: " + why;
      why = sandbox_uid_ ? drop_privileges(sandbox_uid_) : "no unprivileged user given (the judge is not root)";
      sandbox["user"] = why.empty() ? "uid " + std::to_string(sandbox_uid_) + ", no capabilities" : "not dropped: " + why;
      const bool bound_memory = dev_->facts().backend == "cpu";
      std::string no_spawn = forbid_processes(bound_memory);
      sandbox["processes"] = no_spawn.empty() ? "threads only (fork, exec and process clones denied; timers and signal-driven I/O denied; " + std::string(bound_memory ? "memfds and System V shared memory denied; " : "") + "CPU affinity fixed)"
                                              : "not restricted: " + no_spawn;
    } else {
      for (const char* layer : {"filesystem", "user", "processes"}) sandbox[layer] = "not restricted (CUDAL1_SANDBOX=0)";
    }
    sandbox["pid_namespace"] = getpid() == 1 ? "own (a private /proc)" : "shared: the judge could not create one (needs root)";
    baseline_threads_ = list_threads();
    if (dev_->facts().backend == "cuda") sandbox["contexts"] = contexts_ ? "watched" : contexts_note_;
    json reply = {{"ok", true}, {"sandbox", sandbox}};
    if (!openmp.is_null()) reply["openmp"] = openmp;
    return reply;
  }

  // Starts libgomp's thread pool at the size the candidate sees as its CPUs
  // (omp_get_num_procs: the worker's affinity), as the ModelNew worker does
  // (python/cudal1_candidate.py, warm_openmp): one parallel region of that
  // size, each thread doing nothing. The pool's threads sleep between
  // regions (OMP_WAIT_POLICY=PASSIVE in the worker's environment), and what
  // they spend outside the window is counted (work_outside_window).
  static json warm_openmp() {
    void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!gomp) return std::string("not warmed: ") + dlerror();
    using procs_fn = int (*)();
    using parallel_fn = void (*)(void (*)(void*), void*, unsigned, unsigned);
    auto procs = reinterpret_cast<procs_fn>(dlsym(gomp, "omp_get_num_procs"));
    auto parallel = reinterpret_cast<parallel_fn>(dlsym(gomp, "GOMP_parallel"));
    if (!procs || !parallel) return "not warmed: libgomp lacks omp_get_num_procs or GOMP_parallel";
    const int n = procs();
    if (n > 1) parallel([](void*) {}, nullptr, static_cast<unsigned>(n), 0);
    return "libgomp's pool warmed before the thread baseline: " + std::to_string(n) + " thread(s) in all";
  }

  json open_library(const json& cmd) {
    std::string library = cmd.at("library").get<std::string>();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return failure("load_error", dlerror());
    forward_ = reinterpret_cast<forward_fn>(dlsym(handle, "cudal1_forward"));
    if (!forward_) return failure("missing_entry", "the candidate does not define cudal1_forward (extern \"C\", see cudal1/abi.h)");
    candidate_loaded_ = true;
    return {{"ok", true}};
  }

  // The call's tensors: in the exchange's arena the judge names, at its
  // shift, where the reference's process staged the inputs and filled the
  // outputs with sentinels (this process copies nothing: work hidden in a
  // copy of its own would be work outside the window). "" or what is wrong.
  std::string place_call(int arena, uint64_t shift) {
    if (arena < 0 || arena > 1 || shift % 256 != 0 || shift >= layout_.arenas.max_shift) return "bad arena or shift";
    args_.clear();
    outs_.clear();
    for (const auto& s : layout_.inputs) args_.push_back(make_tensor(s, exchange_ + arena_offset(layout_, arena, shift, s)));
    for (const auto& s : layout_.outputs) outs_.push_back(make_tensor(s, exchange_ + arena_offset(layout_, arena, shift, s)));
    return "";
  }

  json run(bool census, double probe_ms) {
    // The trials are over: timed calls pay nothing (probes come before them).
    if (census_ && !census && candidate_loaded_) census_->stop();
    if (census_ && census) census_->begin();
    if (!mark("window")) return failure("internal", "no go from the judge after the window's mark");
    if (auto st = dev_->start_timer(); !st) return failure("runtime_error", st.message());
    int rc = 0;
    // A probe (probe_ms > 0) is the worker's own call, before the candidate
    // loads and again after its calls (the judge takes the lower overhead).
    if (candidate_loaded_ && probe_ms <= 0) {
      rc = forward_(args_.data(), static_cast<int>(args_.size()), params_.data(), static_cast<int>(params_.size()),
                    outs_.data(), static_cast<int>(outs_.size()), dev_->stream());
    } else {
      // A probe: the outputs written once by the worker, so the memory a call
      // leaves behind is like a candidate's, then work lasting probe_ms done
      // as a candidate's is (a kernel the window's synchronization waits for,
      // on CUDA), since the judge's wake-up after a call grows with its length.
      for (size_t i = 0; i < outs_.size(); ++i)
        if (auto st = dev_->fill_sentinel(outs_[i].data, layout_.outputs[i].nbytes, outs_[i].dtype, 1); !st)
          return failure("runtime_error", st.message());
      if (auto st = dev_->probe_work(probe_ms); !st) return failure("runtime_error", st.message());
    }
    auto ms = dev_->stop_timer();
    if (!mark("window_end")) return failure("internal", "no go from the judge after the window's end mark");
    // Census, outside the window: threads not in the baseline (taken before
    // the candidate loaded) that are still running. A thread the call joined
    // may still be listed for a moment, but it is exiting (PF_EXITING) or dead.
    json started = new_threads(baseline_threads_);
    std::string cache = dev_->cache_tampering();
    json kernels = json::array();
    if (census_ && census && ms) {
      std::map<std::pair<std::string, uint32_t>, int> counts;
      for (const auto& k : census_->end()) ++counts[{k.name, k.stream}];
      for (const auto& [key, n] : counts) kernels.push_back({{"name", key.first}, {"stream", key.second}, {"launches", n}});
    }
    json children = json::array();
    for (const auto& pid : child_processes()) children.push_back(pid);
    forbidden_attempts attempts = take_attempts();
    json denied = attempts.processes;
    std::string deferred = deferred_work_state();
    for (const auto& call : attempts.deferred_work) deferred += (deferred.empty() ? "" : "; ") + ("a denied " + call);
    if (!ms) return failure("runtime_error", ms.message());
    if (rc != 0) return failure("runtime_error", "cudal1_forward returned " + std::to_string(rc));
    json own_contexts = json::array();
    if (contexts_)
      for (const auto& c : contexts_->created()) own_contexts.push_back(c);
    json reply = {{"ok", true}, {"ms", *ms}, {"new_threads", started}, {"own_contexts", own_contexts}, {"child_processes", children},
                  {"process_attempts", denied}, {"escape_attempts", attempts.escapes}, {"deferred_work", deferred},
                  {"cache_tampering", cache}};
    if (contexts_)
      if (std::string lost = contexts_->lost(); !lost.empty()) reply["own_contexts_lost"] = lost;
    if (census) {
      if (census_) reply["kernels"] = kernels;
      else reply["census"] = census_note_;
    }
    return reply;
  }

  // Where the judge split the run request (split_id_ set): tells it the
  // window is about to start, or has ended, and waits for its go, while the
  // judge stops the process and reads its CPU time (channel.h).
  bool mark(const char* which) {
    if (split_id_.is_null()) return true;
    send({{"mark", which}, {"id", split_id_}});
    char* line = nullptr;
    size_t cap = 0;
    json reply = getline(&line, &cap, commands_) > 0 ? json::parse(line, nullptr, false) : json();
    bool go = reply.is_object() && reply.value("op", "") == "go";
    std::free(line);
    return go;
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
  std::unique_ptr<context_watch> contexts_;  // CUDA only; every call
  std::string contexts_note_;
  std::string census_note_;
  std::string network_;
  unsigned sandbox_uid_ = 0;
  FILE* commands_;             // the judge's commands (a go after a mark)
  json split_id_;              // the run request's id where the judge split it, else null
  std::set<std::string> baseline_threads_;  // the worker's and the driver's, before the candidate loaded
  exchange_layout layout_;
  forward_fn forward_ = nullptr;
  bool candidate_loaded_ = false;  // before "open", calls are the judge's probes
  char* exchange_ = nullptr;
  std::vector<cudal1_tensor> args_, outs_, params_;
};

int worker_main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--exec-sandboxed") == 0) return exec_sandboxed(argc, argv);
  std::string backend = "cpu";
  uint64_t flush_bytes = 64ull << 20;
  unsigned sandbox_uid = 0;
  int cpu = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--flush-bytes" && i + 1 < argc) flush_bytes = std::stoull(argv[++i]);
    else if (a == "--sandbox-uid" && i + 1 < argc) sandbox_uid = static_cast<unsigned>(std::stoul(argv[++i]));
    else if (a == "--cpu" && i + 1 < argc) cpu = std::stoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: cudal1-worker --backend cpu|cuda [--flush-bytes N] [--sandbox-uid UID] [--cpu N] (started by cudal1)\n");
      return 2;
    }
  }
  // On the CPU the judge chose, before any thread exists: every thread the
  // driver or the candidate starts inherits it.
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  // As init of its own PID namespace the worker ignores signals it has no
  // handler for, even those the kernel sends when a limit is hit (SIGXFSZ
  // for a flooded log, SIGXCPU): they end it here, as they would elsewhere.
  for (int sig : {SIGXFSZ, SIGXCPU, SIGPIPE, SIGABRT, SIGTERM, SIGHUP, SIGINT, SIGALRM, SIGUSR1, SIGUSR2})
    std::signal(sig, [](int sig) { _exit(128 + sig); });
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
  FILE* commands = fdopen(3, "r");
  if (!commands) return 3;
  worker w(std::move(dev), network, sandbox_uid, commands);
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
