// The judgment driver: named phases over two workers.
//
//   start_reference  the task's PyTorch Model in its own process (python)
//   start_candidate  a fresh cudal1-worker for this candidate
//   compile          content-hash cached, time-limited
//   load             the reference lays out the exchange; the worker maps it
//   measure          calls with fresh inputs, each checked; trials, warm-up,
//                    then interleaved timed pairs until the stopping rule says so
//   finish           parameters checked, workers stopped, statistics computed
#include "judge/judge.h"
#include "judge/recheck.h"
#include "timing/clock_check.h"

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "audit/kernel_origin.h"
#include "audit/speed_of_light.h"
#include "audit/static_audit.h"
#include "base/fs.h"
#include "check/tolerance.h"
#include "compile/compiler.h"
#include "compile/python_build.h"
#include "task/python.h"
#include "worker/census.h"
#include "worker/channel.h"
#include "worker/layout.h"
#include "worker/ref_server.h"

namespace cudal1 {

using json = nlohmann::json;

const char* to_string(verdict v) {
  switch (v) {
    case verdict::correct: return "correct";
    case verdict::incorrect: return "incorrect";
    case verdict::compile_error: return "compile_error";
    case verdict::runtime_error: return "runtime_error";
    case verdict::timeout: return "timeout";
    case verdict::rejected: return "rejected";
  }
  return "unknown";
}

std::string cache_dir_of(const judge_options& options) {
  return options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
}

std::string auto_backend() { return file_exists("/dev/nvidiactl") ? "cuda" : "cpu"; }

namespace {

// The CPUs of `cpu`'s physical core (its SMT siblings and itself), from
// /sys; just `cpu` where the topology is not there.
std::vector<int> core_siblings(int cpu) {
  std::vector<int> out;
  auto text = read_file("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
  if (text) {
    // "3,11" or "2-3"
    std::string list = *text;
    size_t i = 0;
    while (i < list.size()) {
      char* end = nullptr;
      long lo = std::strtol(list.c_str() + i, &end, 10);
      if (end == list.c_str() + i) break;
      long hi = lo;
      i = end - list.c_str();
      if (i < list.size() && list[i] == '-') {
        hi = std::strtol(list.c_str() + i + 1, &end, 10);
        i = end - list.c_str();
      }
      for (long c = lo; c <= hi && c < CPU_SETSIZE; ++c) out.push_back(static_cast<int>(c));
      if (i < list.size() && list[i] == ',') ++i; else break;
    }
  }
  if (std::find(out.begin(), out.end(), cpu) == out.end()) out.push_back(cpu);
  return out;
}

result<int> parse_cpu(const std::string& text, const cpu_set_t& allowed) {
  char* end = nullptr;
  long c = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || c < 0 || c >= CPU_SETSIZE)
    return make_error("--cpu must be auto, none, split, N or R,C (CPU numbers), not '" + text + "'");
  if (!CPU_ISSET(c, &allowed)) return make_error("--cpu: this process may not run on CPU " + text);
  return static_cast<int>(c);
}

}  // namespace

result<cpu_pins> choose_cpus(const std::string& choice, const std::string& backend) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpu_pins{};
  if (choice == "none" || (choice == "auto" && backend != "cuda")) return cpu_pins{};
  int last = -1;
  for (int c = CPU_SETSIZE - 1; c >= 0 && last < 0; --c)
    if (CPU_ISSET(c, &allowed)) last = c;
  if (choice == "auto" || choice == "split") {
    // The last CPU this process may use: the first ones take more of the
    // system's interrupts and housekeeping.
    if (last < 0) return cpu_pins{};
    cpu_pins pins{last, last};
    if (choice == "split") {
      auto siblings = core_siblings(last);
      for (int c = last - 1; c >= 0; --c)
        if (CPU_ISSET(c, &allowed) && std::find(siblings.begin(), siblings.end(), c) == siblings.end()) {
          pins.reference = c;
          break;
        }
    }
    return pins;
  }
  if (auto comma = choice.find(','); comma != std::string::npos) {
    auto r = parse_cpu(choice.substr(0, comma), allowed);
    if (!r) return r.err();
    auto c = parse_cpu(choice.substr(comma + 1), allowed);
    if (!c) return c.err();
    return cpu_pins{*r, *c};
  }
  auto c = parse_cpu(choice, allowed);
  if (!c) return c.err();
  return cpu_pins{*c, *c};
}

json order_effect(const std::vector<double>& ref_ms, const std::vector<bool>& ref_first) {
  std::vector<double> first, second;
  for (size_t i = 0; i < ref_ms.size() && i < ref_first.size(); ++i) (ref_first[i] ? first : second).push_back(ref_ms[i]);
  if (first.empty() || second.empty()) return nullptr;
  double a = summarize_samples(first).median_ms, b = summarize_samples(second).median_ms;
  return {{"first_median_ms", a}, {"second_median_ms", b}, {"first_pairs", first.size()}, {"second_pairs", second.size()},
          {"second_over_first", a > 0 ? json(b / a) : json(nullptr)}};
}

result<std::string> resolve_backend(const std::string& candidate_path, const std::string& requested) {
  std::string ext = std::filesystem::path(candidate_path).extension().string();
  std::string natural;
  if (ext == ".cu") natural = "cuda";
  else if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") natural = "cpu";
  else if (ext == ".py") {
    // A KernelBench ModelNew runs wherever the user says; auto: the GPU if there is one.
    if (requested == "auto" || requested.empty()) return auto_backend();
    if (requested != "cpu" && requested != "cuda") return make_error("unknown backend '" + requested + "' (auto, cpu or cuda)");
    return requested;
  } else return make_error(candidate_path + ": a candidate is a .cu (CUDA), .cpp (CPU) or .py (a KernelBench ModelNew) file");
  if (requested == "auto" || requested.empty() || requested == natural) return natural;
  if (requested != "cpu" && requested != "cuda") return make_error("unknown backend '" + requested + "' (auto, cpu or cuda)");
  return make_error(candidate_path + " is a " + ext + " file, which runs on the " + natural + " backend, not " + requested);
}

namespace {

constexpr double kHelloTimeoutS = 120;     // CUDA context creation, torch import
constexpr double kRefCallTimeoutS = 300;   // one reference call or check
constexpr uint64_t kCpuFlushBytes = 64ull << 20;
constexpr uint64_t kCudaFlushBytes = 256ull << 20;  // >= 2x the L2 of an H200 (60 MB) or B200 (126 MB)
constexpr unsigned kSandboxUid = 65534;  // nobody: the candidate worker's user where the judge is root
constexpr unsigned kReferenceUid = 65533;  // an untrusted task's sealed reference: not the candidates' user
constexpr int kWarmupProbes = 4;         // first calls of the worker's own, not kept (cold paths)
constexpr int kOverheadProbes = 32;      // calls timed before the candidate loads, the worker's own
constexpr double kProbeMs[] = {0.02, 0.2, 2, 20};  // their lengths

class judgment_run {
 public:
  judgment_run(std::string task, std::string cand, const judge_options& opt, progress_sink& progress)
      : opt_(opt), progress_(progress) {
    j_.task_path = absolute_path(task);
    j_.baseline = opt.baseline;
    if (!cand.empty()) j_.candidate_path = absolute_path(cand);
  }
  ~judgment_run() {
    if (reference_) reference_->kill();
    if (candidate_) candidate_->kill();
    if (!scratch_.empty() && !opt_.keep_scratch) remove_tree(scratch_);
  }

  /// The task audit: the reference alone, asked whether trivial outputs
  /// (zeros, a constant, a copy of an input) would pass its checks.
  result<json> run_task_audit(int seeds) {
    task_only_ = true;
    if (auto s = setup(); !s) return s.err();
    if (auto s = start_reference(); !s) return s.err();
    if (auto s = await_reference(); !s) return s.err();
    write_cache_updates(cache_dir(), j_.cache_updates, j_.backend);
    progress_.phase("trying trivial outputs on " + std::to_string(seeds) + " inputs");
    json seed_list = json::array();
    for (int i = 0; i < seeds; ++i) seed_list.push_back(rng_() >> 12);
    worker_reply r = reference_->request({{"op", "audit_task"}, {"seeds", seed_list}}, opt_.task_timeout_s);
    if (r.what != worker_reply::kind::ok) return reference_error("auditing", r);
    return json{{"task", j_.task_path}, {"backend", j_.backend}, {"profile", j_.profile.empty() ? json() : json(j_.profile)},
                {"flags", r.body.value("flags", json::array())}};
  }

  /// The reference alone, timed the way a judgment times it (L2 flushed,
  /// fresh inputs every call, the same warm-up and stopping rule).
  result<reference_timing> run_reference_timing() {
    task_only_ = true;
    start_ = std::chrono::steady_clock::now();
    if (auto s = setup(); !s) return s.err();
    if (auto s = start_reference(); !s) return s.err();
    if (auto s = await_reference(); !s) return s.err();
    progress_.phase("timing the reference");
    auto call = [&](double* ms) -> status {
      worker_reply prep = reference_->request({{"op", "prepare"}, {"seed", rng_() >> 12}}, kRefCallTimeoutS);
      if (prep.what != worker_reply::kind::ok) return reference_error("generating inputs", prep);
      worker_reply run = reference_->request({{"op", "run"}}, kRefCallTimeoutS);
      if (run.what != worker_reply::kind::ok) return reference_error("running the reference", run);
      *ms = run.body.value("ms", 0.0);
      return ok_status();
    };
    double ms = 0;
    auto warm_start = std::chrono::steady_clock::now();
    for (int w = 0; warming_up(w, warm_start); ++w)
      if (auto s = call(&ms); !s) return s.err();
    reference_timing t;
    auto measure_start = std::chrono::steady_clock::now();
    for (;;) {
      if (auto s = call(&ms); !s) return s.err();
      t.samples_ms.push_back(ms);
      stop_reason reason = should_stop(opt_.stopping, t.samples_ms, t.samples_ms, seconds_since(measure_start));
      if (reason != stop_reason::none) {
        t.stop_reason = to_string(reason);
        break;
      }
    }
    reference_->kill();
    t.summary = summarize_samples(t.samples_ms);
    t.task_path = j_.task_path;
    t.backend = j_.backend;
    t.profile = j_.profile;
    t.python = j_.python;
    t.torch_version = j_.torch_version;
    t.speed_of_light = sol_;
    t.signature = j_.signature;
    if (t.summary.median_ms > 0) add_floor(t.speed_of_light, t.summary.median_ms);
    t.total_s = seconds_since(start_);
    write_cache_updates(cache_dir(), j_.cache_updates, j_.backend);
    return t;
  }

  /// After a reply whose fields had the wrong types (the worker's checks
  /// let none through; a candidate that writes its own replies might): the
  /// judgment ends there, rejected.
  judgment malformed_reply(const std::string& what) {
    if (reference_) reference_->kill();
    if (candidate_) candidate_->kill();
    j_.speedup.reset();
    reject("protocol_tampering", std::string("a reply the judge could not read: ") + what);
    j_.total_s = seconds_since(start_);
    return j_;
  }

  result<judgment> run() {
    start_ = phase_start_ = std::chrono::steady_clock::now();
    if (auto s = setup(); !s) return s.err();
    if (auto s = start_reference(); !s) return s.err();
    if (auto s = start_candidate(); !s) return s.err();
    end_phase("start");
    bool go_on = compile();
    end_phase("compile");
    if (go_on) {
      if (auto s = await_reference(); !s) return s.err();
      end_phase("reference");
      go_on = load();
      if (pending_error_) return *pending_error_;
      end_phase("load");
    }
    if (go_on) {
      auto measured = measure();
      if (!measured) return measured.err();
      if (*measured) {
        auto finished = finish();
        if (!finished) return finished.err();
      }
    }
    // Both workers are ours to end now; a kill skips their exit handlers.
    reference_->kill();
    candidate_->kill();
    end_phase("finish");
    j_.total_s = seconds_since(start_);
    return j_;
  }

 private:
  // ---- setup ------------------------------------------------------------
  status setup() {
    if (!file_exists(j_.task_path)) return make_error("task not found: " + j_.task_path);
    if (task_only_) {
      // No candidate to say which backend: a GPU if the machine has one.
      j_.backend = opt_.backend == "auto" ? auto_backend() : opt_.backend;
      if (j_.backend != "cpu" && j_.backend != "cuda") return make_error("unknown backend '" + opt_.backend + "'");
    } else {
      if (!file_exists(j_.candidate_path)) return make_error("candidate not found: " + j_.candidate_path);
      auto backend = resolve_backend(j_.candidate_path, opt_.backend);
      if (!backend) return backend.err();
      j_.backend = *backend;
    }
    auto cpus = choose_cpus(opt_.cpu, j_.backend);
    if (!cpus) return cpus.err();
    j_.cpu = cpus->candidate;
    j_.reference_cpu = cpus->reference;
    auto data = data_dir();
    if (!data) return data.err();
    data_dir_ = *data;
    worker_exe_ = executable_dir() + "/cudal1-worker";
    if (!is_executable(worker_exe_)) return make_error("cudal1-worker not found beside cudal1 (" + worker_exe_ + ")");
    auto scratch = make_temp_dir("cudal1");
    if (!scratch) return scratch.err();
    scratch_ = *scratch;
    if (opt_.seed) {
      j_.seed = *opt_.seed;
    } else {
      std::random_device rd;
      j_.seed = (uint64_t{rd()} << 32) ^ rd();
    }
    rng_.seed(j_.seed);
    return ok_status();
  }

  // ---- start_reference ----------------------------------------------------
  // Starts the reference worker with each Python in turn and sends init at
  // once, so the task imports while the candidate compiles.
  status start_reference() {
    progress_.phase("starting the reference (PyTorch)");
    candidates_ = opt_.python.empty() ? python_candidates() : std::vector<std::string>{opt_.python};
    return spawn_next_reference();
  }

  status spawn_next_reference() {
    while (next_python_ < candidates_.size()) {
      std::string py = candidates_[next_python_++];
      std::string full = py.find('/') == std::string::npos ? find_in_path(py) : py;
      if (full.empty() || !is_executable(full)) {
        python_errors_ += "\n  " + py + ": not an executable";
        continue;
      }
      if (auto s = spawn_reference(full); !s) {
        python_errors_ += "\n  " + full + ": " + s.message();
        continue;
      }
      j_.python = full;
      // A sealed reference reaches its own folder by its working directory
      // only: the task and the cached figures are copied there.
      json init = {{"op", "init"},
                   {"task", untrusted_box_.empty() ? j_.task_path : "task.py"},
                   {"backend", j_.backend},
                   {"seed", rng_() >> 12},
                   {"precision", opt_.precision},
                   {"baseline", opt_.baseline},
                   {"replace_every", opt_.reference_replace_every},
                   {"precise", !task_only_ && opt_.defenses},
                   {"tolerances", tolerance_table_json(opt_.precision)},
                   {"looser_tolerances", looser_tolerances_json(opt_.precision)},
                   {"exchange_path", untrusted_box_.empty() ? scratch_ + "/exchange.bin" : "exchange.bin"},
                   {"calibration_path", untrusted_box_.empty() ? cache_dir() + "/calibration-" + j_.backend + ".json"
                                                               : "calibration-" + j_.backend + ".json"},
                   {"flush_bytes", j_.backend == "cuda" ? kCudaFlushBytes : kCpuFlushBytes}};
      if (!opt_.profile.empty()) {
        init["profile"] = opt_.profile;
        init["profile_required"] = true;
      } else if (j_.backend == "cpu") {
        init["profile"] = "cpu";
      }
      // A failed write means the process is already gone; the hello tells why.
      (void)reference_->send(init);
      return ok_status();
    }
    if (!opt_.python.empty())
      return make_error("no Python with PyTorch found: --python" + python_errors_.substr(python_errors_.find('\n') + 2));
    return make_error("no Python with PyTorch found; install one (Debian: apt-get install python3-torch) or pass --python PATH. Tried:" +
                      python_errors_);
  }

  // A fresh reference worker for this interpreter: forked by the reference
  // server (torch already imported) where it can be, else started directly.
  status spawn_reference(const std::string& python) {
    std::string script = data_dir_ + "/python/cudal1_ref.py";
    std::string log = scratch_ + "/reference.log";
    // Idle OpenMP threads of the reference must not spin while the candidate runs.
    std::vector<std::string> env = {"OMP_WAIT_POLICY=PASSIVE", "PYTHONDONTWRITEBYTECODE=1"};
    if (j_.reference_cpu >= 0) env.push_back("CUDAL1_CPU=" + std::to_string(j_.reference_cpu));
    if (opt_.untrusted_task) return spawn_sealed_reference(python, script, log, env);
    if (reference_server_enabled() && opt_.reference_server) {
      bool unusable = false;
      reference_fork_request req{python, script, log, env};
      req.use_remembered = opt_.python.empty();  // a chosen interpreter is always tried afresh
      auto child = fork_reference(req, &unusable);
      if (child) {
        reference_.emplace(worker_channel::adopt(std::move(*child), log));
        return ok_status();
      }
      if (unusable) return make_error(child.message());
      // Otherwise the server is what failed: a worker of our own will do.
    }
    if (!has_torch(python)) return make_error("no torch in this interpreter");
    worker_spawn spawn;
    spawn.argv = {python, "-u", script};
    spawn.log_path = log;
    spawn.env = env;
    auto ch = worker_channel::start(spawn);
    if (!ch) return ch.err();
    reference_.emplace(std::move(*ch));
    return ok_status();
  }

  // Whether this interpreter has torch, found without importing it (tens of
  // milliseconds). A reference started directly says so only in its hello,
  // after the ModelNew worker has started with the same interpreter (the
  // server's fork says at once): a Python without torch first on PATH failed
  // every ModelNew judgment with the servers off.
  static bool has_torch(const std::string& python) {
    auto run = run_command({python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"}, 30);
    return run && !run->timed_out && run->exit.exited && run->exit.code == 0;
  }

  // An untrusted task's reference: started afresh in a folder of its own
  // (the task, the cached calibration and FLOP counts copied in; the CPU
  // exchange file made there), with the candidate's isolation, then sealed by
  // cudal1_ref.py itself before it imports the task.
  status spawn_sealed_reference(const std::string& python, const std::string& script, const std::string& log,
                                std::vector<std::string> env) {
    if (!opt_.defenses || env_or("CUDAL1_SANDBOX", "1") == "0")
      return make_error("an untrusted task's reference runs only in the sandbox (the defenses are off here)");
    if (!has_torch(python)) return make_error("no torch in this interpreter");
    untrusted_box_ = scratch_ + "/reference-box";
    if (auto s = make_dirs(untrusted_box_); !s) return s;
    auto source = read_file(j_.task_path);
    if (!source) return source.err();
    if (auto s = write_file_atomic(untrusted_box_ + "/task.py", *source); !s) return s;
    for (const std::string& name : {"calibration-" + j_.backend + ".json", std::string("flops.json")})
      if (auto text = read_file(cache_dir() + "/" + name))
        (void)write_file_atomic(untrusted_box_ + "/" + name, *text);
    worker_spawn spawn;
    spawn.argv = {python, "-u", script, "--backend", j_.backend, "--seal", data_dir_ + "/lib/libcudal1_seal.so"};
    if (geteuid() == 0) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(untrusted_box_))
        if (chown(e.path().c_str(), kReferenceUid, kReferenceUid) != 0)
          return make_error("cannot hand the reference's folder to the sandbox's user");
      if (chown(untrusted_box_.c_str(), kReferenceUid, kReferenceUid) != 0)
        return make_error("cannot hand the reference's folder to the sandbox's user");
      spawn.argv.insert(spawn.argv.end(), {"--sandbox-uid", std::to_string(kReferenceUid)});
    }
    spawn.log_path = log;
    spawn.working_dir = untrusted_box_;
    spawn.isolate = env_or("CUDAL1_NAMESPACES", "1") != "0";
    // CUDA IPC handles cannot cross PID namespaces: on CUDA the reference
    // keeps the judge's, with a /proc showing its own user's processes only;
    // the process filter denies it signals, tracing and memory access to any
    // other process, and its user is not the candidates'.
    spawn.share_pid_namespace = j_.backend == "cuda";
    spawn.clean_env = true;
    env.insert(env.end(), {"HOME=" + untrusted_box_, "TMPDIR=" + untrusted_box_, "LANG=C.UTF-8", "CUDA_CACHE_DISABLE=1",
                           "PYTHONNOUSERSITE=1"});
    for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
                             "PYTHONPATH"})
      if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
    spawn.env = env;
    spawn.limits.open_files = 256;
    spawn.limits.cpu_seconds = 3600;
    spawn.limits.file_bytes = 4ull << 30;  // the CPU exchange file lives in its folder
    auto ch = worker_channel::start(spawn);
    if (!ch) return ch.err();
    reference_.emplace(std::move(*ch));
    return ok_status();
  }

  status await_reference() {
    for (;;) {
      worker_reply hello = reference_->receive(kHelloTimeoutS);
      if (hello.what == worker_reply::kind::ok) {
        j_.torch_version = hello.body.value("torch", "");
        if (!untrusted_box_.empty()) {
          if (!hello.body.contains("sandbox")) return make_error("the untrusted task's reference did not seal itself");
          j_.reference_sandbox = hello.body["sandbox"];
        }
        if (j_.backend == "cuda" && !hello.body.value("cuda", false))
          return make_error(j_.python + " has torch " + j_.torch_version + " without a usable GPU; the cuda backend needs CUDA PyTorch");
        break;
      }
      std::string why = hello.what == worker_reply::kind::failed ? hello.message() : reference_->log_tail(3);
      python_errors_ += "\n  " + j_.python + ": " + why;
      reference_->stop();
      reference_.reset();
      if (!opt_.python.empty()) return make_error("--python " + opt_.python + " cannot run the reference: " + why);
      if (auto s = spawn_next_reference(); !s) return s;
    }
    progress_.phase("importing the task and building the model");
    worker_reply init = reference_->receive(opt_.task_timeout_s);
    if (init.what != worker_reply::kind::ok) return reference_error("building the reference", init);
    if (!untrusted_box_.empty() && init.body.contains("exchange") && init.body["exchange"].is_object() &&
        init.body["exchange"].value("kind", "") == "file")
      init.body["exchange"]["path"] = untrusted_box_ + "/exchange.bin";  // made there, by its relative name
    auto layout = parse_layout(init.body);
    if (!layout) return layout.err();
    layout_ = std::move(*layout);
    if (init.body.contains("profile") && init.body["profile"].is_string()) j_.profile = init.body["profile"];
    sol_ = init.body.value("speed_of_light", json::object());
    j_.precision = {{"policy", opt_.precision}, {"reference", init.body.value("precise_reference", "off")}};
    if (init.body.contains("init_s")) j_.reference_init_s = init.body["init_s"];
    j_.signature = signature_of(init.body);
    init_inputs_ = init.body.value("init_inputs", json::object());
    // An untrusted task's figures stay its own: they never enter the cache.
    if (untrusted_box_.empty() && init.body.contains("cache_updates") && init.body["cache_updates"].is_object())
      j_.cache_updates = init.body["cache_updates"];
    j_.output_check = init.body.value("output_check", "");
    if (layout_.outputs.empty()) return make_error("Model.forward returned no tensors");
    return ok_status();
  }

  // The tensors' names, dtypes and shapes from the reference's init reply.
  static json signature_of(const json& body) {
    json sig = json::object();
    for (const char* part : {"inputs", "params", "outputs"}) {
      json list = json::array();
      if (body.contains(part) && body[part].is_array())
        for (const auto& spec : body[part]) {
          if (!spec.is_object()) continue;
          json s = {{"name", spec.value("name", "")}, {"dtype", spec.value("dtype", "")},
                    {"shape", spec.contains("shape") ? spec["shape"] : json::array()}};
          if (spec.contains("scalar") && spec["scalar"].is_string()) s["scalar"] = spec["scalar"];
          list.push_back(std::move(s));
        }
      sig[part] = list;
    }
    return sig;
  }

  error reference_error(const std::string& doing, const worker_reply& r) {
    std::string why;
    switch (r.what) {
      case worker_reply::kind::failed:
        // A problem with the task itself already names the task.
        if (r.failure_kind() == "task") return make_error(r.message());
        why = r.message();
        break;
      case worker_reply::kind::timeout: why = "no answer in time"; break;
      default: why = "the reference process ended (" + r.exit.describe() + ")\n" + reference_->log_tail(10); break;
    }
    return make_error("task " + j_.task_path + ": " + doing + " failed: " + why);
  }

  // ---- start_candidate ---------------------------------------------------
  status start_candidate() {
    // The worker's own folder: its working folder, its library, and the only
    // place it may write; owned by the unprivileged user it becomes. The
    // scratch folder above it stays the judge's (0700): the worker reaches
    // its folder by its working directory, nothing else of the scratch.
    sandbox_dir_ = scratch_ + "/sandbox";
    if (auto s = make_dirs(sandbox_dir_); !s) return s;
    worker_spawn spawn;
    modelnew_ = std::filesystem::path(j_.candidate_path).extension() == ".py";
    if (modelnew_) {
      // The ModelNew worker: the reference's Python, sealed by the same
      // library the native worker's sandbox is built from.
      spawn.argv = {j_.python, "-u", data_dir_ + "/python/cudal1_candidate.py", "--backend", j_.backend, "--seal",
                    data_dir_ + "/lib/libcudal1_seal.so"};
    } else {
      spawn.argv = {worker_exe_, "--backend", j_.backend};
    }
    if (j_.cpu >= 0) spawn.argv.insert(spawn.argv.end(), {"--cpu", std::to_string(j_.cpu)});
    if (opt_.defenses && geteuid() == 0 && chown(sandbox_dir_.c_str(), kSandboxUid, kSandboxUid) == 0) {
      sandbox_uid_ = kSandboxUid;
      spawn.argv.insert(spawn.argv.end(), {"--sandbox-uid", std::to_string(kSandboxUid)});
    }
    spawn.log_path = scratch_ + "/candidate.log";
    spawn.working_dir = sandbox_dir_;
    // Its own namespaces (no other process to see or signal) and none of the
    // judge's environment: only what the worker and CUDA need.
    spawn.isolate = opt_.defenses && env_or("CUDAL1_NAMESPACES", "1") != "0";
    spawn.clean_env = true;
    spawn.env = {"HOME=" + sandbox_dir_, "TMPDIR=" + sandbox_dir_, "LANG=C.UTF-8", "CUDA_CACHE_DISABLE=1"};
    for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING"})
      if (const char* v = std::getenv(name)) spawn.env.push_back(std::string(name) + "=" + v);
    if (modelnew_) {
      spawn.env.insert(spawn.env.end(), {"PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "OMP_WAIT_POLICY=PASSIVE"});
      if (const char* v = std::getenv("PYTHONPATH")) spawn.env.push_back(std::string("PYTHONPATH=") + v);
    }
    spawn.limits.open_files = 256;
    spawn.limits.cpu_seconds = 3600;
    spawn.limits.file_bytes = 256ull << 20;  // a candidate printing without end fills no disk
    // A bound on the candidate's memory, so a huge allocation fails in the
    // worker instead of waking the OOM killer. Not on CUDA: the driver
    // reserves address ranges far larger than any real use.
    if (j_.backend == "cpu") spawn.limits.address_bytes = candidate_memory_limit();
    if (!opt_.defenses) spawn.env.push_back("CUDAL1_SANDBOX=0");
    auto start_own = [&]() -> status {
      j_.candidate_start = "spawned";
      auto ch = worker_channel::start(spawn);
      if (!ch) return ch.err();
      candidate_.emplace(std::move(*ch));
      return ok_status();
    };
    if (!(modelnew_ && fork_candidate(spawn)))
      if (auto s = start_own(); !s) return s;
    worker_reply hello = candidate_->receive(kHelloTimeoutS);
    if (hello.what != worker_reply::kind::ok && j_.candidate_start == "forked") {
      // A forked worker that cannot start is the server's problem, not the
      // machine's: one the judge starts itself says which it is.
      progress_.phase("the candidate server's worker did not start (" + hello.message() + "): starting it afresh");
      candidate_->kill();
      if (auto s = start_own(); !s) return s;
      hello = candidate_->receive(kHelloTimeoutS);
    }
    if (hello.what != worker_reply::kind::ok) {
      std::string why = hello.what == worker_reply::kind::failed ? hello.message() : hello.exit.describe() + " " + candidate_->log_tail(5);
      return make_error("the " + j_.backend + " backend is not available: " + why);
    }
    j_.device = hello.body["device"];
    return ok_status();
  }

  // A ModelNew worker forked by the candidate server, which imported torch
  // once (3.6 s on the H200 machine), made as `spawn` would make it: its
  // arguments, folder, environment, limits and namespaces travel with the
  // request (python/cudal1_candidate.py start_forked_worker). False where
  // the server cannot serve: the judge then starts the worker itself.
  bool fork_candidate(const worker_spawn& spawn) {
    if (!reference_server_enabled() || !opt_.reference_server) return false;
    reference_fork_request req;
    req.role = "cand";
    req.python = spawn.argv[0];
    req.script = spawn.argv[2];
    req.key_files = {"cudal1_forkserver.py"};
    req.log_path = spawn.log_path;
    req.clean_env = true;
    req.env = spawn.env;
    req.use_remembered = opt_.python.empty();
    req.exit_status = true;
    const process_limits& l = spawn.limits;
    req.payload = {{"args", std::vector<std::string>(spawn.argv.begin() + 3, spawn.argv.end())},
                   {"cwd", spawn.working_dir},
                   {"isolate", spawn.isolate},
                   {"limits", {{"cpu_seconds", l.cpu_seconds}, {"address_bytes", l.address_bytes},
                               {"open_files", l.open_files}, {"processes", l.processes}, {"file_bytes", l.file_bytes}}}};
    bool unusable = false;
    auto child = fork_reference(req, &unusable);
    if (!child) {
      progress_.phase("the candidate server could not start the worker (" + child.message() + "): starting it afresh");
      return false;
    }
    candidate_.emplace(worker_channel::adopt(std::move(*child), spawn.log_path));
    j_.candidate_start = "forked";
    return true;
  }

  // Three quarters of the machine's memory, at least 4 GiB.
  static uint64_t candidate_memory_limit() {
    uint64_t total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
    return std::max<uint64_t>(total / 4 * 3, 4ull << 30);
  }

  // ---- compile --------------------------------------------------------------
  bool compile() {
    if (modelnew_) return build_python_candidate();
    progress_.phase("compiling " + std::filesystem::path(j_.candidate_path).filename().string());
    compile_request req;
    std::string ext = std::filesystem::path(j_.candidate_path).extension().string();
    req.source_path = scratch_ + "/candidate" + ext;
    req.display_name = std::filesystem::path(j_.candidate_path).filename().string();
    req.backend = j_.backend;
    if (j_.backend == "cuda") {
      std::string cc = j_.device.value("compute_capability", "9.0");
      req.cc_major = std::stoi(cc.substr(0, cc.find('.')));
      req.cc_minor = std::stoi(cc.substr(cc.find('.') + 1));
    }
    req.include_dir = data_dir_ + "/include";
    req.cache_dir = cache_dir();
    req.scratch_dir = scratch_;
    req.timeout_s = opt_.compile_timeout_s;
    auto source = read_file(j_.candidate_path);
    if (!source) return fail(verdict::compile_error, source.message());
    if (auto s = write_file_atomic(req.source_path, *source); !s) return fail(verdict::compile_error, s.message());
    // The static screen flags; the dynamic checks below decide.
    if (auto rules = load_audit_rules(); rules) j_.audit = audit_hits_json(audit_source(*source, *rules));
    auto out = compile_candidate(req);
    if (!out) return fail(verdict::compile_error, out.message());
    j_.compile_s = out->seconds;
    j_.compile_cached = out->cached;
    if (!out->ok) {
      add_check("compile", false, out->timed_out ? "compilation timed out" : "the compiler reported errors");
      return fail(verdict::compile_error, out->diagnostics);
    }
    add_check("compile", true, out->cached ? "found in the compile cache" : "compiled in " + fmt_s(out->seconds));
    // The worker loads its own copy, in its own folder: it may read nothing
    // of the compile cache.
    library_ = sandbox_dir_ + "/candidate.so";
    if (std::rename(out->library_path.c_str(), library_.c_str()) != 0 || chmod(library_.c_str(), 0644) != 0)
      return fail(verdict::compile_error, "cannot place the compiled library in the worker's folder: " + std::string(std::strerror(errno)));
    return true;
  }

  // A ModelNew's extensions (load_inline, load) are built outside the run
  // sandbox, cached by content; the worker gets its own copy of the build.
  bool build_python_candidate() {
    std::string name = std::filesystem::path(j_.candidate_path).filename().string();
    progress_.phase("building " + name);
    auto source = read_file(j_.candidate_path);
    if (!source) return fail(verdict::compile_error, source.message());
    if (auto rules = load_audit_rules(); rules) j_.audit = audit_hits_json(audit_source(*source, *rules, "python"));
    std::string copy = scratch_ + "/candidate.py";
    if (auto s = write_file_atomic(copy, *source); !s) return fail(verdict::compile_error, s.message());
    std::string arch = j_.backend == "cuda" ? j_.device.value("compute_capability", "9.0") : "";
    auto out = build_modelnew(make_modelnew_request(copy, name, data_dir_, j_.python, cache_dir(), arch, opt_.defenses,
                                                    opt_.compile_timeout_s));
    if (!out) return fail(verdict::compile_error, out.message());
    j_.compile_s = out->seconds;
    j_.compile_cached = out->cached;
    if (!out->ok) {
      add_check("compile", false, out->timed_out ? "building the extensions timed out" : "importing or building the candidate failed");
      return fail(verdict::compile_error, out->diagnostics);
    }
    add_check("compile", true, out->cached ? "its build found in the cache"
                                           : "built in " + fmt_s(out->seconds) + (out->notes.empty() ? "" : " (" + out->notes + ")"));
    // The worker's own copy: it may read nothing of the cache.
    std::error_code ec;
    std::filesystem::copy(out->library_path, sandbox_dir_ + "/build",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::skip_symlinks, ec);
    if (!ec) std::filesystem::copy_file(copy, sandbox_dir_ + "/candidate.py", ec);
    if (ec) return fail(verdict::compile_error, "cannot place the candidate in the worker's folder: " + ec.message());
    if (sandbox_uid_) {  // its user's, as the folder holding it
      for (const auto& e : std::filesystem::recursive_directory_iterator(sandbox_dir_, ec))
        (void)lchown(e.path().c_str(), sandbox_uid_, sandbox_uid_);
    }
    library_ = sandbox_dir_ + "/candidate.py";
    return true;
  }

  // ---- load -------------------------------------------------------------------
  bool load() {
    json load_cmd = {{"op", "load"}, {"layout", layout_to_json(layout_)}};
    if (modelnew_) load_cmd["init_inputs"] = init_inputs_;
    worker_reply r = candidate_->request(load_cmd, opt_.call_timeout_s + 30);
    if (r.what != worker_reply::kind::ok) return candidate_failure("preparing the worker", r);
    record_sandbox(r.body["sandbox"]);
    // From here (the probes included, so they pay what the candidate's calls
    // pay) the worker is stopped whenever it is not answering: what the
    // candidate leaves behind cannot run while the reference stages, runs
    // and checks (an attack review: a ModelNew that hooked the worker's reply
    // flush computed the next call's output from the shared exchange between
    // requests, on the worker's own main thread, at 2-3x an honest speedup).
    if (opt_.defenses) candidate_->freeze_between_requests();
    // Before any candidate code exists in the worker: what its requests cost
    // around a call that does nothing, on the judge's own clock.
    // The judge's wake-up after a call grows with the call's length (a
    // longer sleep, a deeper idle state: +0.1 ms after a 2 ms CPU call here),
    // so the probes last from 0.02 to 20 ms and a candidate is compared with
    // those nearest its own length.
    for (int i = -kWarmupProbes; i < kOverheadProbes; ++i) {
      double probe_ms = kProbeMs[(i + kWarmupProbes) % std::size(kProbeMs)];
      // Fresh inputs first, as a timed call has them: the machine then has
      // the timed phase's rhythm (between a call's requests the judge and the
      // workers otherwise idle longer, and wake up slower, than they will).
      worker_reply prep = reference_->request({{"op", "prepare"}, {"seed", rng_() >> 12}}, kRefCallTimeoutS);
      if (prep.what != worker_reply::kind::ok) {
        pending_error_ = reference_error("generating inputs", prep);
        return false;
      }
      call_timing probe;
      // Half the probes of each length come right after a run of the
      // reference, as half the timed calls do (their order is random): on
      // a CPU the two workers share, the reference's run leaves the
      // worker's caches cold, and a Python worker's ~1 ms of requests then
      // costs 0.1-0.3 ms more (on an H200, honest ModelNew candidates sat
      // that far above probes that never followed the reference, and were
      // rejected as timer_tampering or timed by the judge's clock).
      const bool after_reference = ((i + kWarmupProbes) / static_cast<int>(std::size(kProbeMs))) % 2 == 1;
      if (stage_call(probe)) {
        if (after_reference) {
          worker_reply ran = reference_->request({{"op", "run"}}, kRefCallTimeoutS);
          if (ran.what != worker_reply::kind::ok) {
            pending_error_ = reference_error("running the reference", ran);
            return false;
          }
        }
        run_call(probe, false, probe_ms);
      }
      if (probe.reference_failed) {
        pending_error_ = reference_error(probe.doing, probe.err_reply);
        return false;
      }
      if (!probe) return candidate_failure("timing the worker's requests", probe.err_reply);
      if (i < 0) continue;
      probes_[probe_ms].excess_ms.push_back(probe.excess_ms);
      probes_[probe_ms].after_reference.push_back(after_reference);
    }
    // The judge's own thread census, from outside the worker: its baseline
    // now, before any of the candidate's code exists there (a census inside
    // the worker runs in the candidate's address space, which can blind it).
    outside_baseline_ = list_threads(worker_proc());
    outside_census_ = !outside_baseline_.empty();
    r = candidate_->request({{"op", "open"}, {"library", modelnew_ ? "./candidate.py" : "./candidate.so"}}, opt_.call_timeout_s + 30);
    if (r.what == worker_reply::kind::ok && outside_census_) {
      json started = outside_new_threads();
      if (!started.empty())
        return !reject("background_thread", "threads the candidate started when its library loaded, still running "
                                            "(the judge's census from outside the worker): " + started.dump());
    }
    if (r.what == worker_reply::kind::ok) {
      add_check("entry_point", true, modelnew_ ? "ModelNew built with the task's init inputs and the reference's parameters"
                                               : "cudal1_forward found");
      return true;
    }
    if (r.what == worker_reply::kind::failed && (r.failure_kind() == "missing_entry" || r.failure_kind() == "load_error")) {
      add_check("entry_point", false, r.message());
      return fail(verdict::compile_error, r.message());
    }
    return candidate_failure("loading the candidate", r);
  }

  // The sandbox check: every layer in force, or which is not and why.
  void record_sandbox(const json& sb) {
    auto layer = [&](const char* name) { return sb.value(name, std::string("?")); };
    std::string network = layer("network"), files = layer("filesystem"), user = layer("user"), procs = layer("processes"),
                pidns = layer("pid_namespace");
    process_filter_ = procs.rfind("threads only", 0) == 0;
    bool all = network.rfind("isolated", 0) == 0 && files.rfind("reads and writes only", 0) == 0 &&
               user.rfind("uid", 0) == 0 && process_filter_ && pidns.rfind("own", 0) == 0;
    add_check("sandbox", all, "network " + network + "; filesystem " + files + "; user " + user + "; processes " + procs +
                                  "; PID namespace " + pidns);
  }

  // One call of the candidate, as the judge times it: the reference's
  // process stages the call's inputs in an arena of the exchange (a fresh
  // address) and fills its outputs with sentinels, later flushes the caches
  // (the L2 is the device's), and reads the outputs there for the check; the
  // candidate's process gets only the run request, so whatever it does
  // beyond its window shows in excess_ms: the judge's time for that request
  // less the worker's own window, the same for every call of an honest
  // candidate and for the judge's probes before it loaded.
  struct call_timing {
    bool ok = false;
    worker_reply run, err_reply;
    std::string doing;
    int arena = 0;
    uint64_t shift = 0;
    double excess_ms = 0;
    bool reference_failed = false;  // the reference's stage or flush failed, not the candidate
    explicit operator bool() const { return ok; }
  };

  // The first part of a call: the reference's process stages it. It comes
  // right after prepare, before the pair's random order, so the probes and
  // every call meet the same state.
  bool stage_call(call_timing& t) {
    int call = j_.calls + probe_count_++;
    t.arena = call % 2;
    t.shift = (rng_() % (layout_.arenas.max_shift / 256)) * 256;
    worker_reply r = reference_->request({{"op", "stage"}, {"arena", t.arena}, {"shift", t.shift}, {"sentinel", call % 2}},
                                         kRefCallTimeoutS);
    j_.requests_ms["stage"].push_back(r.wall_ms);
    if (r.what == worker_reply::kind::ok) return true;
    t.err_reply = r;
    t.doing = "staging a call";
    t.reference_failed = true;
    return false;
  }

  // The rest: the caches flushed by the reference's process, the timed run,
  // the census's verdict. t.ok once done (or judged).
  void run_call(call_timing& t, bool census, double probe_ms = 0) {
    worker_reply flushed = reference_->request({{"op", "flush"}}, kRefCallTimeoutS);
    if (flushed.what != worker_reply::kind::ok) {
      t.err_reply = flushed;
      t.doing = "flushing the caches";
      t.reference_failed = true;
      return;
    }
    json run_cmd = {{"op", "run"}, {"arena", t.arena}, {"shift", t.shift}, {"census", census}};
    if (probe_ms > 0) run_cmd["probe_ms"] = probe_ms;
    worker_reply r = candidate_->request(run_cmd, opt_.call_timeout_s);
    if (r.what != worker_reply::kind::ok) {
      t.err_reply = r;
      t.doing = modelnew_ ? "calling ModelNew.forward" : "calling cudal1_forward";
      return;
    }
    j_.requests_ms["run"].push_back(r.wall_ms);
    t.excess_ms = r.wall_ms - r.body.value("ms", 0.0);
    t.run = std::move(r);
    run_census_verdict(t.run.body);
    t.ok = true;
  }

  // The worker's /proc folder in the judge's namespace: the census from
  // outside the worker reads it (src/worker/census.h).
  std::string worker_proc() const { return "/proc/" + std::to_string(candidate_->pid()); }

  // Threads of the worker not in the judge's baseline that are still running
  // (not exiting: a thread the call joined may be listed for a moment), as
  // "name (tid)", and its child processes, as "process PID".
  json outside_new_threads() const {
    std::string proc = worker_proc();
    json out = new_threads(outside_baseline_, proc);
    for (const auto& pid : child_processes(proc)) out.push_back("process " + pid);
    return out;
  }

  // What the census after a call found, as a verdict: true once rejected.
  bool run_census_verdict(const json& body) {
    if (ended_) return true;
    std::string call = " (call " + std::to_string(j_.calls + 1) + ")";
    if (outside_census_) {
      json started = outside_new_threads();
      if (!started.empty())
        return !reject("background_thread", "threads or processes the candidate started, still running after "
                                            "cudal1_forward returned (the judge's census from outside the worker): " +
                                                started.dump() + call);
    }
    if (!body.value("new_threads", json::array()).empty())
      return !reject("background_thread", "threads the candidate started (not in the baseline taken before its library loaded) "
                                          "still running after cudal1_forward returned: " + body["new_threads"].dump() + call);
    if (!body.value("process_attempts", json::array()).empty())
      return !reject("background_process", "the call tried to start a process (" + body["process_attempts"].dump() +
                                              "), which the sandbox denies" + call);
    if (!body.value("child_processes", json::array()).empty())
      return !reject("background_process", "processes started by the call still running: " + body["child_processes"].dump() + call);
    if (std::string deferred = body.value("deferred_work", ""); !deferred.empty())
      return !reject("deferred_work", "work set up to run after the call returned: " + deferred + call);
    if (std::string cache = body.value("cache_tampering", ""); !cache.empty())
      return !reject("cache_game", "the call left " + cache + call);
    // A ModelNew's outputs: a lazy or subclassed tensor is a hack; a wrong
    // count, dtype or shape is a wrong answer.
    if (body.contains("output_problem") && body["output_problem"].is_array() && body["output_problem"].size() == 2) {
      std::string cls = body["output_problem"][0], what = body["output_problem"][1];
      if (cls == "lazy_output") return !reject("lazy_output", what + call);
      add_check("correctness", false, what + call);
      return !fail(verdict::incorrect, what);
    }
    return false;
  }

  // A failed request to the candidate worker becomes the verdict.
  bool candidate_failure(const std::string& doing, const worker_reply& r) {
    switch (r.what) {
      case worker_reply::kind::timeout:
        return fail(verdict::timeout, doing + " did not finish within " + fmt_s(opt_.call_timeout_s) + "; the worker was killed");
      case worker_reply::kind::died:
        // The sandbox's process filter traps forbidden calls; one made with
        // every signal blocked (posix_spawn, system()) ends the process.
        if (process_filter_ && r.exit.signaled && r.exit.signal == SIGSYS)
          return reject("background_process", "the candidate's process was stopped by SIGSYS while " + doing +
                                                  ": it tried to start a process, which the sandbox forbids");
        return fail(verdict::runtime_error, "the candidate's process ended while " + doing + " (" + r.exit.describe() + ")" +
                                                log_suffix());
      default:
        if (r.failure_kind() == "protocol")
          return reject("protocol_tampering", "while " + doing + ", " + r.message());
        if (r.failure_kind() == "internal")
          return fail(verdict::runtime_error, "worker error while " + doing + ": " + r.message() + log_suffix());
        return fail(verdict::runtime_error, r.message() + log_suffix());
    }
  }

  std::string log_suffix() {
    std::string tail = candidate_->log_tail(10);
    return tail.empty() ? "" : "\ncandidate output:\n" + tail;
  }

  // ---- measure --------------------------------------------------------------
  // One call: fresh inputs (judge's seed), the reference and the candidate in
  // random order, then every output checked. Returns false once a verdict is
  // reached; errors are the reference's.
  result<bool> call_once(double* ref_ms, double* cand_ms, double* cand_wall_ms) {
    const bool defended = opt_.defenses || j_.calls < opt_.trials;
    if (defended || j_.calls == 0) {
      worker_reply prep = reference_->request({{"op", "prepare"}, {"seed", rng_() >> 12}}, kRefCallTimeoutS);
      if (prep.what != worker_reply::kind::ok) return reference_error("generating inputs", prep);
      j_.requests_ms["prepare"].push_back(prep.wall_ms);
    }
    call_timing t;
    if (!stage_call(t)) return reference_error(t.doing, t.err_reply);
    bool candidate_first = rng_() & 1;
    if (timing_) reference_first_.push_back(!candidate_first);
    for (int side = 0; side < 2; ++side) {
      if ((side == 0) == candidate_first) {
        // The trials also take the kernel census (untimed figures, so its cost
        // never reaches a measurement).
        bool census = opt_.defenses && j_.calls < opt_.trials;
        run_call(t, census);
        if (t.reference_failed) return reference_error(t.doing, t.err_reply);
        if (!t) return candidate_failure(t.doing, t.err_reply);
        if (ended_) return false;
        const json& body = t.run.body;
        if (census) {
          if (body.contains("kernels")) census_launches_.insert(census_launches_.end(), body["kernels"].begin(), body["kernels"].end());
          else census_note_ = body.value("census", "not reported by the worker");
        }
        *cand_ms = body.value("ms", 0.0);
        *cand_wall_ms = t.run.wall_ms;
        if (timing_) {
          cand_excess_ms_.push_back(t.excess_ms);
        }
      } else {
        worker_reply run = reference_->request({{"op", "run"}}, kRefCallTimeoutS);
        if (run.what != worker_reply::kind::ok) return reference_error("running the reference", run);
        *ref_ms = run.body.value("ms", 0.0);
        j_.requests_ms["reference_run"].push_back(run.wall_ms);
        j_.reference_placements = std::max(j_.reference_placements, run.body.value("placement", 0) + 1);
      }
    }
    ++j_.calls;
    if (!defended) return true;
    // The correctness trials are also held to the float64 reference.
    worker_reply chk =
        reference_->request({{"op", "check"}, {"arena", t.arena}, {"shift", t.shift}, {"precise", opt_.defenses && j_.calls <= opt_.trials}},
                            kRefCallTimeoutS);
    if (chk.what != worker_reply::kind::ok) return reference_error("checking outputs", chk);
    j_.requests_ms["check"].push_back(chk.wall_ms);
    return check_call(chk.body, *cand_ms, *cand_wall_ms);
  }

  bool check_call(const json& body, double cand_ms, double cand_wall_ms) {
    for (size_t i = 0; i < layout_.outputs.size() && i < body["outputs"].size(); ++i) {
      const auto& slot = layout_.outputs[i];
      output_error e = parse_output_error(body["outputs"][i], slot.name, slot.dtype);
      merge_error(e);
      const tolerance tol = tolerance_for(slot.dtype, opt_.precision);
      output_verdict v = judge_output(e, tol);
      if (!v.pass) {
        bool unwritten = e.unwritten > 0;
        add_check(unwritten ? "outputs_written" : "correctness", false, v.reason + " (call " + std::to_string(j_.calls) + ")");
        label_precision_downgrade(e, body["outputs"][i], slot.dtype, "the reference");
        if (body["outputs"][i].contains("replays_call"))
          add_hack("replay", slot.name + " of call " + std::to_string(j_.calls) + " matches the reference output of call " +
                                 std::to_string(body["outputs"][i]["replays_call"].get<int>()) +
                                 ", whose inputs were different");
        return fail(verdict::incorrect, v.reason);
      }
      if (!body["outputs"][i].contains("precise")) continue;
      const json& pj = body["outputs"][i]["precise"];
      output_error p = parse_output_error(pj, slot.name, slot.dtype);
      std::optional<double> torch_err;
      if (pj.contains("reference_rel_norm") && pj["reference_rel_norm"].is_number()) torch_err = pj["reference_rel_norm"].get<double>();
      if (torch_err) {
        double& worst = precise_torch_err_[slot.name];
        worst = std::max(worst, *torch_err);
      }
      output_verdict pv = judge_precise(p, tol, torch_err);
      if (!pv.pass) {
        std::string reason = "against the float64 reference, " + pv.reason;
        add_check("precise_reference", false, reason + " (call " + std::to_string(j_.calls) + ")");
        label_precision_downgrade(p, pj, slot.dtype, "the float64 reference");
        return fail(verdict::incorrect, reason);
      }
    }
    if (!body["changed_inputs"].empty()) {
      std::string names = body["changed_inputs"].dump();
      add_check("inputs_unchanged", false, "the candidate modified its inputs " + names);
      add_hack("input_modification", "inputs " + names + " differ from the pristine copy after call " + std::to_string(j_.calls));
      return fail(verdict::incorrect, "the candidate modified its inputs " + names);
    }
    // The worker's window cannot be longer than the judge's own clock around
    // the same request (0.05 ms slack for clock granularity).
    if (cand_ms > cand_wall_ms + 0.05) {
      add_check("timer_cross_check", false, "reported " + fmt_ms(cand_ms) + " inside a " + fmt_ms(cand_wall_ms) + " request");
      return reject("timer_tampering", "the worker reported " + fmt_ms(cand_ms) + " for a call the judge saw take " +
                                           fmt_ms(cand_wall_ms));
    }
    return true;
  }

  // A failing output that carries the error of lower-precision arithmetic
  // is named (the verdict is incorrect either way).
  void label_precision_downgrade(const output_error& e, const json& figures, const std::string& dtype,
                                 const std::string& against) {
    std::string evidence = precision_downgrade_evidence(e, figures, dtype, opt_.precision, against);
    if (!evidence.empty()) add_hack("precision_downgrade", evidence + " (call " + std::to_string(j_.calls) + ")");
  }

  void merge_error(const output_error& e) {
    auto worst = [](std::optional<double>& into, const std::optional<double>& v, bool first) {
      if (!v) into.reset();
      else if (first || (into && *v > *into)) into = v;
    };
    bool first = !j_.error.measured;
    worst(j_.error.max_abs, e.max_abs, first);
    worst(j_.error.max_rel, e.max_rel, first);
    worst(j_.error.rel_norm, e.rel_norm, first);
    j_.error.measured = true;
  }

  result<bool> measure() {
    progress_.phase("checking " + std::to_string(opt_.trials) + " trials");
    double ref_ms = 0, cand_ms = 0, cand_wall = 0;
    for (int t = 0; t < opt_.trials; ++t) {
      auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
      if (!ok || !*ok) return ok;
      ++j_.trials;
    }
    end_phase("trials");
    add_check("correctness", true, std::to_string(opt_.trials) + "/" + std::to_string(opt_.trials) +
                                       " trials with fresh inputs within tolerance");
    add_check("outputs_written", true, "every output element written in every call (NaN-prefilled)");
    if (!precise_torch_err_.empty()) {
      double worst = 0;
      for (const auto& [name, err] : precise_torch_err_) worst = std::max(worst, err);
      j_.precision["reference_rel_norm"] = worst;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%d trials within tolerance of the float64 reference (PyTorch's own output, policy %s, is off it by %.2g)",
                    opt_.trials, opt_.precision.c_str(), worst);
      add_check("precise_reference", true, buf);
    }
    add_check("inputs_unchanged", true, "inputs bit-identical after every call");
    if (auto s = take_census(); !s) return s.err();
    if (j_.outcome == verdict::rejected) return false;
    progress_.phase("timing");
    auto warm_start = std::chrono::steady_clock::now();
    for (int w = 0; warming_up(w, warm_start); ++w) {
      auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
      if (!ok || !*ok) return ok;
    }
    end_phase("warmup");
    auto measure_start = std::chrono::steady_clock::now();
    timing_ = true;
    for (;;) {
      auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
      if (!ok || !*ok) return ok;
      j_.reference.samples_ms.push_back(ref_ms);
      j_.candidate.samples_ms.push_back(cand_ms);
      j_.candidate.wall_ms.push_back(cand_wall);
      stop_reason reason = should_stop(opt_.stopping, j_.reference.samples_ms, j_.candidate.samples_ms,
                                       seconds_since(measure_start));
      if (reason != stop_reason::none) {
        j_.stop_reason = to_string(reason);
        break;
      }
    }
    end_phase("timing");
    return true;
  }

  // The kernels of the trials: whose they were, on how many streams.
  status take_census() {
    if (!opt_.defenses) {
      j_.kernels = {{"available", false}, {"reason", "defenses off (benchmark)"}};
      return ok_status();
    }
    if (!census_note_.empty()) {
      j_.kernels = {{"available", false}, {"reason", census_note_}};
      if (opt_.require_custom_kernel)
        return make_error("--require-custom-kernel needs the kernel census, which is " + census_note_);
      return ok_status();
    }
    auto lib = read_file(library_);
    j_.kernels = summarize_census(census_launches_, lib ? std::string_view(*lib) : std::string_view());
    bool custom = j_.kernels["custom_kernel"].get<bool>();
    std::string listing = census_listing(j_.kernels);
    if (opt_.require_custom_kernel) {
      add_check("custom_kernel", custom, custom ? "launched a kernel of its own: " + listing : "only " + listing);
      if (!custom) reject("no_custom_kernel", "the trials launched " + listing + ", none of them the candidate's own");
    }
    return ok_status();
  }

  // ---- finish ---------------------------------------------------------------
  result<bool> finish() {
    worker_reply back = candidate_->request({{"op", "return_params"}}, kRefCallTimeoutS);
    if (back.what != worker_reply::kind::ok) return candidate_failure("returning parameters", back);
    worker_reply chk = reference_->request({{"op", "check_params"}}, kRefCallTimeoutS);
    if (chk.what != worker_reply::kind::ok) return reference_error("checking parameters", chk);
    if (!chk.body["changed_params"].empty()) {
      std::string names = chk.body["changed_params"].dump();
      add_check("params_unchanged", false, "the candidate modified parameters " + names);
      add_hack("parameter_modification", "parameters " + names + " differ from the reference's after the calls");
      return fail(verdict::incorrect, "the candidate modified parameters " + names);
    }
    add_check("params_unchanged", true, "parameters bit-identical after " + std::to_string(j_.calls) + " calls");
    int timed = static_cast<int>(j_.candidate.samples_ms.size());
    if (opt_.defenses)
      add_check("timed_outputs_checked", true,
                "all " + std::to_string(j_.calls) + " calls' outputs checked, " + std::to_string(timed) + " of them timed");
    else
      add_check("timed_outputs_checked", false, "defenses off (benchmark): only the trials were checked");
    if (!check_judge_clock()) return false;
    j_.reference.summary = summarize_samples(j_.reference.samples_ms);
    j_.candidate.summary = summarize_samples(j_.candidate.samples_ms);
    j_.outcome = verdict::correct;
    if (j_.candidate.summary->median_ms > 0) j_.speedup = j_.reference.summary->median_ms / j_.candidate.summary->median_ms;
    double error = speedup_error_rel(j_.reference.samples_ms, j_.candidate.samples_ms);
    if (std::isfinite(error)) j_.speedup_error_rel = error;
    j_.reference_order = order_effect(j_.reference.samples_ms, reference_first_);
    return check_speed_of_light();
  }

  // The worker's window is the candidate's process's clock: it stands only
  // where the judge's own clock agrees. Per call, the judge's time for the
  // call's three requests less the worker's window (the excess) is a fixed
  // overhead, measured before the candidate loaded; time taken from the
  // window, or moved into stage or collect, adds to it.
  bool check_judge_clock() {
    if (!opt_.defenses || cand_excess_ms_.empty() || probes_.empty()) {
      add_check("timer_cross_check", true, "the worker's time never exceeded the judge's wall clock");
      return true;
    }
    // (The summary is not made yet: the worker's median from its samples.)
    double median = summarize_samples(j_.candidate.samples_ms).median_ms;
    // The probes are chosen by the judge's own time for the calls, never by
    // the window the worker reports: a forged window chose the probe length,
    // and with it the overhead it was compared with (attack review: a
    // ModelNew running its clock at 40% passed at 2.92x).
    double wall = j_.candidate.wall_ms.empty() ? median : summarize_samples(j_.candidate.wall_ms).median_ms;
    const std::vector<double> near = probes_for_wall(wall);
    clock_agreement run = compare_excess(near, cand_excess_ms_, median);
    // Conclusive: the tolerance is at most a quarter of the window, so a
    // window forged to three quarters or less would show. The native worker
    // may lean on an absolute 0.25 ms (a tiny kernel's window is below any
    // request's noise); the Python worker may not: its candidate shares the
    // interpreter with the worker's clock, and its ~1-2 ms requests leave
    // room for a forged window at any size under a millisecond.
    bool conclusive = run.tolerance_ms <= (modelnew_ ? 0.25 * median : std::max(0.25, 0.25 * median));
    // Up to twice the tolerance is a grey zone, not a verdict: the judge's
    // own clock then times every call (a forger gains nothing there), so an
    // honest candidate a busy request pushed over the line is not rejected
    // (an H200 re-check of an honest load_inline ModelNew: 0.172 ms against
    // 0.143). Beyond it, the worker's window is forged (the corpus: 0.55 and
    // 0.83 ms against ~0.1).
    bool grey = !run.agrees && run.missing_ms <= 2 * run.tolerance_ms;
    json figures = {{"overhead_ms", run.overhead_ms}, {"candidate_ms", run.excess_ms}, {"missing_ms", run.missing_ms},
                    {"tolerance_ms", run.tolerance_ms}, {"agrees", run.agrees}, {"conclusive", conclusive},
                    {"grey_zone", grey}, {"judge_wall_ms", wall}};
    json probe_figures = json::object();
    for (const auto& [ms, series] : probes_) probe_figures[fmt_ms(ms)] = series.excess_ms;
    // The candidate's excess by the order of its pair (the reference's run
    // just before it, or not), beside the probes' by the same: where the
    // order moves a worker's requests, the two should move alike.
    {
      std::vector<double> after, alone;
      for (size_t k = 0; k < cand_excess_ms_.size() && k < reference_first_.size(); ++k)
        (reference_first_[k] ? after : alone).push_back(cand_excess_ms_[k]);
      std::vector<double> probe_after, probe_alone;
      for (const auto& [ms, series] : probes_)
        for (size_t k = 0; k < series.excess_ms.size() && k < series.after_reference.size(); ++k)
          (series.after_reference[k] ? probe_after : probe_alone).push_back(series.excess_ms[k] - summarize_samples(series.excess_ms).median_ms);
      auto median_or_null = [](const std::vector<double>& v) { return v.empty() ? json() : json(summarize_samples(v).median_ms); };
      figures["by_order"] = {{"candidate_after_reference_ms", median_or_null(after)},
                             {"candidate_alone_ms", median_or_null(alone)},
                             {"probe_after_reference_rel_ms", median_or_null(probe_after)},
                             {"probe_alone_rel_ms", median_or_null(probe_alone)}};
    }
    j_.judge_clock = {{"run_beyond_window", figures}, {"probe_run_beyond_window_ms", probe_figures},
                      {"agrees", run.agrees || grey}, {"conclusive", conclusive && run.agrees}};
    char buf[400];
    std::snprintf(buf, sizeof buf, "the judge's clock saw %.4g ms per run request beyond the worker's window (the worker's own "
                  "call before the candidate loaded: %.4g ms; %.3g ms unaccounted, at most %.3g%s)",
                  run.excess_ms, run.overhead_ms, run.missing_ms, run.tolerance_ms,
                  grey ? ", up to twice that judged by the judge's clock" : "");
    add_check("timer_cross_check", run.agrees || grey, buf);
    if (!run.agrees && !grey) {
      j_.speedup.reset();
      return reject("timer_tampering", std::string("the worker's time is short of the judge's own clock: ") + buf);
    }
    if (!conclusive || grey) use_judge_clock(near);
    return true;
  }

  // The probes' overhead for calls whose run requests took `wall_ms` by the
  // judge's clock. A request's overhead grows with the call's length (on an
  // H200: 0.29-0.31 ms at 0.02-2 ms, 0.40-0.45 ms at 20 ms): between the two
  // probe lengths whose requests bracket it, the lower one's samples shifted
  // to the overhead interpolated on a log scale; outside, the nearest.
  std::vector<double> probes_for_wall(double wall_ms) const {
    struct point {
      double wall, overhead;
      const std::vector<double>* excess;
    };
    std::vector<point> points;
    for (const auto& [ms, series] : probes_) {
      double overhead = summarize_samples(series.excess_ms).median_ms;
      points.push_back({ms + overhead, overhead, &series.excess_ms});
    }
    std::sort(points.begin(), points.end(), [](const point& a, const point& b) { return a.wall < b.wall; });
    if (wall_ms <= points.front().wall) return *points.front().excess;
    if (wall_ms >= points.back().wall) return *points.back().excess;
    size_t k = 1;
    while (points[k].wall < wall_ms) ++k;
    const point& lo = points[k - 1];
    const point& hi = points[k];
    double t = std::log(wall_ms / lo.wall) / std::log(hi.wall / lo.wall);
    double shift = t * (hi.overhead - lo.overhead);
    std::vector<double> out = *lo.excess;
    for (double& x : out) x += shift;
    return out;
  }

  // Where the check cannot vouch for the worker's window, each call is timed
  // by the judge's own clock too: its time for the run request less the
  // least overhead a probe showed, which can only overstate the true window
  // (a request never costs less than that). A call counts at the larger of
  // the two, so a busy machine can lower a speedup but a forged clock cannot
  // raise one. The worker's own figures are kept beside.
  void use_judge_clock(const std::vector<double>& probe_excess_ms) {
    // The least overhead any probe showed, of any length: a call's own
    // overhead can sit below the probes' of its length (honest ModelNew
    // calls: 0.15-0.4 ms below, on a 2-core VM), and that room must not
    // credit a forged window.
    double least = *std::min_element(probe_excess_ms.begin(), probe_excess_ms.end());
    for (const auto& [ms, series] : probes_)
      for (double x : series.excess_ms) least = std::min(least, x);
    std::vector<double>& worker = j_.candidate.samples_ms;
    j_.judge_clock["worker_samples_ms"] = worker;
    int raised = 0;
    for (size_t i = 0; i < worker.size() && i < j_.candidate.wall_ms.size(); ++i) {
      double judged = j_.candidate.wall_ms[i] - least;
      if (judged > worker[i]) worker[i] = judged, ++raised;
    }
    add_check("timer_judge_clock", true,
              "inconclusive clock check: each call counted at the larger of the worker's window and the judge's time less "
              "the least probe overhead (" + fmt_ms(least) + "); " + std::to_string(raised) + " of " +
                  std::to_string(worker.size()) + " calls raised");
  }

  // Reports the candidate's fraction of the floor; on CUDA a candidate faster
  // than physics allows is rejected. On the CPU the floor is only reported:
  // a last-level cache larger than the flush can hold small inputs.
  bool check_speed_of_light() {
    double cand = j_.candidate.summary->median_ms;
    j_.speed_of_light = sol_;
    auto floor = add_floor(j_.speed_of_light, cand);
    if (!floor) return true;
    if (j_.backend == "cuda" && faster_than_light(*floor, cand)) {
      add_check("speed_of_light", false, "median " + fmt_ms(cand) + " against a floor of " + fmt_ms(*floor));
      j_.speedup.reset();
      return reject("impossible_speed", "the candidate's median " + fmt_ms(cand) + " is under " +
                                            std::to_string(static_cast<int>(100 * kImpossibleFraction)) +
                                            "% of the device's floor " + fmt_ms(*floor) +
                                            " (bytes over measured bandwidth, FLOPs over measured peak)");
    }
    add_check("speed_of_light", true, "at " + std::to_string(static_cast<int>(100 * *floor / cand)) + "% of the floor " + fmt_ms(*floor));
    return true;
  }

  std::string cache_dir() const { return cache_dir_of(opt_); }

  // ---- helpers ----------------------------------------------------------------
  // Warm-up goes on for at least warmup_calls calls and warmup_s seconds, at most 50 calls.
  bool warming_up(int calls_so_far, steady_time since) const {
    return calls_so_far < 50 && (calls_so_far < opt_.warmup_calls || seconds_since(since) < opt_.warmup_s);
  }

  void end_phase(const char* name) {
    j_.phases_s.emplace_back(name, seconds_since(phase_start_));
    phase_start_ = std::chrono::steady_clock::now();
  }

  bool fail(verdict v, const std::string& message) {
    j_.outcome = v;
    j_.message = message;
    ended_ = true;
    return false;
  }

  void add_check(const std::string& name, bool pass, const std::string& reason) {
    j_.checks.push_back({name, pass, reason});
  }

  void add_hack(const std::string& cls, const std::string& evidence) { j_.hacks.push_back({cls, evidence}); }

  // A caught hack: verdict rejected, with the evidence.
  bool reject(const std::string& cls, const std::string& evidence) {
    add_hack(cls, evidence);
    return fail(verdict::rejected, cls + ": " + evidence);
  }

  static std::string fmt_s(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
  }
  static std::string fmt_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g ms", ms);
    return buf;
  }

  const judge_options& opt_;
  progress_sink& progress_;
  steady_time start_, phase_start_;
  judgment j_;
  std::mt19937_64 rng_;
  std::string scratch_, data_dir_, worker_exe_, library_;
  std::vector<std::string> candidates_;
  size_t next_python_ = 0;
  std::string python_errors_;
  std::optional<worker_channel> reference_, candidate_;
  bool task_only_ = false;
  exchange_layout layout_;
  json sol_ = json::object();  // the reference worker's speed-of-light figures
  std::map<std::string, double> precise_torch_err_;  // per output: PyTorch's worst distance from float64
  json census_launches_ = json::array();  // the trials' kernel launches, as the worker reported them
  std::string census_note_;              // why there is no census
  bool process_filter_ = false;          // the worker's seccomp filter is in place
  bool ended_ = false;                   // a verdict is reached (fail() was called)
  bool modelnew_ = false;                // a KernelBench ModelNew (.py), run by the Python worker
  unsigned sandbox_uid_ = 0;             // the worker's unprivileged user, where the judge is root
  json init_inputs_ = json::object();    // get_init_inputs(), for a ModelNew's constructor
  std::string sandbox_dir_;              // the worker's own folder (its cwd, its library)
  std::string untrusted_box_;            // an untrusted task's reference folder (its cwd); empty: trusted
  std::set<std::string> outside_baseline_;  // the worker's threads before the candidate's code loaded (judge's view)
  bool outside_census_ = false;
  bool timing_ = false;                  // in the timed phase
  // The judge's time for a run request less the worker's window (excess),
  // and for stage and collect (around): of the probes before the candidate
  // loaded, by their length, and of the candidate's timed calls.
  struct probe_series {
    std::vector<double> excess_ms;
    std::vector<bool> after_reference;  // per probe: a run of the reference came just before it
  };
  std::map<double, probe_series> probes_;
  int probe_count_ = 0;
  std::vector<double> cand_excess_ms_;
  std::optional<error> pending_error_;  // a reference failure met where a verdict is returned
  std::vector<bool> reference_first_;  // per timed pair: the reference ran first
};

}  // namespace

result<nlohmann::json> audit_task(const std::string& task_path, int seeds, const judge_options& options,
                                  progress_sink& progress) {
  signal(SIGPIPE, SIG_IGN);
  judgment_run run(task_path, "", options, progress);
  return run.run_task_audit(seeds);
}

result<reference_timing> time_reference(const std::string& task_path, const judge_options& options,
                                        progress_sink& progress) {
  signal(SIGPIPE, SIG_IGN);
  judgment_run run(task_path, "", options, progress);
  return run.run_reference_timing();
}

namespace {

result<judgment> run_guarded(const std::string& task_path, const std::string& candidate_path, const judge_options& options,
                             progress_sink& progress) {
  judgment_run run(task_path, candidate_path, options, progress);
  try {
    return run.run();
  } catch (const nlohmann::json::exception& e) {
    return run.malformed_reply(e.what());
  }
}

result<judgment> judge_and_recheck(const std::string& task_path, const std::string& candidate_path,
                                   const judge_options& options, progress_sink& progress) {
  auto first = run_guarded(task_path, candidate_path, options, progress);
  // A clock disagreement is judged again in fresh processes: a forged clock
  // disagrees every time, an honest candidate whose judgment a busy machine
  // disturbed (the judge's wake-ups, seen on a 2-core VM) agrees the second time.
  // So is a correct one whose check could not tell: the probes met so busy
  // a machine that the tolerance exceeds a quarter of the window (seen on a
  // 2-core VM under load: 2.4 ms around a 1.5 ms call, and a forged window
  // passed). The second judgment stands either way.
  auto clock_of = [](const result<judgment>& j) -> const json* {
    if (!j || j->judge_clock.is_null() || !j->judge_clock.contains("agrees")) return nullptr;
    return &j->judge_clock;
  };
  const json* clock = clock_of(first);
  bool disagreed = clock && first->outcome == verdict::rejected && !clock->value("agrees", true);
  // (A ModelNew's check is inconclusive by design under ~1 ms, where its
  // Python requests' noise exceeds a quarter of the window: judging it
  // again would not change that, and its calls are timed by the judge's
  // clock already.)
  const bool python = std::filesystem::path(candidate_path).extension() == ".py";
  bool inconclusive = clock && !python && first->outcome == verdict::correct && !clock->value("conclusive", true);
  if (disagreed || inconclusive) {
    progress.phase(disagreed ? "the judge's clock disagreed with the worker's: judging again in fresh processes"
                             : "the judge's clock could not tell (a busy machine): judging again in fresh processes");
    std::string why = disagreed ? "a first judgment's clock disagreed: " + first->message
                                : "a first judgment's clock check was inconclusive (tolerance " +
                                      json((*clock)["run_beyond_window"].value("tolerance_ms", 0.0)).dump() + " ms)";
    auto second = run_guarded(task_path, candidate_path, options, progress);
    if (!second) return second;
    const json* again = clock_of(second);
    // A disagreement stands against a second check that could not tell.
    if (disagreed && again && second->outcome == verdict::correct && !again->value("conclusive", true)) {
      first->checks.push_back({"timer_cross_check_again", false,
                               "judged again in fresh processes, the clock check could not tell (tolerance " +
                                   json((*again)["run_beyond_window"].value("tolerance_ms", 0.0)).dump() + " ms): the disagreement stands"});
      first->total_s += second->total_s;
      return first;
    }
    second->checks.push_back({"timer_cross_check_again", second->outcome != verdict::rejected || !again ||
                                                             again->value("agrees", true),
                              why});
    second->total_s += first->total_s;
    first = std::move(second);
  }
  if (!first || first->outcome != verdict::correct || !first->speedup) return first;
  // CUDA-L1's triggers: above 3x, or above twice the best seen for the task.
  best_speedups store(cache_dir_of(options) + "/best-speedups.json");
  std::string key = best_speedups::key(*first, options.precision);
  std::string why = recheck_reason(*first->speedup, options, store.best(key));
  auto final = why.empty() ? std::move(first) : recheck_speedup(std::move(*first), task_path, candidate_path, options, why, progress);
  // Only a final verdict that stands raises the bar: never a re-check's inner
  // judgment (options.record_best is off there).
  if (options.record_best && final && final->outcome == verdict::correct && final->speedup) store.record(key, *final->speedup);
  return final;
}

}  // namespace

result<judgment> judge_candidate(const std::string& task_path, const std::string& candidate_path,
                                 const judge_options& options, progress_sink& progress) {
  // A worker that dies leaves a closed pipe: a write to it must fail, not kill us.
  signal(SIGPIPE, SIG_IGN);
  auto final = judge_and_recheck(task_path, candidate_path, options, progress);
  // What the reference measured for the caches is written for the final
  // verdict only, not by a re-check's inner judgment (options.record_best is
  // off there). It was measured before the candidate's library loaded, so a
  // rejected candidate's judgment keeps it too.
  if (options.record_best && final)
    write_cache_updates(cache_dir_of(options), final->cache_updates, final->backend);
  return final;
}

void write_cache_updates(const std::string& cache_dir, const nlohmann::json& updates, const std::string& backend) {
  if (!updates.is_object()) return;
  (void)make_dirs(cache_dir);
  // Each file is replaced whole (write_file_atomic); concurrent judges may
  // lose each other's FLOP counts, which are then counted again.
  if (updates.contains("calibration") && updates["calibration"].is_object())
    (void)write_file_atomic(cache_dir + "/calibration-" + backend + ".json", updates["calibration"].dump());
  if (updates.contains("flops") && updates["flops"].is_object() && updates["flops"].contains("key")) {
    std::string path = cache_dir + "/flops.json";
    nlohmann::json known = nlohmann::json::object();
    if (auto text = read_file(path)) {
      known = nlohmann::json::parse(*text, nullptr, false);
      if (!known.is_object()) known = nlohmann::json::object();
    }
    known[updates["flops"]["key"].get<std::string>()] = updates["flops"]["flops"];
    (void)write_file_atomic(path, known.dump());
  }
}

}  // namespace cudal1
