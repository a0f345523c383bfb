// Rendering judgments: JSON (the --json output, and later the API's) and a
// short human summary. Rendering only: no measurement happens here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "judge/judgment.h"

namespace cudal1 {

/// The judgment as JSON: verdict, speedup, reference and candidate timing,
/// error, checks, message, device, backend, and the raw samples.
nlohmann::json judgment_to_json(const judgment& j);

/// A few lines for a terminal.
std::string judgment_summary(const judgment& j);

}  // namespace cudal1
