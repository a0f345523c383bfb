// Judgment jobs on a Redis stream with a consumer group, for judging spread
// over GPUs and hosts: `cudal1 serve --redis` puts jobs on the stream, and
// each `cudal1 worker --redis` (one per GPU) takes one at a time, judges it
// and writes its result under the job's content hash.
//
//   PREFIX:jobs           the stream; an entry is {key, job} (job: JSON with
//                         the task's name and source, the code, its format,
//                         the judge options)
//   PREFIX:workers        the consumer group
//   PREFIX:result:KEY     the result (JSON), kept a week: {"state": "done",
//                         "judgment": ...} or {"state": "failed", "error": ...}
//
// Jobs and results are signed (HMAC-SHA256 with a secret the server and the
// workers share): a worker judges only a job the server signed, and the
// server takes only a result a worker signed, so write access to Redis alone
// neither runs code on the workers nor forges a reward.
//
// Delivery is at least once: a job stays pending until its worker
// acknowledges it after writing the result; a job whose worker stopped
// acknowledging (no keep-alive for reclaim_after seconds: the worker died)
// is claimed by another worker and judged again. Results are idempotent: a
// job whose result exists is acknowledged without judging, and a job
// delivered more than max_deliveries times (it kills its workers) ends
// failed.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "queue/redis.h"

namespace cudal1 {

/// Reads a shared secret: the file's first line (at least 16 bytes), else
/// $CUDAL1_REDIS_SECRET. Errors: neither given, too short, unreadable.
result<std::string> read_queue_secret(const std::string& file);

struct queued_job {
  std::string entry_id, key;
  nlohmann::json job;
  int deliveries = 1;
};

class job_queue {
 public:
  /// Connects and creates the stream and its group when missing. `secret`:
  /// the shared signing key (required: an empty one is an error).
  static result<job_queue> open(const std::string& url, const std::string& secret, const std::string& prefix = "cudal1");

  result<std::string> enqueue(const std::string& key, const nlohmann::json& job);
  /// The job's result when a worker has written it and signed it; a value
  /// without a valid signature counts as none.
  result<std::optional<nlohmann::json>> result_of(const std::string& key);

  /// The next job for `consumer`: first one another worker left pending for
  /// `reclaim_after_s` seconds, else a new one, waiting up to `block_s`. A
  /// job without the server's signature is acknowledged and dropped (with a
  /// line on stderr), never returned.
  result<std::optional<queued_job>> next(const std::string& consumer, double block_s, double reclaim_after_s);
  /// Resets the job's idle time, so that no other worker reclaims it while
  /// this one is judging it.
  status keep_alive(const std::string& consumer, const std::string& entry_id);
  /// Writes the result, then acknowledges the job.
  status finish(const queued_job& job, const nlohmann::json& result);
  /// Jobs pending (delivered, not acknowledged), for tests and the status.
  result<long long> pending();

  redis_client& client() { return redis_; }

 private:
  job_queue(redis_client c, std::string secret, std::string prefix)
      : redis_(std::move(c)), secret_(std::move(secret)), prefix_(std::move(prefix)) {}
  std::string sign(const std::string& key, const std::string& text) const;
  std::string stream() const { return prefix_ + ":jobs"; }
  std::string group() const { return prefix_ + ":workers"; }
  std::optional<queued_job> parse_entry(const redis_value& entry);
  std::optional<nlohmann::json> verified_result(const std::string& key, const std::string& stored) const;
  redis_client redis_;
  std::string secret_;
  std::string prefix_;
};

}  // namespace cudal1
