// The contrastive optimizer: CUDA-L1's loop against any OpenAI-compatible
// LLM, judged by cudal1's judge, with the store as its kernel database.
//
// Per task the database starts from the reference (score 1) and every kernel
// of the task already judged in the store. Each round draws exemplars for
// every request from the database as it stood when the round began, sends
// the requests (`concurrency` in flight), takes the code out of each answer,
// compiles it at once on the request's thread, and judges the answers one
// at a time as they arrive (the device times one candidate at a time).
// Every prompt, answer and judgment goes to the store before the next step,
// so an interrupted run resumes where it stopped.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "judge/judge.h"
#include "llm/client.h"
#include "optimize/reward.h"
#include "optimize/sampling.h"
#include "store/store.h"

namespace cudal1 {

struct optimize_options {
  judge_options judge;
  llm_options llm;
  std::string model;
  std::string format = "native";  // "native" (the backend's ABI: cuda or cpp) or "modelnew"
  int rounds = 3;
  int samples = 4;                // requests per task per round
  int concurrency = 4;            // requests in flight
  double temperature = 0.7;
  int max_tokens = 8192;
  sampling_options sampling;
  reward_options reward;
  int64_t budget_tokens = 0;      // 0: none; no request starts once spent
  double budget_seconds = 0;      // 0: none
  uint64_t seed = 1;              // exemplar draws: the same seed, the same prompts
  std::string run_name, command_line;
  std::string templates_dir;      // share/cudal1/prompts
  std::string work_dir;           // where answers' code is written for the judge
};

struct optimize_task {
  std::string path, name;  // name: "suite/stem" as bench names tasks
};

/// What the live display shows.
struct optimize_state {
  int round = 0, rounds = 0;
  int in_flight = 0, requests_done = 0, requests_total = 0;
  int judging = 0;                          // judgments waiting or running
  std::map<std::string, int> verdicts;      // of this session's answers ("no_code", "llm_error" too)
  std::map<std::string, double> best;       // task name -> best correct speedup (store-wide)
  int64_t prompt_tokens = 0, completion_tokens = 0;
  double elapsed_s = 0, judging_s = 0, llm_wait_s = 0;
};

class optimize_progress {
 public:
  virtual ~optimize_progress() = default;
  virtual void update(const optimize_state& state) = 0;
  /// One line worth keeping (a judged answer, a failed request, a new best).
  virtual void event(const std::string& line) = 0;
};

struct optimize_summary {
  optimize_state state;
  int64_t run_id = 0;
  std::string run_name;
  bool interrupted = false, budget_spent = false;
  int failed_requests = 0;  // this session's requests that failed (asked again on --resume)
  std::string stopped_by;  // a fatal LLM error (refused key, unknown model...), empty otherwise
};

/// Runs the loop. `stop`: 1 = stop sending requests, judge what has arrived
/// and end; 2 = end after the judgment in flight (answers are kept, judged
/// on resume). Errors: the store, the templates, a task that cannot be read.
result<optimize_summary> run_optimize(const std::vector<optimize_task>& tasks, const optimize_options& options,
                                      store& st, optimize_progress& progress, const std::atomic<int>& stop);

/// The format answers are asked for and judged as: "cuda", "cpp" or "modelnew".
std::string answer_format(const optimize_options& options, const std::string& backend);

}  // namespace cudal1
