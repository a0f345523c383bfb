// The re-check of implausible speedups, applied by judge_candidate().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "judge/judge.h"

namespace cudal1 {

/// Judges the candidate again in fresh processes with fresh seeds (and no
/// further re-check). Two correct judgments agree where their speedups are
/// within recheck_agreement() of each other, or the candidate's own medians
/// are (the reference's time moved between processes, not the candidate's)
/// and the speedups within three times options.recheck_tolerance. The first
/// stands if the second is correct and agrees; where they do not agree,
/// another judgment decides, up to options.recheck_judgments in all: it
/// stands if it agrees with any before it. A later judgment that is not
/// correct gives its verdict, except that one rejected on its clock alone
/// (timer_tampering), after a first whose clock check vouched for its
/// window, leaves it to the next (a second such rejection stands); no
/// agreement is rejected as unstable_speedup.
/// Where it stands, the lowest speedup of the judgments that agree is kept.
/// Precondition: first is correct with a speedup.
/// `why` says what made the speedup implausible.
result<judgment> recheck_speedup(judgment first, const std::string& task_path, const std::string& candidate_path,
                                 const judge_options& options, const std::string& why, progress_sink& progress);

/// recheck_speedup() with each further judgment from `judge_again` (tests
/// script them).
result<judgment> recheck_speedup_with(judgment first, const judge_options& options, const std::string& why,
                                      progress_sink& progress, const std::function<result<judgment>()>& judge_again);

/// A judgment's own figures, kept where another judgment decides (the
/// `rechecks` and `earlier_judgments` fields): its verdict and message,
/// speedup, both medians, the host's state, the judge's clock route and
/// whether its check was conclusive, its window span's check (over all
/// pairs and the full-speed pairs: disagreed, in the slow calls only, the
/// median's and lower quartile's excess, the tolerance), its clock checks,
/// and its seconds.
nlohmann::json recheck_figures(const judgment& j);

/// Whether two correct judgments' speedups agree, by recheck_speedup()'s rule.
/// Precondition: both have a speedup.
bool speedups_agree(const judgment& a, const judgment& b, const judge_options& options);

/// Where no two judgments before `latest` agreed: the judgment whose speedup
/// stands, the lowest of `latest` and the earlier ones it agrees with, or
/// nullptr where it agrees with none (another judgment, or unstable_speedup).
/// Precondition: all correct, with a speedup.
const judgment* deciding_judgment(const std::vector<const judgment*>& earlier, const judgment& latest,
                                  const judge_options& options);

/// How far apart (relative) two judgments' speedups may be: four standard
/// errors of their difference (each judgment's speedup_error_rel), at least
/// `least` (options.recheck_tolerance, CUDA-L1's 10%) and at most three
/// times it; three times it where either error is unknown (too few pairs).
double recheck_agreement(double least, std::optional<double> error1, std::optional<double> error2);

/// Why a correct judgment's speedup must be re-measured (CUDA-L1's triggers:
/// above options.recheck_above, or above options.recheck_above_best times
/// `best`, the best that stood for the task), or empty when it stands as is.
std::string recheck_reason(double speedup, const judge_options& options, std::optional<double> best);

/// The best speedups that stood, per task (its content), size profile,
/// backend, device and precision policy, kept as JSON in a file of the cache
/// folder, so "above twice the best seen" (CUDA-L1's second trigger) works
/// across judgments and runs. Concurrent writers take turns (a lock file).
class best_speedups {
 public:
  explicit best_speedups(std::string path) : path_(std::move(path)) {}
  /// The key of a judgment's task and setting; empty if the task is unreadable.
  static std::string key(const judgment& j, const std::string& precision);
  std::optional<double> best(const std::string& key) const;
  /// Keeps speedup if it beats the best so far; errors are ignored (a lost
  /// record only makes a later re-check less likely).
  void record(const std::string& key, double speedup) const;

 private:
  std::string path_;
};

}  // namespace cudal1
