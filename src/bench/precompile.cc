#include "bench/precompile.h"

#include <filesystem>

#include "base/fs.h"
#include "compile/python_build.h"
#include "task/python.h"
#include "worker/probe.h"

namespace cudal1 {

precompiler::precompiler(const judge_options& options, const std::string& backend, bool need_python) : opt_(options) {
  auto data = data_dir();
  if (!data) return;  // the judgments say why
  data_dir_ = *data;
  if (need_python) {
    auto py = find_python(options.python);
    if (py) python_ = py->path;
  }
  req_.backend = backend;
  req_.include_dir = *data + "/include";
  req_.cache_dir = cache_dir_of(options);
  req_.timeout_s = options.compile_timeout_s;
  sandbox_compiler(req_, 65534);  // the judgment's compile would run so too
  if (backend == "cuda") {
    auto dev = probe_device("cuda");
    if (!dev) return;
    arch_ = dev->value("compute_capability", "9.0");
    req_.cc_major = std::stoi(arch_.substr(0, arch_.find('.')));
    req_.cc_minor = std::stoi(arch_.substr(arch_.find('.') + 1));
  }
  usable_ = true;
}

void precompiler::compile(const std::string& candidate_path, const std::string& format, const std::string& task_path,
                          const std::string& profile) const {
  if (!usable_) return;
  auto source = read_file(candidate_path);
  if (!source) return;
  auto scratch = make_temp_dir("cudal1-compile");
  if (!scratch) return;
  std::string name = std::filesystem::path(candidate_path).filename().string();
  if (format == "modelnew") {
    // The same request the judgment makes, so it finds this build.
    if (!python_.empty() && write_file_atomic(*scratch + "/candidate.py", *source)) {
      modelnew_build_request request =
          make_modelnew_request(*scratch + "/candidate.py", name, data_dir_, python_, req_.cache_dir, arch_,
                                opt_.defenses, opt_.compile_timeout_s, task_path, profile);
      request.use_server = opt_.reference_server;
      (void)build_modelnew(request);
    }
  } else {
    compile_request req = req_;
    req.scratch_dir = *scratch;
    req.source_path = *scratch + "/candidate" + std::filesystem::path(candidate_path).extension().string();
    req.display_name = name;
    if (write_file_atomic(req.source_path, *source)) (void)compile_candidate(req);
  }
  remove_tree(*scratch);
}

}  // namespace cudal1
