// The re-check of implausible speedups, applied by judge_candidate().
#pragma once

#include <string>

#include "base/result.h"
#include "judge/judge.h"

namespace cudal1 {

/// Judges the candidate again in fresh processes with fresh seeds (and no
/// further re-check). The first judgment stands only if the second is
/// correct too and its speedup within options.recheck_tolerance; otherwise
/// it becomes the second's verdict, or rejected as unstable_speedup.
/// Precondition: first is correct with a speedup.
result<judgment> recheck_speedup(judgment first, const std::string& task_path, const std::string& candidate_path,
                                 const judge_options& options, progress_sink& progress);

}  // namespace cudal1
