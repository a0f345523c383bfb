#include "compile/compiler.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

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
    cmd.insert(cmd.end(), {"-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-lineinfo",
                           "-gencode=arch=compute_" + cc + ",code=sm_" + cc});
  } else {
    cmd.insert(cmd.end(), {"-O3", "-march=native", "-std=c++17", "-shared", "-fPIC"});
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
  auto run = run_command(out.command, req.timeout_s);
  if (!run) return run.err();
  out.seconds = seconds_since(start);
  out.diagnostics = trim_diagnostics(run->output, req.source_path, req.display_name);
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
