// Compiling native candidates into shared libraries, with a content-hash
// cache: the same source, compiler and flags are compiled once.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

/// What to compile, and where.
struct compile_request {
  std::string source_path;   // the candidate (.cu or .cpp)
  std::string display_name;  // how diagnostics name it (the user's path)
  std::string backend;       // "cuda" (nvcc) or "cpu" (host compiler)
  int cc_major = 9, cc_minor = 0;  // CUDA target
  std::string include_dir;   // holds cudal1/abi.h
  std::string cache_dir;     // artifacts, named by content hash
  std::string scratch_dir;   // private to this judgment
  double timeout_s = 120;
  /// cudal1-worker, to run the compiler under its --exec-sandboxed: a
  /// compiler reads any file a source names (#include "/root/token" put the
  /// token in a compile_error's diagnostics) and runs as the judge's user.
  /// Empty: the compiler runs as the judge (tests, CUDAL1_SANDBOX=0).
  std::string sandbox_exe;
  unsigned sandbox_uid = 0;  // the compiler's user under the sandbox (0: the judge's)
};

/// How compilation went. A compile error is an outcome, not an error.
struct compile_outcome {
  bool ok = false;
  bool cached = false;
  bool timed_out = false;
  double seconds = 0;
  std::string library_path;  // ok: a private copy of the artifact to load
  std::string diagnostics;   // trimmed compiler output (errors and warnings)
  std::string key;           // the content hash
  std::vector<std::string> command;
  std::string notes;         // how a build was made faster (a ModelNew's precompiled header, lighter CUDA includes)
};

/// Fills req.sandbox_exe and req.sandbox_uid for a judge: cudal1-worker
/// beside this executable and, where the judge is root, `uid`; left empty
/// with CUDAL1_SANDBOX=0.
void sandbox_compiler(compile_request& req, unsigned uid);

/// The compiler command line for a request (without the output path's value
/// decided by the cache). Pure, for tests.
std::vector<std::string> compiler_command(const compile_request& req, const std::string& compiler,
                                          const std::string& output_path);

/// Compiles (or finds in the cache) the candidate. Errors: no compiler found,
/// unreadable source, unwritable cache.
result<compile_outcome> compile_candidate(const compile_request& req);

/// Compiler output trimmed for a report: the scratch path replaced by the
/// display name, at most max_lines lines starting near the first error.
std::string trim_diagnostics(const std::string& raw, const std::string& scratch_source,
                             const std::string& display_name, int max_lines = 40);

/// The compiler to use for a backend: nvcc from $CUDAL1_NVCC, $CUDA_HOME,
/// PATH or /usr/local/cuda; the host compiler from $CUDAL1_CXX, $CXX, PATH.
result<std::string> find_compiler(const std::string& backend);

/// The default cache folder: $CUDAL1_CACHE_DIR, else $XDG_CACHE_HOME/cudal1,
/// else ~/.cache/cudal1.
std::string default_cache_dir();

}  // namespace cudal1
