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
  std::string name, dtype;  // dtype as the reference worker names it: "f32", "bf16", "i64", ...
  std::vector<long> shape;
  std::string scalar;       // "float", "int" or "bool" for a Python scalar argument; else empty
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
  std::string profile;          // the size profile judged (cudal1_profiles); empty: the sizes in the code
};

struct prompt_text {
  std::string system, user;
};

/// Renders the prompt from the templates in `templates_dir` (system.mustache,
/// user.mustache). `format`: "cuda", "cpp" or "modelnew" (what the answer
/// must be: the native ABI's cudal1_forward, or a ModelNew module). The
/// exemplars are shown best first with their speedups (a "reference" entry
/// as a pointer to the reference code); failures with their verdict and
/// reason and at most the first 40 lines of their code, never as exemplars.
/// Nothing is HTML-escaped. Errors: an unknown format, a template missing or
/// unreadable (the message names the path), a template that does not parse.
result<prompt_text> render_prompt(const std::string& templates_dir, const task_card& card, const std::string& format,
                                  const std::vector<kernel_entry>& exemplars, const std::vector<kernel_entry>& failures);

/// The card from a judgment JSON (`cudal1 eval --json`, or a reference timed
/// alone) plus the task's source: specs from its "signature", device and
/// speed of light from its fields. Missing or malformed fields leave the
/// card's defaults (no specs, no device, unknown times).
task_card card_from_judgment(const std::string& name, const std::string& reference_code, const nlohmann::json& judgment);

}  // namespace cudal1
