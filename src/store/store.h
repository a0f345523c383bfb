// The results store: one SQLite file that keeps tasks, candidates, runs and
// judgments, keyed by content hash, for bench, the optimizer and the RL
// environment alike. Several cudal1 processes may use one store at once
// (WAL; each write waits its turn).
//
//   tasks       task_hash (SHA-256 of the task's source), name, source
//   candidates  candidate_hash (SHA-256 of format and source), task_hash,
//               format ("cuda", "cpp", "modelnew"), source, origin
//   runs        run_id, name (unique: the same command resumes its run),
//               command, settings (JSON: backend, baseline, precision...), status
//   judgments   one per (run, task, candidate, sample): verdict, speedup,
//               timings, device, driver, toolkit, torch, judge version,
//               precision, baseline, the published score where the input
//               had one, and the full judgment JSON
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/sqlite.h"

namespace cudal1 {

/// The schema this build writes; older stores are migrated on open.
constexpr int kStoreSchemaVersion = 2;

struct run_record {
  int64_t run_id = 0;
  std::string name, command, created_at, status;
  nlohmann::json settings = nlohmann::json::object();
};

/// One stored judgment, with the figures reports read most.
struct judgment_record {
  int64_t judgment_id = 0, run_id = 0;
  std::string task_hash, task_name, candidate_hash;  // candidate_hash empty: the reference timed alone
  int sample = 0;
  std::string verdict;  // a judgment's verdict, or "reference" for a reference timed alone
  std::optional<double> speedup, reference_ms, candidate_ms, sol_fraction;
  std::vector<std::string> hack_classes;
  std::string device, baseline, precision;
  std::optional<double> published_score;
  nlohmann::json judgment;  // the full JSON, as `cudal1 eval --json` prints it
  nlohmann::json published = nullptr;
  std::string created_at;
};

/// One request of the optimizer and what came of it.
///   status: "answered" (code taken from the answer, not judged yet),
///           "judged", "no_code" (the answer had no usable code: `problem`),
///           "llm_error" (the request failed: `problem`; tried again on resume)
struct attempt_record {
  int64_t attempt_id = 0, run_id = 0;
  std::string task_hash, task_name;
  int round = 0, slot = 0;
  std::string status, model;
  nlohmann::json prompt = nlohmann::json::object();     // {"system", "user"}
  nlohmann::json exemplars = nlohmann::json::array();   // [{"candidate_hash", "score"}]
  std::string answer, analysis, problem, candidate_hash, verdict;
  std::optional<double> speedup, reward, group_reward, llm_seconds, judge_seconds;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::string created_at;
};

/// A correct-or-not kernel of a task with its code: the optimizer's database.
struct task_kernel {
  std::string candidate_hash, format, source, verdict, device, baseline, judge_version, precision;
  std::vector<std::string> hack_classes;
  std::optional<double> speedup;
  int64_t judgment_id = 0, run_id = 0;
  nlohmann::json judgment;
};

/// What identifies a judgment within a run (for resuming).
struct judgment_key {
  int64_t run_id = 0;
  std::string task_hash, candidate_hash;
  int sample = 0;
};

class store {
 public:
  /// Opens or creates the store at `path` (its folder is created), migrating
  /// an older schema. Errors: unwritable folder, not a SQLite file, or a
  /// store written by a newer cudal1 (its schema version is named).
  static result<store> open(const std::string& path);
  /// $CUDAL1_STORE, else $XDG_DATA_HOME/cudal1/store.sqlite, else
  /// ~/.local/share/cudal1/store.sqlite.
  static std::string default_path();

  const std::string& path() const { return path_; }
  result<int> schema_version();

  /// Keeps a task's source under its content hash (again: nothing changes);
  /// returns the hash.
  result<std::string> put_task(const std::string& name, const std::string& source);
  /// Keeps a candidate under the hash of its format and source; returns it.
  result<std::string> put_candidate(const std::string& task_hash, const std::string& format, const std::string& source,
                                    const std::string& origin);
  result<std::string> candidate_source(const std::string& candidate_hash);

  /// The run named `name`, created if new (with command and settings);
  /// an existing run is returned as it is (resuming it).
  result<run_record> open_run(const std::string& name, const std::string& command, const nlohmann::json& settings);
  status set_run_status(int64_t run_id, const std::string& status);
  result<std::vector<run_record>> runs();
  /// A run by name or number; the newest run for an empty `which`.
  result<run_record> find_run(const std::string& which);

  /// Whether the run has a result for the key (a recorded "error", a setup
  /// failure, does not count: it is tried again).
  result<bool> has_judgment(const judgment_key& key);
  /// Records a judgment (its JSON as judgment_to_json() or the reference
  /// timing's); a second record for the same key replaces the first.
  /// `published`: the input's own scores (e.g. CUDA-L1's score_* fields).
  status record_judgment(const judgment_key& key, const nlohmann::json& judgment, const std::string& baseline,
                         std::optional<double> published_score = std::nullopt, const nlohmann::json& published = nullptr);
  result<std::vector<judgment_record>> judgments(int64_t run_id);

  /// Tasks whose name is `name`, or ends in "/name", or whose hash starts
  /// with it: (task_hash, name), newest first.
  result<std::vector<std::pair<std::string, std::string>>> find_tasks(const std::string& name);
  result<std::string> task_source(const std::string& task_hash);
  /// Every task: (task_hash, name), by name.
  result<std::vector<std::pair<std::string, std::string>>> all_tasks();
  /// Every judged candidate of a task, over all runs, with its source, best
  /// speedup first (a candidate judged several times appears once per judgment).
  result<std::vector<task_kernel>> task_kernels(const std::string& task_hash);

  /// Records an attempt (a second record for the same run, task, round and
  /// slot replaces the first).
  status put_attempt(const attempt_record& a);
  /// A run's attempts (of one task when task_hash is given), by task, round, slot.
  result<std::vector<attempt_record>> attempts(int64_t run_id, const std::string& task_hash = "");
  /// A task's attempts over every run, by run, round, slot.
  result<std::vector<attempt_record>> task_attempts(const std::string& task_hash);

 private:
  store(sqlite_db db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  status migrate();
  sqlite_db db_;
  std::string path_;
};

}  // namespace cudal1
