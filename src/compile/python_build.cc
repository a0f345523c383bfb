#include "compile/python_build.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/subprocess.h"

namespace cudal1 {

modelnew_build_request make_modelnew_request(const std::string& source_path, const std::string& display_name,
                                             const std::string& data_dir, const std::string& python,
                                             const std::string& cache_dir, const std::string& arch, bool sandboxed,
                                             double timeout_s) {
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
  return req;
}

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
  for (const std::string& part : {*source, req.python, req.arch, *script}) h.update(part + '\0');
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
  if (req.sandbox_uid && chown(work.c_str(), req.sandbox_uid, req.sandbox_uid) != 0)
    return make_error("cannot hand the build folder to the sandbox's user: " + work);
  std::string candidate = work + "/candidate.py";
  if (auto s = write_file_atomic(candidate, *source); !s) return s.err();

  worker_spawn spawn;
  spawn.argv = {req.python, "-u", req.script, "--build", candidate, "--out", work, "--seal", req.seal_library};
  if (req.sandbox_uid) spawn.argv.insert(spawn.argv.end(), {"--sandbox-uid", std::to_string(req.sandbox_uid)});
  if (!req.arch.empty()) spawn.argv.insert(spawn.argv.end(), {"--arch", req.arch});
  spawn.log_path = work + "/build.log";
  spawn.working_dir = work;
  spawn.isolate = req.isolate;
  spawn.clean_env = true;
  spawn.env = {"HOME=" + work, "TMPDIR=" + work + "/tmp", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1",
               "MAX_JOBS=" + std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)))};
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "PYTHONPATH", "CC", "CXX"})
    if (const char* v = std::getenv(name)) spawn.env.push_back(std::string(name) + "=" + v);
  spawn.limits.file_bytes = 1ull << 30;
  auto child = child_process::spawn(spawn);
  if (!child) return child.err();
  exit_info exit = child->wait_or_kill(req.timeout_s);
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
  remove_tree(work + "/tmp");
  std::filesystem::remove(candidate);
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
  // Into the cache: a copy beside the final name, then a rename, so a
  // concurrent judge sees the whole build or none.
  std::string staged = done + ".tmp." + std::to_string(getpid());
  remove_tree(staged);
  std::filesystem::copy(work, staged, std::filesystem::copy_options::recursive | std::filesystem::copy_options::skip_symlinks, ec);
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
