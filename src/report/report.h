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

/// A few lines for a terminal.
std::string judgment_summary(const judgment& j);

}  // namespace cudal1
