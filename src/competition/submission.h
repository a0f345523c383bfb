// One entrant's submission: what was sent, where its judgment stands, and the
// verdict settled from its public run and its hidden runs; the views that
// entrants and the public see. A view never holds a hidden run's sizes, seed,
// figures or message: only whether the hidden runs passed, and the class of
// the failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudal1 {

/// How one run of a submission (public or hidden) ended.
struct run_outcome {
  bool done = false;                // false: cudal1 could not judge it (`error` says why)
  std::string verdict;              // the judgment's verdict
  std::vector<std::string> hacks;   // the hack classes of a rejected judgment
  std::string error;
};

/// The outcome of a judgment's JSON (judgment_to_json()).
run_outcome outcome_of(const nlohmann::json& judgment);

struct submission {
  int64_t id = 0;
  std::string participant, task, format, code;
  int64_t submitted_ms = 0, judged_ms = 0;  // Unix milliseconds
  /// "queued" (waiting for the device), "judging" (its public run or hidden
  /// runs are being judged), "done" (a verdict) or "failed" (cudal1 could not
  /// judge it: `error`).
  std::string state = "queued";
  /// When done: correct, incorrect, compile_error, runtime_error, timeout or
  /// rejected; `part` says which run gave it ("public" or "hidden"; empty
  /// when correct), `verdict_class` the hack classes of a rejection, else the
  /// verdict.
  std::string verdict, verdict_class, part;
  bool standing = false;  // every run correct, none rejected
  std::string error;
  /// The public run's judgment without the server's paths (what its entrant sees).
  nlohmann::json public_judgment;
  /// "pass", "fail" or "not_run" (the public run was not correct).
  std::string hidden_verdict = "not_run";
  /// The hidden runs' judgments (or errors): for the organizers, never served.
  nlohmann::json hidden_judgments = nlohmann::json::array();
  std::string device;  // the public run's device name: the board's GPU kind
  std::optional<double> time_ms, reference_ms, speedup, sol_fraction;
};

/// Takes the public run's judgment into `s`: its figures, and the judgment
/// itself less the server's file paths.
void take_public_judgment(submission& s, const nlohmann::json& judgment);

/// Settles the verdict from the runs' outcomes (the public run's, then the
/// hidden runs', empty when the public run was not correct). A rejection in
/// any run wins; then the public run's verdict; then the first hidden run
/// that was not correct. A run cudal1 could not judge fails the submission
/// (state "failed") with `error`, which for a hidden run says only that it
/// could not be judged.
void settle_submission(submission& s, const run_outcome& public_run, const std::vector<run_outcome>& hidden_runs);

/// What anyone may see (`owner`: its entrant, who also sees the code and the
/// public run's whole judgment; others see its checks, hacks and figures but
/// not its messages): id, entrant, task, times, state, verdict, the hidden verdict.
nlohmann::json submission_view(const submission& s, bool owner);
/// One line of the board's list of submissions.
nlohmann::json submission_summary(const submission& s);

}  // namespace cudal1
