// Building a KernelBench-format Python candidate (class ModelNew): its
// load_inline/load extensions are compiled once, outside the run sandbox
// (the compilers must run), in a process sealed otherwise (own namespaces,
// no network, writes only to its build folder, an unprivileged user), with a
// time limit, into the content-hash cache. The run worker then loads what
// was built and compiles nothing.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "compile/compiler.h"

namespace cudal1 {

struct modelnew_build_request {
  std::string source_path;   // the candidate (a copy in the judgment's scratch folder)
  std::string display_name;  // how diagnostics name it
  std::string python;        // the interpreter with torch (the reference's)
  std::string script;        // share/cudal1/python/cudal1_candidate.py
  std::string seal_library;  // share/cudal1/lib/libcudal1_seal.so
  std::string cache_dir;
  std::string arch;          // "9.0" for CUDA (TORCH_CUDA_ARCH_LIST), empty on the CPU
  unsigned sandbox_uid = 0;  // the unprivileged user, where the judge is root
  bool isolate = true;       // own namespaces (needs root)
  double timeout_s = 120;
  /// Forked by the candidate server (torch imported there once) where it
  /// serves (worker/ref_server.h; not with CUDAL1_REF_SERVER=0).
  bool use_server = true;
  /// Where precompiled <torch/extension.h> headers for this Python live
  /// (pch_folder()); empty: none used or made.
  std::string pch_dir;
  /// The task and size profile ModelNew is built with once in the build
  /// (its __init__'s load_inline calls are built too); both join the key.
  std::string task_path;
  std::string profile;
};

/// The folder of precompiled <torch/extension.h> headers for `python`:
/// TMP/cudal1-pch-UID/HASH, one subfolder per -O/-std variant. Readable by
/// the build's unprivileged user, writable by this user only (a folder of
/// another owner, or writable by others, is refused: its header would go
/// into every later build). Empty where CUDAL1_PCH=0 or it cannot be made.
std::string pch_folder(const std::string& python);

/// The environment of a ModelNew process, its build or its run worker,
/// beside its own HOME and TMPDIR: the same for both, so that one candidate
/// server (keyed by the variables torch reads at import, worker/ref_server.h)
/// forks both, and CUDA_HOME, which torch's cpp_extension reads at import,
/// is the judge's in either.
std::vector<std::string> modelnew_environment();

/// A request for `source_path` as a judgment makes it: the worker script and
/// seal library from `data_dir`, the unprivileged user and own namespaces
/// where the caller is root and `sandboxed` (the judge's defenses; also
/// CUDAL1_NAMESPACES=0 turns namespaces off). ModelNew is built once with
/// `task_path`'s init inputs under the judgment's size profile: its
/// --profile (`profile_option`), else "cpu" where `arch` is empty (the CPU
/// backend, as the reference takes it), else the task's own sizes.
modelnew_build_request make_modelnew_request(const std::string& source_path, const std::string& display_name,
                                             const std::string& data_dir, const std::string& python,
                                             const std::string& cache_dir, const std::string& arch, bool sandboxed,
                                             double timeout_s, const std::string& task_path,
                                             const std::string& profile_option);

/// Builds (or finds in the cache) the candidate's extensions. On success
/// outcome.library_path is the build folder (manifest.json, ext/). A failed
/// import or build is an outcome (ok false, diagnostics), not an error.
/// Errors: the cache is unwritable, the process cannot start.
result<compile_outcome> build_modelnew(const modelnew_build_request& req);

}  // namespace cudal1
