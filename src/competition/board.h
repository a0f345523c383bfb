// The leaderboard, computed from the submissions alone (so a restarted
// server shows the same board): per task and GPU kind, each entrant's best
// standing submission ranked by the competition's rule, ties going to the
// earlier submission; the best's history over the competition; the newest
// submissions, rejected hacks among them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "competition/competition.h"
#include "competition/submission.h"

namespace cudal1 {

/// The GPU kind a device ranks under: the first of the competition's `gpus`
/// that its name contains (case aside), or the name itself when the
/// competition lists none; empty when the list excludes it (such a
/// submission is judged but not ranked).
std::string gpu_kind(const competition& c, const std::string& device);

/// Whether `a` ranks above `b` under the rule ("time": lower public median;
/// "speedup": higher), the earlier submission first on a tie. Both standing.
bool ranks_above(const std::string& rule, const submission& a, const submission& b);

/// {"tasks": [{"name", "title", "boards": [{"gpu", "entries": [{"rank",
/// "participant", "id", "time_ms", "reference_ms", "speedup", "sol_fraction",
/// "submitted_at"}], "history": [{"t_ms", "time_ms", "speedup",
/// "participant", "id"}]}]}], "recent": [newest first, at most `recent`],
/// "counts": {...}}.
nlohmann::json build_board(const competition& c, const std::vector<submission>& all, size_t recent = 100);

/// Where a submission's entrant stands on its task's board: {"gpu", "rank",
/// "of", "best_id", "this_is_best"}; null when it has no entry there.
nlohmann::json standing_on(const nlohmann::json& board, const competition& c, const submission& s);

}  // namespace cudal1
