// The competition's referee: takes entrants' submissions (inside the window,
// under the rate limits and the size limit), has each judged on the
// judge_service (its public run; then, when that is correct, its hidden
// runs), settles its verdict, keeps the submissions on disk and the board up
// to date, and wakes whoever waits for a change (the live page, a client
// waiting for its verdict). HTTP threads only submit and read; one thread of
// its own follows the judgments.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "competition/competition.h"
#include "competition/submission.h"
#include "competition/submission_store.h"
#include "serve/service.h"

namespace cudal1 {

/// A submission the host does not take: the HTTP status, why, and when to
/// try again (429).
struct refusal {
  int status = 400;
  std::string message;
  int retry_after_s = 0;
};

class competition_host {
 public:
  /// Opens the submission store at `store_path`, writes the judge's copies
  /// of the tasks into `private_dir`, queues again the submissions a
  /// previous run left unjudged, and starts following judgments.
  static result<std::unique_ptr<competition_host>> start(competition c, judge_service& service,
                                                         const std::string& store_path, const std::string& private_dir);
  ~competition_host();  // stops

  const competition& definition() const { return c_; }

  /// Takes `code` (a source, or an LLM answer with a code block) for `task`
  /// from `who`; format "" decides by the text. Returns the submission's id,
  /// or why not: 403 outside the window, 404 an unknown task, 413 oversize
  /// code, 400/422 no usable code or a wrong format, 429 over the rate limit
  /// or with too many submissions waiting.
  std::variant<int64_t, refusal> submit(const participant& who, const std::string& task, const std::string& code,
                                        const std::string& format);

  std::optional<submission> get(int64_t id) const;
  /// An entrant's submissions, newest first.
  std::vector<submission> submissions_of(const std::string& participant) const;
  /// The board (build_board()) with "version" and the competition's clock.
  nlohmann::json board() const;
  /// Where the submission's entrant stands on its board (standing_on()).
  nlohmann::json standing(const submission& s) const;

  /// Blocks until the board's version differs from `seen`, the host stops or
  /// `timeout_s` passes; returns the version then.
  int64_t wait_change(int64_t seen, double timeout_s) const;
  /// Blocks until the submission is done or failed (or the timeout, or the
  /// host stops); its view then.
  std::optional<submission> wait_judged(int64_t id, double timeout_s) const;
  bool stopping() const;
  /// Counts a refusal made before the host saw the submission (401: no entrant's token).
  void note_refusal(int status);
  /// Prometheus text: submissions by verdict, refusals by status.
  std::string metrics_text() const;
  /// Stops following judgments and wakes every waiter.
  void stop();

 private:
  competition_host() = default;
  struct flight;  // a submission being judged: its jobs
  void referee_loop();
  bool advance(flight& f);  // true once the submission is settled
  judge_request request_for(const submission& s, nlohmann::json options) const;
  void settle(submission s, const std::string& note);
  void rebuild_board();  // under mutex_

  competition c_;
  judge_service* service_ = nullptr;
  std::optional<submission_store> db_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<int64_t, submission> subs_;
  std::deque<int64_t> incoming_;  // ids for the referee to take up
  nlohmann::json board_;
  int64_t version_ = 0;
  bool stopping_ = false;
  std::map<std::string, int64_t> refused_;  // by status
  std::thread referee_;
};

}  // namespace cudal1
