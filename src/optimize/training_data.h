// Training data for CUDA-L1's three stages, from the store, as chat-format
// JSON Lines that TRL and verl read.
//
// Every row has:
//   stage            1, 2 or 3
//   task, task_hash  the task's name and the hash of its source
//   format           "cuda", "cpp" or "modelnew": what the answer is
//   device           the device the kernel was judged on ("NVIDIA H200")
//   judge_version    the cudal1 version that judged it
//   precision, baseline   the judgment's settings
//   prompt           [{"role": "system", ...}, {"role": "user", ...}]
// Stages 1 and 2 (supervised) add:
//   messages         prompt + [{"role": "assistant", "content": the answer}]
//                    (TRL's SFTTrainer and verl's multi-turn SFT dataset)
//   completion       [{"role": "assistant", ...}] (TRL's prompt-completion form)
//   candidate_hash, speedup, verdict ("correct")
// Stage 3 (contrastive RL) adds:
//   exemplars        [{"candidate_hash", "score"}]: what the prompt showed
//   answers          [{"candidate_hash", "verdict", "speedup", "reward",
//                      "group_reward"}] for every answer to the prompt's
//                    round (the GRPO group); a rejected answer's code is not
//                    in the file, only its verdict and its (penalty) reward
//   run, round       where the prompt was asked
//
// Stage 1: each task's reference and each correct kernel of it that is
// faster than the reference (speedup > 1, or another minimum), whatever made it (a suite's
// solution, bench, the optimizer, the server): the prompt is the optimizer's
// first-round prompt for the task (no exemplars), the answer the kernel in
// the three sections. Stage 2: the model's own correct answers from
// optimizer runs, with the prompt it was asked and its whole answer. Stage 3:
// the optimizer's prompts with their exemplars and the group rewards of the
// answers. Never included: a kernel whose verdict is not "correct" (hacks,
// unstable re-checks, incorrect or failing kernels), a judgment with a hack
// class. Rows are deduplicated by content hash (a kernel's best correct
// judgment stands for it; a prompt appears once per task and hash).
#pragma once

#include <ostream>
#include <string>

#include "base/result.h"
#include "store/store.h"

namespace cudal1 {

struct export_counts {
  size_t rows = 0;
  size_t duplicates = 0;    // kernels or prompts already written
  size_t not_correct = 0;   // kernels left out for their verdict or a hack
};

/// Writes stage 1, 2 or 3's rows to `out`. `templates_dir` holds the prompt
/// templates (stage 1 renders prompts); stage 1 keeps kernels whose speedup
/// exceeds `min_speedup` (1: faster than the reference). Errors: a stage
/// other than 1-3, the store unreadable, a template missing.
result<export_counts> export_training_data(store& db, int stage, const std::string& templates_dir, std::ostream& out,
                                           double min_speedup = 1.0);

}  // namespace cudal1
