// run_bench(): judges a list of items into the store. Compiles run ahead in
// parallel (on every CPU but the one the judgments are pinned to) while the
// judgments run one at a time, so the device times one candidate at a time.
// Items already judged in the run are skipped (a run resumes); an
// interruption finishes the judgment in flight, stores it and stops.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "bench/inputs.h"
#include "judge/judge.h"
#include "store/store.h"

namespace cudal1 {

struct bench_options {
  judge_options judge;
  std::string run_name;       // the store's run (resumed if it exists)
  std::string command_line;   // recorded with a new run
  std::string baseline = "eager";
  int jobs = 0;               // compiles at once; 0: one per CPU
  /// Non-empty: the items go on this Redis queue for `cudal1 worker`s (one
  /// per GPU, any host) instead of being judged here.
  std::string redis_url;
  std::string redis_prefix = "cudal1";
  std::string redis_secret;  // signs jobs and checks results (read_queue_secret())
};

/// How a bench run went, for the progress display and the exit status.
struct bench_tally {
  int total = 0, done = 0, skipped = 0, errors = 0;
  std::map<std::string, int> verdicts;  // per verdict ("reference" for a reference timed alone)
  double judged_s = 0;                  // seconds spent on the items judged now
  bool interrupted = false;
};

/// Told of each item as it ends.
class bench_progress {
 public:
  virtual ~bench_progress() = default;
  virtual void item_done(const bench_item& item, size_t index, const nlohmann::json& outcome, const bench_tally& tally) = 0;
};

/// A run's name from what it judges and how: the same inputs and settings
/// give the same name, so the same command resumes its run.
std::string default_run_name(const std::vector<bench_item>& items, const bench_options& options);

/// Judges every item not yet in the run. `stop` (set by a signal handler)
/// ends the run after the judgment in flight. Errors: the store.
result<bench_tally> run_bench(const std::vector<bench_item>& items, const bench_options& options, store& st,
                              bench_progress& progress, const std::atomic<bool>& stop);

}  // namespace cudal1
