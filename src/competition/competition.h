// A kernel competition as data: its tasks (a task file, the size profile
// entrants see, the hidden runs they do not), the backend and GPU kinds it
// runs on, its window, its ranking rule and its entrants with their tokens,
// read from a JSON file (docs/competition.md has the format).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

/// One hidden run of a task: a size profile and a seed the entrant never sees.
struct hidden_run {
  std::string profile;          // a profile of the task file, or the generated name of `sizes`
  nlohmann::json sizes;         // inline sizes (module globals -> values), or null for a named profile
  std::optional<uint64_t> seed; // empty: a fresh random seed at each judgment
};

struct competition_task {
  std::string name;            // as entrants name it ("swish")
  std::string title;           // the first line of the task file's docstring
  std::string file;            // the public task file (absolute)
  std::string source;          // its text: what entrants see
  std::string public_profile;  // empty: the judge's default for the backend
  std::vector<hidden_run> hidden;
  /// The file the judge runs: the task with the inline hidden sizes added to
  /// its cudal1_profiles (write_judge_files()); the same as `file` when no
  /// run has inline sizes.
  std::string judge_file, judge_source;
};

struct participant {
  std::string name;
  std::string token_sha256;  // hex digest of the bearer token
};

struct competition {
  std::string name, description;
  std::string backend = "cpu";      // "cpu" or "cuda"
  std::vector<std::string> gpus;    // device kinds that rank (substrings of the device name); empty: any
  int64_t start_unix = 0, end_unix = 0;
  std::string ranking = "time";     // "time" (lowest public median) or "speedup" (highest); ties: earlier submission
  std::vector<competition_task> tasks;
  std::vector<participant> participants;
  size_t max_code_bytes = 64 * 1024;
  int rate_submissions = 20;        // accepted submissions per entrant per rate_window_s
  int rate_window_s = 3600;
  int max_pending = 2;              // an entrant's submissions waiting or being judged at once

  /// The entrant whose token this is (compared by its SHA-256, in constant
  /// time per entrant); null for an unknown token.
  const participant* find_by_token(const std::string& token) const;
  const competition_task* find_task(const std::string& name) const;
  /// "before", "open" or "ended" at `now_unix`.
  std::string state_at(int64_t now_unix) const;
  /// What anyone may see: name, window, state, ranking, limits, the tasks
  /// with their public sources and profiles (never the hidden runs), the
  /// entrants' names.
  nlohmann::json public_json(int64_t now_unix) const;
};

/// Reads and checks a competition file. Relative paths (task files, token
/// files) are taken from the file's folder. Errors name the field at fault:
/// a missing task file, an unknown profile, a bad time, a duplicate entrant
/// or token, a token given in plain text.
result<competition> load_competition(const std::string& path);

/// Writes the judge's copy of each task that has inline hidden sizes into
/// `dir` (a private folder: it holds the hidden sizes) and sets judge_file
/// and judge_source.
status write_judge_files(competition& c, const std::string& dir);

/// "2026-12-03T17:00:00Z" (also "+01:00"-style offsets) -> Unix seconds.
result<int64_t> parse_utc_time(const std::string& text);
/// Unix seconds -> "2026-12-03T17:00:00Z".
std::string format_utc_time(int64_t unix_s);

}  // namespace cudal1
