// The judgment's two workers: the reference (forked from the reference
// server, or started afresh, or sealed for an untrusted task) and the
// candidate's (native, or a ModelNew's Python forked from the candidate
// server). See judgment_run.h.
#include "judge/judgment_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "compile/python_build.h"
#include "task/python.h"
#include "worker/ref_server.h"

namespace cudal1::judging {

// Starts the reference worker with each Python in turn and sends init at
// once, so the task imports while the candidate compiles.
status judgment_run::start_reference() {
  progress_.phase("starting the reference (PyTorch)");
  candidates_ = opt_.python.empty() ? python_candidates() : std::vector<std::string>{opt_.python};
  return spawn_next_reference();
}

status judgment_run::spawn_next_reference() {
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
                 {"warm_call", opt_.reference_warm_call},
                 {"host_probe", opt_.host_probe},
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
status judgment_run::spawn_reference(const std::string& python) {
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
bool judgment_run::has_torch(const std::string& python) {
  auto run = run_command({python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"}, 30);
  return run && !run->timed_out && run->exit.exited && run->exit.code == 0;
}

// An untrusted task's reference: started afresh in a folder of its own
// (the task, the cached calibration and FLOP counts copied in; the CPU
// exchange file made there), with the candidate's isolation, then sealed by
// cudal1_ref.py itself before it imports the task.
status judgment_run::spawn_sealed_reference(const std::string& python, const std::string& script, const std::string& log,
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
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING", "PYTHONPATH"})
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  env.push_back("CUDA_VISIBLE_DEVICES=" + judged_cuda_device());  // as a candidate's (below)
  spawn.env = env;
  spawn.limits.open_files = 256;
  spawn.limits.cpu_seconds = 3600;
  spawn.limits.file_bytes = 4ull << 30;  // the CPU exchange file lives in its folder
  auto ch = worker_channel::start(spawn);
  if (!ch) return ch.err();
  reference_.emplace(std::move(*ch));
  return ok_status();
}

status judgment_run::await_reference() {
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
json judgment_run::signature_of(const json& body) {
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

error judgment_run::reference_error(const std::string& doing, const worker_reply& r) {
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
  const std::string failed = doing + " failed: " + why;
  if (candidate_code_ran_) reference_lost_ = failed.substr(0, failed.find_last_not_of(" \n") + 1);
  return make_error("task " + j_.task_path + ": " + failed);
}

// The candidate cannot signal the reference (namespaces), but it shares a
// machine with it: an attack review, 2026-12-07, filled the disk under the
// reference's exchange and the reference died staging a call, a task error
// without a verdict. Whatever the means (disk, memory, the GPU's memory or
// time), a reference that fails once the candidate's code has run is never
// the task's error on that evidence alone: the judgment is rejected, and
// judge_and_recheck judges it again in fresh processes, where a task that
// fails at random, or a neighbour's sabotage, shows as the fluke it is.
result<judgment> judgment_run::lost_reference_or(error e) {
  if (!reference_lost_) return e;
  if (reference_) reference_->kill();
  if (candidate_) candidate_->kill();
  j_.speedup.reset();
  reject("reference_interference", "the reference's process failed after the candidate's code ran (" + *reference_lost_ +
                                       "): a shared resource exhausted or held (disk, memory, the GPU)");
  j_.total_s = seconds_since(start_);
  return j_;
}

status judgment_run::start_candidate() {
  // The worker's own folder: its working folder, its library, and the only
  // place it may write; owned by the unprivileged user it becomes. The
  // scratch folder above it stays the judge's (0700): the worker reaches
  // its folder by its working directory, nothing else of the scratch.
  sandbox_dir_ = scratch_ + "/sandbox";
  if (auto s = make_dirs(sandbox_dir_); !s) return s;
  mount_sandbox_disk();
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
  // Its folder by a path it can walk: the scratch folder above it is the
  // judge's (0700), so the folder's absolute path is closed to the worker's
  // user where the judge is root, and a candidate that wrote a temporary file
  // there (tempfile, $TMPDIR) failed (a false-rejection review, 2026-12-07).
  // /proc/self/cwd leads to the folder without walking its parents.
  const std::string own = sandbox_uid_ ? "/proc/self/cwd" : sandbox_dir_;
  spawn.env = {"HOME=" + own, "TMPDIR=" + own};
  if (modelnew_) {
    // As its build's (compile/python_build.h): one candidate server forks both.
    for (const std::string& kv : modelnew_environment()) spawn.env.push_back(kv);
  } else {
    // OpenMP threads a candidate's library starts sleep as soon as a parallel
    // region ends, as the reference's do: a spinning one would be CPU time
    // outside the window (charge_work_outside_window).
    spawn.env.insert(spawn.env.end(), {"LANG=C.UTF-8", "CUDA_CACHE_DISABLE=1", "OMP_WAIT_POLICY=PASSIVE"});
    for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING"})
      if (const char* v = std::getenv(name)) spawn.env.push_back(std::string(name) + "=" + v);
    // One GPU: the window's cudaDeviceSynchronize() waits for the current
    // device only, so work a candidate queued on another GPU of the host
    // would run on outside its window (and beside other judgments there).
    spawn.env.push_back("CUDA_VISIBLE_DEVICES=" + judged_cuda_device());
  }
  spawn.limits.open_files = 256;
  spawn.limits.cpu_seconds = 3600;
  spawn.limits.file_bytes = 256ull << 20;  // a candidate printing without end fills no disk
  // A bound on the candidate's memory, so a huge allocation fails in the
  // worker instead of waking the OOM killer. Not on CUDA: the driver
  // reserves address ranges far larger than any real use.
  if (j_.backend == "cpu") spawn.limits.address_bytes = candidate_memory_limit();
  // A bound on the threads and processes of the worker's user, so that no
  // candidate can take the machine's process IDs (an attack review,
  // 2026-12-07: 3000 threads held in each call, joined before it returned,
  // were judged correct while the machine went from 138 to 3143 threads;
  // about 32k would have left every fork on the host failing). Binds once
  // the worker has dropped to its user (not a root worker).
  spawn.limits.processes = candidate_task_limit();
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

// The per-file size limit (RLIMIT_FSIZE) bounds no folder: an attack review,
// 2026-12-07, made files of 255 MB in the worker's folder until the
// filesystem was full; the reference's next write into its sparse exchange
// file there took SIGBUS, and the judgment ended without a verdict, blamed
// on the task, as did an honest judgment running beside it. On a tmpfs of
// its own the candidate fills only that. Mounted in the judge's namespace
// (the candidate server's forked workers see it too); the worker's own
// namespace keeps its copy until it ends.
void judgment_run::mount_sandbox_disk() {
  if (!opt_.defenses) {
    sandbox_disk_ = "shared with the scratch folder (defenses off)";
    return;
  }
  std::string why = mount_bounded_tmpfs(sandbox_dir_, kSandboxDiskBytes, kSandboxDiskFiles);
  sandbox_mounted_ = why.empty();
  sandbox_disk_ = sandbox_mounted_ ? describe_bounded_tmpfs(kSandboxDiskBytes, kSandboxDiskFiles)
                                   : "shared with the scratch folder (no tmpfs of its own: " + why + ")";
}

void judgment_run::unmount_sandbox_disk() {
  if (!sandbox_mounted_) return;
  if (opt_.keep_scratch) {  // what the worker left there, kept beside it (the tmpfs goes with the mount)
    std::error_code ec;
    std::filesystem::copy(sandbox_dir_, scratch_ + "/sandbox.kept",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::skip_symlinks, ec);
  }
  unmount_tmpfs(sandbox_dir_);
  sandbox_mounted_ = false;
}

// A ModelNew worker forked by the candidate server, which imported torch
// once (3.6 s on the H200 machine), made as `spawn` would make it: its
// arguments, folder, environment, limits and namespaces travel with the
// request (python/cudal1_candidate.py start_forked_worker). False where
// the server cannot serve: the judge then starts the worker itself.
bool judgment_run::fork_candidate(const worker_spawn& spawn) {
  if (!reference_server_enabled() || !opt_.reference_server) return false;
  reference_fork_request req = candidate_fork_request(spawn);
  req.use_remembered = opt_.python.empty();
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

// A quarter of the machine's process IDs (kernel.pid_max), from 1024 to
// 16384: far above an honest worker's threads (its pools, the driver's),
// shared by the judgments whose workers run at once as the same user.
uint64_t judgment_run::candidate_task_limit() {
  uint64_t pid_max = 32768;
  if (auto text = read_file("/proc/sys/kernel/pid_max")) pid_max = std::strtoull(text->c_str(), nullptr, 10);
  return std::clamp<uint64_t>(pid_max / 4, 1024, 16384);
}

// Three quarters of the machine's memory, at least 4 GiB.
uint64_t judgment_run::candidate_memory_limit() {
  uint64_t total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  return std::max<uint64_t>(total / 4 * 3, 4ull << 30);
}

}  // namespace cudal1::judging
