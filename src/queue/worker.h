// `cudal1 worker`: one GPU's judge on the Redis queue. It takes one job at a
// time (timing stays honest: one judgment per device), judges it with
// judge_candidate() from the task and code the job carries (no shared
// filesystem is needed), keeps the job claimed while it judges, and writes
// the result under the job's content hash.
#pragma once

#include <atomic>
#include <string>

#include "base/result.h"
#include "judge/judge.h"

namespace cudal1 {

struct worker_options {
  std::string redis_url;
  std::string prefix = "cudal1";
  std::string secret;             // the server's: jobs without its signature are never run
  std::string consumer;           // this worker's name in the group (default: host-pid)
  judge_options judge;
  double reclaim_after_s = 60;    // a job pending this long without keep-alive is taken over
  int max_deliveries = 3;         // a job delivered more often ends failed (it kills its workers)
  int max_jobs = 0;               // stop after this many jobs (0: never; tests)
};

/// The JSON a worker writes for a job: {"state": "done", "judgment", "worker"}
/// or {"state": "failed", "error", "worker"}.
/// Runs until *stop is set (checked between jobs and while waiting);
/// returns the number of jobs judged. Errors: Redis unreachable at start.
result<int> run_worker(const worker_options& options, const std::atomic<bool>* stop);

}  // namespace cudal1
