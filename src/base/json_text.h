// JSON text that cannot fail on the text it carries.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cudal1 {

/// j as JSON text (indent as nlohmann's dump()), with the bytes of any string
/// that is not valid UTF-8 replaced by U+FFFD instead of an exception: a
/// judgment carries text the candidate controls (its output, a compiler's
/// quote of its source, its threads' names), and a plain dump() of such
/// text threw, so that judgment ended without a verdict and a server judging
/// it aborted (an attack review, 2026-12-07). Every JSON the project writes
/// goes through here.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// j with every string made valid UTF-8 (as json_text writes it), for JSON
/// whose strings are handed on as strings too (a database's text columns).
inline nlohmann::json valid_utf8(const nlohmann::json& j) { return nlohmann::json::parse(json_text(j)); }

}  // namespace cudal1
