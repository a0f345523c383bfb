// The contrastive prompt: a task card, the reference code, exemplars with
// their measured speedups and what the judge saw, failures with their
// reasons, the answer's three sections and the rules. Templates are Mustache
// files kept as data (data/prompts/, staged to share/cudal1/prompts/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "optimize/sampling.h"

namespace cudal1 {

struct tensor_spec {
  std::string name, dtype;
  std::vector<long> shape;
};

/// What the prompt tells of the task, from the reference's judgment.
struct task_card {
  std::string name;             // e.g. "level1/softmax"
  std::string reference_code;   // the task's Python source
  std::vector<tensor_spec> inputs, params, outputs;
  std::string device;           // "NVIDIA H200"
  std::string backend;          // "cuda" or "cpu"
  std::optional<double> bandwidth_gb_s, matrix_tflops;  // measured
  std::optional<double> reference_ms, floor_ms;         // the reference's time, the speed-of-light floor
  std::string baseline = "eager";
  std::string precision = "fp32";
};

struct prompt_text {
  std::string system, user;
};

/// Renders the prompt from the templates in `templates_dir` (system.mustache,
/// user.mustache). `format`: "cuda", "cpp" or "modelnew" (what the answer
/// must be: the native ABI's cudal1_forward, or a ModelNew module). The
/// exemplars are shown best first with their speedups; failures with their
/// verdict and reason, never as exemplars.
result<prompt_text> render_prompt(const std::string& templates_dir, const task_card& card, const std::string& format,
                                  const std::vector<kernel_entry>& exemplars, const std::vector<kernel_entry>& failures);

/// The card from a judgment JSON (`cudal1 eval --json`, or a reference timed
/// alone) plus the task's source: specs from its "signature", device and
/// speed of light from its fields.
task_card card_from_judgment(const std::string& name, const std::string& reference_code, const nlohmann::json& judgment);

}  // namespace cudal1
