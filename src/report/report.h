// Rendering judgments: JSON (the --json output, and later the API's) and a
// short human summary. Rendering only: no measurement happens here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "judge/judge.h"
#include "judge/judgment.h"

namespace cudal1 {

/// The judgment as JSON: verdict, speedup, reference and candidate timing,
/// error, checks, message, device, backend, and the raw samples.
nlohmann::json judgment_to_json(const judgment& j);

/// A reference timed alone, in a judgment's shape: verdict "reference", the
/// reference's figures, speed of light and signature (bench and the
/// optimizer store it as a judgment without a candidate).
nlohmann::json reference_timing_json(const reference_timing& t);

/// s with its control characters other than newline and tab in caret
/// notation (ESC as ^[, CR as ^M), as `cat -v` shows them: text the
/// candidate controls reaches the terminal, and raw, its escapes erased
/// lines and printed a forged verdict (an attack review, 2026-12-07).
std::string terminal_safe(const std::string& s);

/// A few lines for a terminal.
std::string judgment_summary(const judgment& j);

}  // namespace cudal1
