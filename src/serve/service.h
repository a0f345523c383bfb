// The judging service behind `cudal1 serve`: a bounded queue of judgment
// jobs, compiled ahead on a pool of threads while one loop times one judgment
// at a time (timing stays honest), each result written to the store and kept
// for its job. HTTP threads only submit and wait; they never judge.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "judge/judge.h"
#include "optimize/reward.h"

namespace cudal1 {

class precompiler;

/// One candidate to judge, as a request names it.
struct judge_request {
  std::string task_name;    // as resolved ("level1/softmax")
  std::string task_path;    // the task file
  std::string task_source;  // its text (for the store and the result cache)
  std::string code;         // the candidate's source (already taken out of an LLM answer)
  std::string format;       // "cuda", "cpp" or "modelnew"
  nlohmann::json options = nlohmann::json::object();  // per-request judge options (profile, precision, baseline, seed, trials)
  reward_kind reward = reward_kind::cuda_l1;
  bool fresh = false;       // judge again even when the same request was judged before
  std::string client;       // who asked (for the log): the route
  std::string owner;        // whose job it is: a hash of the bearer token (empty without tokens)
};

/// A job's state as the API shows it: "queued", "compiling", "running",
/// "done" (a verdict, whatever it is) or "failed" (cudal1 itself could not
/// judge: the error says why).
struct job_view {
  std::string id, state, error, task, format;
  std::string owner;        // the submitter's token hash: another client is not shown the job
  nlohmann::json judgment;  // when done: the full judgment JSON
  std::optional<double> speedup;
  double reward = 0;
  std::string verdict;
  bool cached = false;      // answered from an earlier judgment of the same request
  int queue_position = 0;   // when queued: jobs ahead of it
  double seconds = 0;       // submit to end (or to now)
  nlohmann::json to_json() const;
};

struct service_options {
  judge_options judge;
  std::string backend = "cpu";  // "cpu" or "cuda": the device this server judges on
  std::string store_path;        // empty: no store
  int queue_limit = 256;         // jobs queued or in progress; more get 429
  int compile_threads = 0;       // 0: one per CPU
  size_t keep_jobs = 10000;      // finished jobs kept for GET /v1/jobs/ID
  /// Non-empty: jobs go on this Redis queue (redis://HOST:PORT) and `cudal1
  /// worker`s judge them, one per GPU on any host; this process compiles and
  /// judges nothing itself.
  std::string redis_url;
  std::string redis_prefix = "cudal1";
  std::string redis_secret;  // signs jobs and checks results (read_queue_secret())
};

/// Counters for /metrics.
struct service_metrics {
  int64_t queued = 0, compiling = 0, running = 0;
  std::map<std::string, int64_t> verdicts;  // finished judgments by verdict ("error" for failed jobs)
  int64_t cache_hits = 0, rejected_full = 0;
  std::vector<double> latency_buckets_s;     // upper bounds
  std::vector<int64_t> latency_counts;       // cumulative, per bucket
  int64_t latency_count = 0;
  double latency_sum_s = 0;
  double judge_seconds_sum = 0;
};

class judge_service {
 public:
  /// Opens the store (an error if it cannot be opened) and starts the
  /// threads.
  static result<std::unique_ptr<judge_service>> start(const service_options& options);
  ~judge_service();  // stops: the judgment in flight ends first

  /// Queues the requests, all or none: an error, with *queue_full set, when
  /// the queue cannot take them all. Returns their job ids in order.
  result<std::vector<std::string>> submit(std::vector<judge_request> requests, bool* queue_full = nullptr);
  std::optional<job_view> get(const std::string& id) const;
  /// Waits until the job is done or failed, or `timeout_s` passed (then its
  /// current view); nullopt for an unknown id.
  std::optional<job_view> wait(const std::string& id, double timeout_s) const;
  service_metrics metrics() const;
  /// Seconds a caller refused for a full queue should wait (for Retry-After).
  int retry_after_s() const;
  void stop();

 private:
  judge_service() = default;
  struct job;
  std::shared_ptr<job> take(std::deque<std::shared_ptr<job>>& from, const char* state, int64_t& counter);
  void compile_loop();
  void judge_loop();
  void collect_loop();  // with Redis: the workers' results
  void finish(const std::shared_ptr<job>& j, nlohmann::json judgment, const std::string& error);
  void record(const job& j);
  void trim_finished();

  service_options opt_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, std::shared_ptr<job>> jobs_;
  std::deque<std::string> finished_order_;            // for trimming jobs_
  std::deque<std::shared_ptr<job>> to_compile_, ready_;
  std::map<std::string, std::string> done_by_key_;    // request key -> job id of its judgment
  std::vector<std::thread> threads_;
  bool stopping_ = false;
  int64_t serial_ = 0;
  service_metrics counters_;
  double mean_judge_s_ = 5;
  struct store_state;
  std::unique_ptr<store_state> store_;
  std::unique_ptr<precompiler> builder_;  // shared by the compile threads (its compile() is thread-safe)
  std::string scratch_;
  struct remote;
  std::unique_ptr<remote> remote_;  // with Redis
};

}  // namespace cudal1
