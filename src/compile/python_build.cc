#include "compile/python_build.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/subprocess.h"
#include "worker/ref_server.h"

namespace cudal1 {

std::vector<std::string> modelnew_environment() {
  std::vector<std::string> env = {"LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "OMP_WAIT_POLICY=PASSIVE",
                                  "CUDA_CACHE_DISABLE=1"};
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING",
                           "PYTHONPATH", "CC", "CXX"})
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  // One GPU, as a native candidate's worker sees (judge_workers.cc).
  env.push_back("CUDA_VISIBLE_DEVICES=" + judged_cuda_device());
  return env;
}

modelnew_build_request make_modelnew_request(const std::string& source_path, const std::string& display_name,
                                             const std::string& data_dir, const std::string& python,
                                             const std::string& cache_dir, const std::string& arch, bool sandboxed,
                                             double timeout_s, const std::string& task_path,
                                             const std::string& profile_option) {
  modelnew_build_request req;
  req.source_path = source_path;
  req.display_name = display_name;
  req.python = python;
  req.script = data_dir + "/python/cudal1_candidate.py";
  req.seal_library = data_dir + "/lib/libcudal1_seal.so";
  req.cache_dir = cache_dir;
  req.arch = arch;
  constexpr unsigned kNobody = 65534;
  req.sandbox_uid = sandboxed && geteuid() == 0 ? kNobody : 0;
  const char* ns = std::getenv("CUDAL1_NAMESPACES");
  req.isolate = sandboxed && !(ns && std::string(ns) == "0");
  req.timeout_s = timeout_s;
  req.pch_dir = pch_folder(python);
  req.task_path = task_path.empty() ? "" : absolute_path(task_path);
  req.profile = !profile_option.empty() ? profile_option : arch.empty() ? "cpu" : "";
  return req;
}

std::string pch_folder(const std::string& python) {
  if (env_or("CUDAL1_PCH", "1") == "0") return "";
  std::error_code ec;
  std::string top = (std::filesystem::temp_directory_path(ec) / ("cudal1-pch-" + std::to_string(getuid()))).string();
  if (ec) return "";
  std::string folder = top + "/" + sha256_hex(python).substr(0, 16);
  for (const std::string& dir : {top, folder}) {
    mkdir(dir.c_str(), 0755);
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022) != 0) return "";
  }
  return folder;
}

namespace {

// The build folder's own tmpfs (RAM only as used: CUDA objects and nvcc's
// intermediate files), and what of it may go into the cache.
constexpr uint64_t kBuildDiskBytes = 2ull << 30;
constexpr uint64_t kBuildDiskFiles = 65536;
constexpr uint64_t kBuildOutputBytes = 512ull << 20;

// The -O and -std flags a variant is made with, as the build reported them;
// only the usual ones pass (the maker runs outside any sandbox).
bool usual_pch_flag(const std::string& f) {
  static const std::regex usual(R"(-O[0-3sgz]?|-Ofast|-std=(c|gnu)\+\+(11|14|17|1z|20|2a|23|2b))");
  return std::regex_match(f, usual);
}

// Starts the maker of a missing precompiled header in the background, in a
// session of its own at the lowest priority (SCHED_IDLE: it runs only where
// a CPU is idle, so a timing beside it is not disturbed), once: a lock
// keeps a second maker of the same variant out, and a failure is not tried
// again for an hour.
void make_pch_later(const modelnew_build_request& req, const std::string& variant, const std::vector<std::string>& flags) {
  for (const auto& f : flags)
    if (!usual_pch_flag(f)) return;
  if (variant.empty() || variant.find('/') != std::string::npos || variant[0] == '.') return;
  std::string base = req.pch_dir + "/" + variant;
  struct stat st;
  if (stat((base + ".failed").c_str(), &st) == 0 && time(nullptr) - st.st_mtime < 3600) return;
  std::string joined;
  for (const auto& f : flags) joined += (joined.empty() ? "" : " ") + f;
  // Everything the children need is made before the fork: the judge may
  // have threads, so the children only make system calls until the exec.
  std::vector<std::string> argv = {req.python, "-u", req.script, "--make-pch", req.pch_dir, "--pch-flags=" + joined};
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::string lock = base + ".lock", log = base + ".log";
  pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) waitpid(pid, nullptr, 0);  // the middle process exits at once
    return;
  }
  // The middle process: a grandchild in its own session does the work,
  // holding the lock until it ends (the maker writes VARIANT.failed).
  if (fork() != 0) _exit(0);
  setsid();
  int fd = open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) _exit(0);
  struct sched_param idle = {0};
  sched_setscheduler(0, SCHED_IDLE, &idle);
  if (nice(19) < 0) {
  }
  int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  if (out >= 0) {
    dup2(out, 1);
    dup2(out, 2);
  }
  dup2(fd, 3);  // the lock, held until the maker ends; nothing else of the judge's goes along
  close_range(4, ~0U, 0);
  execv(cargv[0], cargv.data());
  _exit(127);
}

// What the build said of its precompiled headers and CUDA includes: a note
// for the judgment, and the variants it wanted that are missing or stale,
// made in the background for the next builds.
std::string read_build_notes(const modelnew_build_request& req, const nlohmann::json& m) {
  if (!m.is_object() || !m.contains("build") || !m["build"].is_object()) return "";
  const auto& b = m["build"];
  std::string notes;
  if (b.contains("pch") && b["pch"].is_array()) {
    bool made = false;
    for (const auto& p : b["pch"]) {
      if (!p.is_object()) continue;
      std::string state = p.value("state", ""), variant = p.value("variant", "");
      if (state == "used") {
        if (notes.find("precompiled") == std::string::npos) notes += "precompiled <torch/extension.h> (" + variant + ")";
      } else if (!made && !req.pch_dir.empty() && p.contains("flags") && p["flags"].is_array()) {
        std::vector<std::string> flags;
        for (const auto& f : p["flags"])
          if (f.is_string()) flags.push_back(f.get<std::string>());
        make_pch_later(req, variant, flags);
        made = true;  // one maker per build at most
      }
    }
  }
  // ModelNew made once in the build (build_model): said only where it failed
  // (its __init__'s extensions, if any, were then not all built).
  if (b.contains("model_built") && b["model_built"].is_string() && b["model_built"].get<std::string>().rfind("failed", 0) == 0)
    notes += std::string(notes.empty() ? "" : "; ") + "ModelNew(*get_init_inputs()) in the build " +
             b["model_built"].get<std::string>();
  if (b.contains("cuda_headers") && b["cuda_headers"].is_array()) {
    int light = 0, full = 0;
    for (const auto& h : b["cuda_headers"]) (h == "types" ? light : full)++;
    if (light) notes += std::string(notes.empty() ? "" : "; ") + "CUDA sources built without <torch/extension.h>";
    if (full) notes += std::string(notes.empty() ? "" : "; ") + "CUDA sources needed <torch/extension.h>";
  }
  if (b.contains("nvcc") && b["nvcc"].is_array()) {
    // cudal1_nvcc.py's figures per .cu: its host and device branches ran
    // side by side, then the host compile that joins them.
    for (const auto& c : b["nvcc"]) {
      if (!c.is_object() || !c.contains("total_s")) continue;
      char line[160];
      std::snprintf(line, sizeof line, "nvcc's branches side by side: host %.1f s, device %.1f s, then %.1f s (%.1f s in all)",
                    c.value("host_s", 0.0), c.value("device_s", 0.0), c.value("final_s", 0.0), c.value("total_s", 0.0));
      notes += std::string(notes.empty() ? "" : "; ") + line;
    }
  }
  // Where the build's time went: the interpreter's import of torch, then
  // each extension's build (its light try included).
  if (b.contains("import_s") && b["import_s"].is_number() && b.contains("extension_s") && b["extension_s"].is_array()) {
    char line[96];
    std::snprintf(line, sizeof line, "torch imported in %.1f s", b["import_s"].get<double>());
    std::string times = line;
    for (const auto& t : b["extension_s"])
      if (t.is_number()) {
        std::snprintf(line, sizeof line, ", an extension built in %.1f s", t.get<double>());
        times += line;
      }
    notes += std::string(notes.empty() ? "" : "; ") + times;
  }
  return notes;
}

}  // namespace

result<compile_outcome> build_modelnew(const modelnew_build_request& req) {
  auto start = std::chrono::steady_clock::now();
  auto source = read_file(req.source_path);
  if (!source) return source.err();
  auto script = read_file(req.script);
  if (!script) return script.err();
  compile_outcome out;
  // The build depends on the source, the interpreter (its torch), the target
  // and the worker that builds it.
  sha256 h;
  // cudal1_nvcc.py, beside the script, runs nvcc for it (CUDAL1_NVCC_SPLIT=0
  // leaves nvcc alone): both are part of what built the library.
  const std::string nvcc_driver = std::filesystem::path(req.script).parent_path().string() + "/cudal1_nvcc.py";
  auto driver = read_file(nvcc_driver);
  const char* split = std::getenv("CUDAL1_NVCC_SPLIT");
  std::string task_source;
  if (!req.task_path.empty()) {
    auto task = read_file(req.task_path);
    if (!task) return task.err();
    task_source = *task;
  }
  for (const std::string& part : {*source, req.python, req.arch, *script, driver ? *driver : std::string("no driver"),
                                  std::string(split && std::string(split) == "0" ? "split=0" : "split"), task_source,
                                  req.profile})
    h.update(part + '\0');
  out.key = h.hex_digest();
  std::string root = req.cache_dir + "/modelnew";
  std::string done = root + "/" + out.key;
  if (file_exists(done + "/manifest.json")) {
    out.ok = out.cached = true;
    out.library_path = done;
    out.seconds = seconds_since(start);
    return out;
  }
  if (auto s = make_dirs(root); !s) return s.err();
  // The build runs in a folder of its own under the temporary folder, which
  // its unprivileged user can reach by absolute path (compilers are handed
  // absolute paths), unlike the cache under the judge's home.
  auto made = make_temp_dir("cudal1-build");
  if (!made) return made.err();
  std::string work = *made;
  // On a tmpfs of its own where the judge is root: the candidate's code runs
  // in the build (its import), and what it writes cannot fill the
  // filesystem other judgments share (an attack review filled the worker's
  // folder that way, 2026-12-07; mount_sandbox_disk). Unmounted as the folder
  // is removed, on every path out.
  const bool bounded = req.sandbox_uid && mount_bounded_tmpfs(work, kBuildDiskBytes, kBuildDiskFiles).empty();
  struct unmount_on_exit {
    bool on;
    std::string dir;
    ~unmount_on_exit() {
      if (on) {
        unmount_tmpfs(dir);
        remove_tree(dir);
      }
    }
  } unmount_guard{bounded, work};
  if (req.sandbox_uid && chown(work.c_str(), req.sandbox_uid, req.sandbox_uid) != 0)
    return make_error("cannot hand the build folder to the sandbox's user: " + work);
  std::string candidate = work + "/candidate.py";
  if (auto s = write_file_atomic(candidate, *source); !s) return s.err();
  const std::string task_copy = work + "/task.py";
  if (!req.task_path.empty())
    if (auto s = write_file_atomic(task_copy, task_source); !s) return s.err();

  worker_spawn spawn;
  spawn.argv = {req.python, "-u", req.script, "--build", candidate, "--out", work, "--seal", req.seal_library};
  if (req.sandbox_uid) spawn.argv.insert(spawn.argv.end(), {"--sandbox-uid", std::to_string(req.sandbox_uid)});
  if (!req.arch.empty()) spawn.argv.insert(spawn.argv.end(), {"--arch", req.arch});
  if (!req.pch_dir.empty()) spawn.argv.insert(spawn.argv.end(), {"--pch", req.pch_dir});
  if (!req.task_path.empty()) spawn.argv.insert(spawn.argv.end(), {"--task", task_copy, "--profile", req.profile});
  spawn.log_path = work + "/build.log";
  spawn.working_dir = work;
  spawn.isolate = req.isolate;
  spawn.clean_env = true;
  spawn.env = {"HOME=" + work, "TMPDIR=" + work + "/tmp", "MAX_JOBS=" + std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)))};
  for (const std::string& kv : modelnew_environment()) spawn.env.push_back(kv);
  if (const char* v = std::getenv("CUDAL1_NVCC_SPLIT")) spawn.env.push_back(std::string("CUDAL1_NVCC_SPLIT=") + v);
  spawn.limits.file_bytes = 1ull << 30;
  // Forked by the candidate server where it serves: torch is imported there
  // already (3.5 s of a 27 s cold build on the H200 machine). The process is
  // made as the spawn below would make it (candidate_fork_request); else it
  // is started afresh.
  std::optional<child_process> child;
  bool forked = false;
  if (req.use_server && reference_server_enabled()) {
    bool unusable = false;
    // For the tests only (the judge's environment, out of a candidate's
    // reach): CUDAL1_FAULT_INJECT=forked-build-dies has the forked build end
    // before it reaches the candidate, so the retry below is exercised.
    worker_spawn forked_spawn = spawn;
    if (const char* fault = std::getenv("CUDAL1_FAULT_INJECT"); fault && std::string(fault) == "forked-build-dies")
      forked_spawn.env.push_back("CUDAL1_FAULT_INJECT=forked-build-dies");
    if (auto made = fork_reference(candidate_fork_request(forked_spawn), &unusable)) {
      child.emplace(std::move(*made));
      forked = true;
    }
  }
  if (!child) {
    auto spawned = child_process::spawn(spawn);
    if (!spawned) return spawned.err();
    child.emplace(std::move(*spawned));
  }
  exit_info exit = child->wait_or_kill(req.timeout_s);
  // A forked build that ended before it reached the candidate (the file
  // cudal1_candidate.py writes first) failed in the server's process, not
  // in the candidate's: it is started afresh once, as a run worker is.
  const std::string started = work + "/candidate-started";
  bool retried = false;
  if (forked && !(exit.exited && exit.code == 0) && !file_exists(started) && seconds_since(start) < req.timeout_s) {
    forked = false;
    retried = true;
    auto spawned = child_process::spawn(spawn);
    if (!spawned) return spawned.err();
    child.emplace(std::move(*spawned));
    exit = child->wait_or_kill(req.timeout_s - seconds_since(start));
  }
  std::error_code marker_error;
  std::filesystem::remove(started, marker_error);
  out.seconds = seconds_since(start);
  out.command = spawn.argv;
  auto log = read_file(spawn.log_path);
  std::string text = log ? *log : "";
  if (!exit.exited && exit.signaled && out.seconds >= req.timeout_s) {
    out.timed_out = true;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", req.timeout_s);
    out.diagnostics = std::string("building the candidate's extensions did not finish within ") + limit + " s (--compile-timeout)";
    remove_tree(work);
    return out;
  }
  if (!exit.exited || exit.code != 0 || !file_exists(work + "/manifest.json")) {
    out.diagnostics = trim_diagnostics(text.empty() ? "the build ended (" + exit.describe() + ")" : text, candidate,
                                       req.display_name, 60);
    remove_tree(work);
    return out;
  }
  // The build's manifest, read once: its notes, and the libraries that go
  // into the cache (below).
  nlohmann::json manifest = nlohmann::json::object();
  if (auto text = read_file(work + "/manifest.json")) manifest = nlohmann::json::parse(*text, nullptr, false);
  out.notes = read_build_notes(req, manifest);
  if (forked) out.notes += std::string(out.notes.empty() ? "" : "; ") + "forked by the candidate server";
  if (retried)
    out.notes += std::string(out.notes.empty() ? "" : "; ") +
                 "started afresh: the candidate server's fork ended before it reached the candidate";
  remove_tree(work + "/tmp");  // not kept, and the build's own links there are no concern of the check below
  std::error_code ec;
  // The build is the candidate's: only folders and plain files leave it (a
  // link would have the judge, as root, copy what it points at).
  for (const auto& e : std::filesystem::recursive_directory_iterator(work, ec)) {
    if (e.is_symlink() || !(e.is_directory() || e.is_regular_file())) {
      out.diagnostics = "the build left " + e.path().filename().string() +
                        ", which is not a folder or a plain file (a link or a device); cudal1 copies neither";
      remove_tree(work);
      return out;
    }
  }
  // Only what a run loads goes into the cache: the manifest and the
  // libraries it names. The rest of the folder (objects, sources, and
  // whatever the candidate's import wrote there) stays behind: an attack
  // review's import wrote 500 MB and 20,000 files, all kept, and every
  // changed comment would have kept as much again (2026-12-07).
  std::vector<std::string> keep = {"manifest.json"};
  if (manifest.is_object() && manifest.contains("extensions") && manifest["extensions"].is_object())
    for (const auto& [key, entry] : manifest["extensions"].items()) {
      std::string lib = entry.is_object() && entry.contains("library") && entry["library"].is_string()
                            ? entry["library"].get<std::string>() : "";
      std::filesystem::path rel = std::filesystem::path("ext") / lib;
      bool inside = !lib.empty() && std::filesystem::path(lib).is_relative();
      for (const auto& part : std::filesystem::path(lib)) inside = inside && part != "..";
      if (!inside || !std::filesystem::is_regular_file(std::filesystem::symlink_status(work + "/" + rel.string()))) {
        out.diagnostics = "the build's manifest names a library that is not a plain file in its folder: " + lib;
        remove_tree(work);
        return out;
      }
      keep.push_back(rel.string());
    }
  // What goes into the cache is bounded too (the tmpfs bounds only the
  // build's own time): an honest build's libraries are a few megabytes.
  uint64_t left_bytes = 0;
  for (const std::string& rel : keep) left_bytes += std::filesystem::file_size(work + "/" + rel, ec);
  if (left_bytes > kBuildOutputBytes) {
    out.diagnostics = "the build's libraries take " + std::to_string(left_bytes >> 20) + " MiB, more than " +
                      std::to_string(kBuildOutputBytes >> 20) + " MiB: not kept";
    remove_tree(work);
    return out;
  }
  // Into the cache: a copy beside the final name, then a rename, so a
  // concurrent judge sees the whole build or none.
  std::string staged = done + ".tmp." + std::to_string(getpid());
  remove_tree(staged);
  ec.clear();
  for (const std::string& rel : keep) {
    if (ec) break;
    std::filesystem::create_directories(std::filesystem::path(staged + "/" + rel).parent_path(), ec);
    if (!ec) std::filesystem::copy_file(work + "/" + rel, staged + "/" + rel, std::filesystem::copy_options::overwrite_existing, ec);
  }
  remove_tree(work);
  if (!ec) std::filesystem::rename(staged, done, ec);
  if (ec) {  // another judge placed it first, or the cache is unwritable
    remove_tree(staged);
    if (!file_exists(done + "/manifest.json")) return make_error("cannot place the build in " + done + ": " + ec.message());
  }
  out.ok = true;
  out.library_path = done;
  return out;
}

}  // namespace cudal1
