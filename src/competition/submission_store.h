// The competition's submissions on disk (SQLite, beside the results store):
// a restarted server has every submission, its code and its judgment, and
// judges again those it had not finished. One file may hold several
// competitions, told apart by name.
//
//   submissions  id, competition, participant, task, format, code,
//                submitted_ms, judged_ms, state, verdict, verdict_class, part,
//                standing, error, hidden_verdict, device, time_ms,
//                reference_ms, speedup, sol_fraction, public_judgment (JSON),
//                hidden_judgments (JSON: the organizers' only)
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "competition/submission.h"
#include "store/sqlite.h"

namespace cudal1 {

class submission_store {
 public:
  /// Opens or creates the file (its folder too). Errors: not writable, not SQLite.
  static result<submission_store> open(const std::string& path);
  /// Stores a new submission; returns its id.
  result<int64_t> insert(const std::string& competition, const submission& s);
  /// Writes a submission's state, verdict and judgments.
  status update(const submission& s);
  /// Every submission of the competition, oldest first.
  result<std::vector<submission>> load(const std::string& competition);

 private:
  explicit submission_store(sqlite_db db) : db_(std::move(db)) {}
  sqlite_db db_;
};

}  // namespace cudal1
