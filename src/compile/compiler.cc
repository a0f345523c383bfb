#include "compile/compiler.h"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/subprocess.h"

namespace cudal1 {
namespace {

// `compiler --version`, remembered per process: part of the cache key, so a
// toolkit upgrade recompiles.
result<std::string> compiler_identity(const std::string& compiler) {
  static std::map<std::string, std::string> known;
  if (auto it = known.find(compiler); it != known.end()) return it->second;
  auto r = run_command({compiler, "--version"}, 30);
  if (!r) return r.err();
  if (!r->exit.exited || r->exit.code != 0) return make_error(compiler + " --version failed: " + r->output);
  known[compiler] = r->output;
  return r->output;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

}  // namespace

std::vector<std::string> compiler_command(const compile_request& req, const std::string& compiler,
                                          const std::string& output_path) {
  std::vector<std::string> cmd = {compiler};
  if (req.backend == "cuda") {
    std::string cc = std::to_string(req.cc_major) + std::to_string(req.cc_minor);
    // Hopper's wgmma and setmaxnreg need the arch-specific 90a target.
    if (cc == "90") cc = "90a";
    cmd.insert(cmd.end(), {"-O3", "-std=c++20", "-shared", "-Xcompiler", "-fPIC", "-lineinfo",
                           "-gencode=arch=compute_" + cc + ",code=sm_" + cc});
  } else {
    // OpenMP as a host C++ programmer expects it (a false-rejection review,
    // 2026-12-07: an honest `#pragma omp parallel for` ran serially, and one
    // calling omp_get_max_threads() failed to load). Linked only where the
    // code uses it (--as-needed): the worker warms libgomp's pool before its
    // thread baseline for a library that needs it, and for no other.
    cmd.insert(cmd.end(), {"-O3", "-march=native", "-std=c++20", "-shared", "-fPIC", "-fopenmp", "-Wl,--as-needed"});
  }
  cmd.insert(cmd.end(), {"-I" + req.include_dir, req.source_path, "-o", output_path});
  return cmd;
}

std::string trim_diagnostics(const std::string& raw, const std::string& scratch_source,
                             const std::string& display_name, int max_lines) {
  std::string text = raw;
  replace_all(text, scratch_source, display_name);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  size_t first = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("error") != std::string::npos) {
      first = i > 2 ? i - 2 : 0;  // keep a little context before the first error
      break;
    }
  }
  std::string out;
  size_t end = std::min(lines.size(), first + static_cast<size_t>(max_lines));
  for (size_t i = first; i < end; ++i) out += lines[i] + "\n";
  if (end < lines.size()) out += "... (" + std::to_string(lines.size() - end) + " more lines)\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

result<std::string> find_compiler(const std::string& backend) {
  if (backend == "cuda") {
    std::vector<std::string> tries = {env_or("CUDAL1_NVCC", "")};
    if (std::string home = env_or("CUDA_HOME", ""); !home.empty()) tries.push_back(home + "/bin/nvcc");
    tries.push_back(find_in_path("nvcc"));
    tries.push_back("/usr/local/cuda/bin/nvcc");
    for (const auto& t : tries)
      if (!t.empty() && is_executable(t)) return t;
    return make_error("nvcc not found (set CUDAL1_NVCC or CUDA_HOME, or put nvcc on PATH)");
  }
  for (const auto& t : {env_or("CUDAL1_CXX", ""), env_or("CXX", ""), std::string("c++"), std::string("g++")}) {
    if (t.empty()) continue;
    std::string full = t.find('/') != std::string::npos ? t : find_in_path(t);
    if (!full.empty() && is_executable(full)) return full;
  }
  return make_error("no C++ compiler found (set CUDAL1_CXX, or install g++)");
}

std::string default_cache_dir() {
  std::string dir = env_or("CUDAL1_CACHE_DIR", "");
  if (!dir.empty()) return dir;
  std::string xdg = env_or("XDG_CACHE_HOME", "");
  if (!xdg.empty()) return xdg + "/cudal1";
  return env_or("HOME", "/tmp") + "/.cache/cudal1";
}

namespace {

struct compiler_run {
  command_result run;
  std::string source_path;  // the source as the compiler saw it (diagnostics name it)
};

result<compiler_run> run_compiler(const compile_request& req, const std::vector<std::string>& command) {
  auto run = run_command(command, req.timeout_s);
  if (!run) return run.err();
  return compiler_run{*run, req.source_path};
}

// The compiler under cudal1-worker --exec-sandboxed, in a folder of its own
// under the temporary folder (its unprivileged user can reach it; the
// judge's scratch folder is the judge's), with the source and the ABI
// header copied in. The library it leaves goes to `scratch_lib` only if it
// is a plain file (a link would have the judge read what it points at).
result<compiler_run> run_compiler_sandboxed(const compile_request& req, const std::string& compiler,
                                            const std::string& source, const std::string& header,
                                            const std::string& scratch_lib, compile_outcome& out) {
  auto made = make_temp_dir("cudal1-compile");
  if (!made) return made.err();
  const std::string work = *made;
  struct cleanup {
    std::string dir;
    ~cleanup() { remove_tree(dir); }
  } remove_later{work};
  const std::string ext = std::filesystem::path(req.source_path).extension().string();
  compile_request inside = req;
  inside.source_path = work + "/candidate" + ext;
  inside.include_dir = work + "/include";
  const std::string lib = work + "/candidate.so";
  for (const std::string& dir : {work + "/include", work + "/include/cudal1", work + "/tmp"})
    if (auto s = make_dirs(dir); !s) return s.err();
  if (auto s = write_file_atomic(inside.source_path, source); !s) return s.err();
  if (auto s = write_file_atomic(inside.include_dir + "/cudal1/abi.h", header); !s) return s.err();
  if (req.sandbox_uid) {
    for (const std::string& path : {work, work + "/include", work + "/include/cudal1", work + "/tmp"})
      if (chown(path.c_str(), req.sandbox_uid, req.sandbox_uid) != 0)
        return make_error("cannot hand the compile folder to the sandbox's user: " + path);
    chmod(inside.source_path.c_str(), 0644);
    chmod((inside.include_dir + "/cudal1/abi.h").c_str(), 0644);
  }
  // The compiler's own installation may live outside the system's folders.
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(compiler, ec);
  std::vector<std::string> argv = {req.sandbox_exe, "--exec-sandboxed", work};
  if (req.sandbox_uid) argv.insert(argv.end(), {"--sandbox-uid", std::to_string(req.sandbox_uid)});
  if (!ec) argv.insert(argv.end(), {"--read", real.parent_path().parent_path().string()});
  argv.push_back("--");
  for (const auto& a : compiler_command(inside, compiler, lib)) argv.push_back(a);
  auto run = run_command(argv, req.timeout_s);
  if (!run) return run.err();
  if (auto note = read_file(work + "/sandbox.txt")) {
    std::string text;
    std::istringstream lines(*note);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) text += (text.empty() ? "" : ", ") + line;
    out.notes = "compiled sandboxed (" + text + ")";
  } else {
    out.notes = "the compile sandbox did not start";
  }
  struct stat st;
  if (lstat(lib.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return compiler_run{{run->exit, false, "the compiler left candidate.so as something other than a file", run->seconds}, inside.source_path};
    auto bytes = read_file(lib);
    if (!bytes) return bytes.err();
    if (auto s = write_file_atomic(scratch_lib, *bytes); !s) return s.err();
  }
  return compiler_run{*run, inside.source_path};
}

}  // namespace

void sandbox_compiler(compile_request& req, unsigned uid) {
  const char* off = std::getenv("CUDAL1_SANDBOX");
  if (off && std::string(off) == "0") return;
  req.sandbox_exe = executable_dir() + "/cudal1-worker";
  req.sandbox_uid = geteuid() == 0 ? uid : 0;
}

result<compile_outcome> compile_candidate(const compile_request& req) {
  auto start = std::chrono::steady_clock::now();
  auto compiler = find_compiler(req.backend);
  if (!compiler) return compiler.err();
  auto identity = compiler_identity(*compiler);
  if (!identity) return identity.err();
  auto source = read_file(req.source_path);
  if (!source) return source.err();
  auto header = read_file(req.include_dir + "/cudal1/abi.h");
  if (!header) return header.err();

  compile_outcome out;
  std::string scratch_lib = req.scratch_dir + "/candidate.so";
  out.command = compiler_command(req, *compiler, scratch_lib);
  // The key covers everything that decides the artifact except paths.
  sha256 h;
  h.update(*identity);
  for (size_t i = 1; i < out.command.size(); ++i)
    if (out.command[i] != req.source_path && out.command[i] != scratch_lib && out.command[i] != "-I" + req.include_dir)
      h.update(out.command[i] + '\0');
  h.update(*header);
  h.update(*source);
  out.key = h.hex_digest();

  if (auto s = make_dirs(req.cache_dir); !s) return s.err();
  std::string cached = req.cache_dir + "/" + out.key + ".so";
  if (file_exists(cached)) {
    // Load a private copy: the cache is shared between judgments.
    auto bytes = read_file(cached);
    if (bytes) {
      if (auto s = write_file_atomic(scratch_lib, *bytes); !s) return s.err();
      out.ok = out.cached = true;
      out.library_path = scratch_lib;
      out.seconds = seconds_since(start);
      return out;
    }
  }
  auto built = req.sandbox_exe.empty() ? run_compiler(req, out.command)
                                       : run_compiler_sandboxed(req, *compiler, *source, *header, scratch_lib, out);
  if (!built) return built.err();
  const command_result* run = &built->run;
  out.seconds = seconds_since(start);
  out.diagnostics = trim_diagnostics(run->output, built->source_path, req.display_name);
  if (run->timed_out) {
    out.timed_out = true;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", req.timeout_s);
    out.diagnostics = std::string("compilation did not finish within ") + limit + " s (--compile-timeout)";
    return out;
  }
  if (!run->exit.exited || run->exit.code != 0 || !file_exists(scratch_lib)) {
    if (out.diagnostics.empty()) out.diagnostics = "compiler failed (" + run->exit.describe() + ")";
    return out;
  }
  auto bytes = read_file(scratch_lib);
  if (!bytes) return bytes.err();
  if (auto s = write_file_atomic(cached, *bytes); !s) return s.err();
  out.ok = true;
  out.library_path = scratch_lib;
  return out;
}

}  // namespace cudal1
