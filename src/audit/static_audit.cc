#include "audit/static_audit.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "base/fs.h"

namespace cudal1 {

result<std::vector<audit_rule>> parse_audit_rules(const std::string& text) {
  std::vector<audit_rule> rules;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 8) return make_error("audit rules line " + std::to_string(number) + ": 8 tab-separated fields expected");
    if (f[1] != "high" && f[1] != "medium" && f[1] != "low")
      return make_error("audit rules line " + std::to_string(number) + ": severity must be high, medium or low");
    if (f[7] != "any" && f[7] != "native" && f[7] != "python")
      return make_error("audit rules line " + std::to_string(number) + ": scope must be any, native or python");
    audit_rule r{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], {}};
    try {
      r.regex = std::regex(r.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return make_error("audit rule " + r.id + ": bad pattern: " + e.what());
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

result<std::vector<audit_rule>> load_audit_rules() {
  auto dir = data_dir();
  if (!dir) return dir.err();
  auto text = read_file(*dir + "/audit/rules.tsv");
  if (!text) return text.err();
  return parse_audit_rules(*text);
}

std::string strip_comments(const std::string& s) {
  std::string out = s;
  enum { code, line_comment, block_comment, string_lit, char_lit } state = code;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i], next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/') state = line_comment, out[i] = ' ';
        else if (c == '/' && next == '*') state = block_comment, out[i] = ' ';
        else if (c == '"') state = string_lit;
        else if (c == '\'') state = char_lit;
        break;
      case line_comment:
        if (c == '\n') state = code;
        else out[i] = ' ';
        break;
      case block_comment:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case string_lit:
      case char_lit:
        if (c == '\\') ++i;
        else if ((state == string_lit && c == '"') || (state == char_lit && c == '\'') || c == '\n') state = code;
        break;
    }
  }
  return out;
}

std::string source_language(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0 ? "python" : "native";
}

std::vector<audit_hit> audit_source(const std::string& source, const std::vector<audit_rule>& rules, const std::string& language) {
  std::vector<audit_hit> hits;
  std::istringstream code(strip_comments(source)), original(source);
  std::string line, raw;
  for (int number = 1; std::getline(code, line) && std::getline(original, raw); ++number) {
    for (const auto& r : rules) {
      if (r.scope != "any" && r.scope != language) continue;
      if (!std::regex_search(line, r.regex)) continue;
      size_t first = raw.find_first_not_of(" \t");
      hits.push_back({&r, number, first == std::string::npos ? "" : raw.substr(first, 160)});
    }
  }
  return hits;
}

nlohmann::json audit_hits_json(const std::vector<audit_hit>& hits) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& h : hits)
    arr.push_back({{"rule", h.rule->id},
                   {"severity", h.rule->severity},
                   {"class", h.rule->cls},
                   {"line", h.line},
                   {"text", h.text},
                   {"explanation", h.rule->explanation}});
  return arr;
}

}  // namespace cudal1
