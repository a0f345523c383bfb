// Building candidates ahead of their judgments: a native candidate compiled,
// or a ModelNew's extensions built, with the same request its judgment makes,
// so the judgment finds the result in the content-hash cache and the device
// never waits for a compiler. Used by bench (a pool over the items) and the
// optimizer (each answer as it arrives). Safe to call from several threads.
#pragma once

#include <string>

#include "compile/compiler.h"
#include "judge/judge.h"

namespace cudal1 {

class precompiler {
 public:
  /// `backend`: "cuda" or "cpu"; `need_python`: ModelNew builds will be asked
  /// for (finds the interpreter now).
  precompiler(const judge_options& options, const std::string& backend, bool need_python);
  /// Compiles (or builds) the candidate file; failures are left for the
  /// judgment to report. `format`: "cuda", "cpp" or "modelnew". A ModelNew's
  /// build also builds the model once with the task's init inputs, under the
  /// judgment's size profile (`profile`: its --profile, empty for the
  /// default), both part of the build's key.
  void compile(const std::string& candidate_path, const std::string& format, const std::string& task_path,
               const std::string& profile) const;
  bool usable() const { return usable_; }

 private:
  bool usable_ = false;
  compile_request req_;
  judge_options opt_;
  std::string data_dir_, python_, arch_;
};

}  // namespace cudal1
