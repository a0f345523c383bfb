// The static screen: a rule database kept as data (data/audit-rules.tsv),
// matched line by line against a candidate's source. It flags; the dynamic
// checks of a judgment decide.
#pragma once

#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace cudal1 {

struct audit_rule {
  std::string id;
  std::string severity;  // high, medium, low
  std::string cls;       // the hack class it points at
  std::string pattern;
  std::string explanation;
  std::string example_hit, example_miss;  // its test: must match, must not match
  std::string scope;  // the sources it reads: "any", "native" (.cu, .cpp) or "python" (a ModelNew .py)
  std::regex regex;
};

struct audit_hit {
  const audit_rule* rule = nullptr;
  int line = 0;  // 1-based
  std::string text;
};

/// Parses the rules file (tab-separated, '#' comments). Errors name the line.
result<std::vector<audit_rule>> parse_audit_rules(const std::string& text);
/// Loads <data dir>/audit/rules.tsv.
result<std::vector<audit_rule>> load_audit_rules();

/// The source with comments blanked out (string literals kept), line breaks kept.
std::string strip_comments(const std::string& source);

/// Every rule hit in the source, in line order: the rules whose scope is
/// "any" or `language` ("native" or "python").
std::vector<audit_hit> audit_source(const std::string& source, const std::vector<audit_rule>& rules,
                                    const std::string& language = "native");
/// "python" for a .py file, else "native".
std::string source_language(const std::string& path);

nlohmann::json audit_hits_json(const std::vector<audit_hit>& hits);

}  // namespace cudal1
