// The figures of a stored run, per level and over all: what `cudal1 bench`
// prints at its end and `cudal1 report` renders (a table, JSON, HTML).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace cudal1 {

/// One level's figures (the part of a task's name before '/'), or "all".
/// A task counts once: by its best correct candidate (over samples).
struct level_summary {
  std::string level;
  int tasks = 0;            // every task of the level in the run
  int with_candidate = 0;   // tasks with at least one candidate judged
  int correct = 0;          // tasks with a correct candidate
  int faster_1 = 0, faster_1_5 = 0, faster_2 = 0;  // correct and above 1x, 1.5x, 2x
  /// KernelBench's fast_p: the fraction of all tasks that are correct and
  /// faster than p (p = 0: correct at all), for p = 0, 1, 1.5, 2.
  std::map<std::string, double> fast_p;
  /// Over the correct tasks' best speedups.
  std::optional<double> geomean, mean, median, p25, p75, max;
  std::map<std::string, int> verdicts;            // over every candidate judgment
  std::map<std::string, int> rejected_by_class;   // hack classes of rejected candidates
  int errors = 0;                                  // setup errors
};

/// Levels in name order, then "all".
std::vector<level_summary> summarize_run(const std::vector<judgment_record>& rows);
nlohmann::json run_summary_json(const std::vector<level_summary>& levels, const run_record& run);
/// A terminal table, one row per level.
std::string run_summary_table(const std::vector<level_summary>& levels, const run_record& run);

}  // namespace cudal1
