// What `cudal1 bench` judges: pairs of a task and a candidate (or a task
// alone, whose reference is then timed), from suite folders with candidate
// folders, KernelBench run folders, or CUDA-L1's JSONL release format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

struct bench_item {
  std::string task_name;       // "suite/stem" (or "level1/23" for JSONL lines)
  std::string task_path;       // a KernelBench-format task file
  std::string candidate_path;  // empty: the reference timed alone
  std::string format;          // "cuda", "cpp", "modelnew"; empty without a candidate
  int sample = 0;              // STEM.N.ext, KernelBench's sample_S, a JSONL line's order
  std::string origin;          // where the candidate came from (a path, "FILE:LINE")
  std::optional<double> published_score;  // a JSONL line's score (the first score_* field)
  nlohmann::json published = nullptr;     // all its score_* fields
};

/// The candidate format of a file by its extension: .cu cuda, .cpp/.cc cpp,
/// .py modelnew; empty for anything else.
std::string candidate_format(const std::string& path);

/// Tasks from suite folders (each *.py; "solutions" is not a task) or task
/// files, with candidates from `candidates_dir` matched by task stem
/// (STEM.cu, STEM.cpp, STEM.py, and samples STEM.N.ext) or, in KernelBench's
/// run layout, level_L_problem_P_sample_S_kernel.py matched to the task whose
/// file name starts with "P_" in a suite folder whose name ends in L (or the
/// only suite given). Without `candidates_dir`, a task's own solution
/// (SUITE/solutions/STEM.cu or .cpp, whichever `backend` runs) is its
/// candidate. A task without any candidate is timed alone.
/// Errors: a missing folder or file, a folder without tasks, a candidate
/// that matches no task.
result<std::vector<bench_item>> collect_suite_items(const std::vector<std::string>& suites, const std::string& candidates_dir,
                                                    const std::string& backend);

/// CUDA-L1's release format, one JSON object per line: level_id, task_id,
/// ref_code (the task), custom_code (a ModelNew candidate; null where none
/// was found: the reference is then timed alone) and score_* fields (kept as
/// published scores; score_default, the one against eager PyTorch, is the
/// published_score where a line has it). The task and candidate sources are
/// written into `work_dir` (named by content, so a second run finds them).
/// Errors name the file and line.
result<std::vector<bench_item>> collect_jsonl_items(const std::string& jsonl_path, const std::string& work_dir);

}  // namespace cudal1
