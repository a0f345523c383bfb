#include "competition/competition.h"

#include <ctime>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"

namespace cudal1 {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Equal strings of equal length, compared without an early exit: the time
// taken says nothing about how much of a token hash matched.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The first line of the module's docstring, if it opens with one.
std::string docstring_title(const std::string& source) {
  std::string s = trimmed(source);
  for (const char* quote : {"\"\"\"", "'''"}) {
    if (s.rfind(quote, 0) != 0) continue;
    std::istringstream lines(s.substr(3));
    for (std::string line; std::getline(lines, line);) {
      line = trimmed(line);
      size_t end = line.find(quote);
      if (end != std::string::npos) line = trimmed(line.substr(0, end));
      if (!line.empty()) return line;
      if (end != std::string::npos) break;
    }
  }
  return "";
}

// A value of a size profile as a Python literal (numbers, strings, booleans).
result<std::string> python_literal(const json& v) {
  if (v.is_boolean()) return std::string(v.get<bool>() ? "True" : "False");
  if (v.is_number() || v.is_string()) return json_text(v);
  return make_error("a size must be a number, a string or a boolean, not " + json_text(v));
}

bool defines_global(const std::string& source, const std::string& name) {
  std::regex assign("(^|\n)" + name + "\\s*(:[^=\n]*)?=[^=]");
  return std::regex_search(source, assign);
}

std::string path_from(const fs::path& base, const std::string& p) {
  fs::path q(p);
  return (q.is_absolute() ? q : base / q).lexically_normal().string();
}

// Checks that `j` has only the keys named; the error names the first other.
status known_keys(const json& j, const std::string& where, std::initializer_list<const char*> keys) {
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* name : keys) known = known || k == name;
    if (!known) {
      std::string list;
      for (const char* name : keys) list += std::string(list.empty() ? "" : ", ") + name;
      return make_error(where + ": unknown field '" + k + "' (it may have " + list + ")");
    }
  }
  return ok_status();
}

result<std::string> string_field(const json& j, const std::string& where, const char* key, bool required) {
  if (!j.contains(key)) {
    if (required) return make_error(where + ": '" + key + "' is missing");
    return std::string();
  }
  if (!j[key].is_string()) return make_error(where + ": '" + key + "' must be a string");
  return j[key].get<std::string>();
}

result<int> positive_int(const json& j, const std::string& where, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_number_integer() || j[key].get<int64_t>() < 1 || j[key].get<int64_t>() > (1 << 30))
    return make_error(where + ": '" + key + "' must be a whole number >= 1");
  return static_cast<int>(j[key].get<int64_t>());
}

result<hidden_run> read_hidden_run(const json& h, const std::string& where, const competition_task& task, size_t index) {
  if (!h.is_object()) return make_error(where + ": a hidden run is an object {\"profile\" or \"sizes\", \"seed\"}");
  if (auto k = known_keys(h, where, {"profile", "sizes", "seed"}); !k) return k.err();
  hidden_run run;
  if (h.contains("seed")) {
    if (!h["seed"].is_number_unsigned() && !(h["seed"].is_number_integer() && h["seed"].get<int64_t>() >= 0))
      return make_error(where + ": 'seed' must be a whole number >= 0");
    run.seed = h["seed"].get<uint64_t>();
  }
  bool named = h.contains("profile"), inline_sizes = h.contains("sizes");
  if (named == inline_sizes) return make_error(where + ": give either 'profile' (a profile of the task file) or 'sizes'");
  if (named) {
    auto p = string_field(h, where, "profile", true);
    if (!p) return p.err();
    run.profile = *p;
    // The task's cudal1_profiles must have it (the judge checks again when it runs).
    if (task.source.find("\"" + run.profile + "\"") == std::string::npos &&
        task.source.find("'" + run.profile + "'") == std::string::npos)
      return make_error(where + ": the task file has no size profile '" + run.profile + "'");
    return run;
  }
  if (!h["sizes"].is_object() || h["sizes"].empty())
    return make_error(where + ": 'sizes' must be an object of the task's module globals and their values");
  for (const auto& [k, v] : h["sizes"].items()) {
    if (!std::regex_match(k, std::regex("[A-Za-z_][A-Za-z0-9_]*")) || !defines_global(task.source, k))
      return make_error(where + ": the task file defines no module global '" + k + "' to size");
    if (auto lit = python_literal(v); !lit) return make_error(where + ": '" + k + "': " + lit.message());
  }
  run.sizes = h["sizes"];
  run.profile = "cudal1_hidden_" + std::to_string(index + 1);
  return run;
}

result<competition_task> read_task(const json& t, const std::string& where, const fs::path& base) {
  if (!t.is_object()) return make_error(where + ": a task is an object {\"file\", \"public_profile\", \"hidden\"}");
  if (auto k = known_keys(t, where, {"name", "file", "public_profile", "hidden"}); !k) return k.err();
  competition_task task;
  auto file = string_field(t, where, "file", true);
  if (!file) return file.err();
  task.file = path_from(base, *file);
  auto text = read_file(task.file);
  if (!text) return make_error(where + ": task file " + task.file + ": " + text.message());
  task.source = *text;
  task.judge_file = task.file;
  task.judge_source = task.source;
  task.title = docstring_title(task.source);
  auto name = string_field(t, where, "name", false);
  if (!name) return name.err();
  fs::path f(task.file);
  task.name = !name->empty() ? *name : f.stem() == "task" ? f.parent_path().filename().string() : f.stem().string();
  if (!std::regex_match(task.name, std::regex("[A-Za-z0-9_.-]{1,64}")))
    return make_error(where + ": task name '" + task.name + "' must be 1-64 letters, digits, '_', '.' or '-'");
  auto profile = string_field(t, where, "public_profile", false);
  if (!profile) return profile.err();
  task.public_profile = *profile;
  if (!task.public_profile.empty() && task.source.find("\"" + task.public_profile + "\"") == std::string::npos &&
      task.source.find("'" + task.public_profile + "'") == std::string::npos)
    return make_error(where + ": the task file has no size profile '" + task.public_profile + "'");
  if (!t.contains("hidden") || !t["hidden"].is_array() || t["hidden"].empty())
    return make_error(where + ": 'hidden' must list at least one hidden run ({\"sizes\" or \"profile\", \"seed\"}): "
                      "without one a kernel that hard-codes the public sizes would stand");
  for (size_t i = 0; i < t["hidden"].size(); ++i) {
    auto run = read_hidden_run(t["hidden"][i], where + ".hidden[" + std::to_string(i) + "]", task, i);
    if (!run) return run.err();
    task.hidden.push_back(std::move(*run));
  }
  return task;
}

result<participant> read_participant(const json& p, const std::string& where, const fs::path& base) {
  if (!p.is_object()) return make_error(where + ": an entrant is an object {\"name\", \"token_sha256\" or \"token_file\"}");
  if (p.contains("token"))
    return make_error(where + ": tokens are not written in plain text here: give 'token_sha256' (sha256sum of the "
                      "token) or 'token_file' (a file holding it)");
  if (auto k = known_keys(p, where, {"name", "token_sha256", "token_file"}); !k) return k.err();
  participant out;
  auto name = string_field(p, where, "name", true);
  if (!name) return name.err();
  out.name = *name;
  if (!std::regex_match(out.name, std::regex("[A-Za-z0-9_.@ -]{1,64}")))
    return make_error(where + ": an entrant's name is 1-64 letters, digits, spaces, '_', '.', '@' or '-'");
  bool hashed = p.contains("token_sha256"), file = p.contains("token_file");
  if (hashed == file) return make_error(where + ": give either 'token_sha256' or 'token_file'");
  if (hashed) {
    auto h = string_field(p, where, "token_sha256", true);
    if (!h) return h.err();
    std::string hex = *h;
    for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::regex_match(hex, std::regex("[0-9a-f]{64}")))
      return make_error(where + ": 'token_sha256' must be 64 hex digits (sha256sum of the token)");
    out.token_sha256 = hex;
  } else {
    auto f = string_field(p, where, "token_file", true);
    if (!f) return f.err();
    auto text = read_file(path_from(base, *f));
    if (!text) return make_error(where + ": token_file: " + text.message());
    std::istringstream lines(*text);
    std::string token;
    for (std::string line; std::getline(lines, line) && token.empty();) token = trimmed(line);
    if (token.empty()) return make_error(where + ": token_file " + *f + " holds no token");
    out.token_sha256 = sha256_hex(token);
  }
  return out;
}

status read_limits(const json& l, competition& c) {
  if (!l.is_object()) return make_error("limits: must be an object");
  if (auto k = known_keys(l, "limits", {"max_code_bytes", "submissions", "window_s", "max_pending"}); !k) return k.err();
  auto code = positive_int(l, "limits", "max_code_bytes", static_cast<int>(c.max_code_bytes));
  auto subs = positive_int(l, "limits", "submissions", c.rate_submissions);
  auto window = positive_int(l, "limits", "window_s", c.rate_window_s);
  auto pending = positive_int(l, "limits", "max_pending", c.max_pending);
  for (const auto* r : {&code, &subs, &window, &pending})
    if (!*r) return r->err();
  c.max_code_bytes = static_cast<size_t>(*code);
  c.rate_submissions = *subs;
  c.rate_window_s = *window;
  c.max_pending = *pending;
  return ok_status();
}

result<competition> read_competition(const json& j, const fs::path& base) {
  if (!j.is_object()) return make_error("a competition file holds one JSON object");
  if (auto k = known_keys(j, "competition", {"name", "description", "backend", "gpus", "start", "end", "ranking", "tasks",
                                             "participants", "limits"});
      !k)
    return k.err();
  competition c;
  auto name = string_field(j, "competition", "name", true);
  auto description = string_field(j, "competition", "description", false);
  auto backend = string_field(j, "competition", "backend", false);
  auto ranking = string_field(j, "competition", "ranking", false);
  auto start = string_field(j, "competition", "start", true);
  auto end = string_field(j, "competition", "end", true);
  for (const auto* r : {&name, &description, &backend, &ranking, &start, &end})
    if (!*r) return r->err();
  c.name = *name;
  c.description = *description;
  if (!backend->empty()) c.backend = *backend;
  if (c.backend != "cpu" && c.backend != "cuda") return make_error("backend: must be cpu or cuda");
  if (!ranking->empty()) c.ranking = *ranking;
  if (c.ranking != "time" && c.ranking != "speedup")
    return make_error("ranking: must be time (the lowest public time) or speedup (the highest speedup)");
  auto s = parse_utc_time(*start);
  if (!s) return make_error("start: " + s.message());
  auto e = parse_utc_time(*end);
  if (!e) return make_error("end: " + e.message());
  c.start_unix = *s;
  c.end_unix = *e;
  if (c.end_unix <= c.start_unix) return make_error("end: must be after start");
  if (j.contains("gpus")) {
    if (!j["gpus"].is_array()) return make_error("gpus: must be a list of device kinds (\"H200\")");
    for (const auto& g : j["gpus"]) {
      if (!g.is_string() || g.get<std::string>().empty()) return make_error("gpus: each is a non-empty string");
      c.gpus.push_back(g.get<std::string>());
    }
  }
  if (!j.contains("tasks") || !j["tasks"].is_array() || j["tasks"].empty()) return make_error("tasks: list at least one task");
  std::set<std::string> task_names;
  for (size_t i = 0; i < j["tasks"].size(); ++i) {
    auto t = read_task(j["tasks"][i], "tasks[" + std::to_string(i) + "]", base);
    if (!t) return t.err();
    if (!task_names.insert(t->name).second) return make_error("tasks: two tasks are named '" + t->name + "'");
    c.tasks.push_back(std::move(*t));
  }
  if (!j.contains("participants") || !j["participants"].is_array() || j["participants"].empty())
    return make_error("participants: list at least one entrant");
  std::set<std::string> names, hashes;
  for (size_t i = 0; i < j["participants"].size(); ++i) {
    auto p = read_participant(j["participants"][i], "participants[" + std::to_string(i) + "]", base);
    if (!p) return p.err();
    if (!names.insert(p->name).second) return make_error("participants: two entrants are named '" + p->name + "'");
    if (!hashes.insert(p->token_sha256).second)
      return make_error("participants: '" + p->name + "' has the token of another entrant");
    c.participants.push_back(std::move(*p));
  }
  if (j.contains("limits"))
    if (auto l = read_limits(j["limits"], c); !l) return l.err();
  return c;
}

}  // namespace

const participant* competition::find_by_token(const std::string& token) const {
  std::string hash = sha256_hex(token);
  const participant* found = nullptr;
  for (const auto& p : participants)
    if (same_secret(p.token_sha256, hash)) found = &p;
  return found;
}

const competition_task* competition::find_task(const std::string& task_name) const {
  for (const auto& t : tasks)
    if (t.name == task_name) return &t;
  return nullptr;
}

std::string competition::state_at(int64_t now) const {
  return now < start_unix ? "before" : now >= end_unix ? "ended" : "open";
}

json competition::public_json(int64_t now) const {
  json task_list = json::array();
  for (const auto& t : tasks)
    task_list.push_back({{"name", t.name}, {"title", t.title}, {"public_profile", t.public_profile},
                         {"hidden_runs", t.hidden.size()}, {"source", t.source}});
  json names = json::array();
  for (const auto& p : participants) names.push_back(p.name);
  return {{"name", name},
          {"description", description},
          {"backend", backend},
          {"gpus", gpus},
          {"start", format_utc_time(start_unix)},
          {"end", format_utc_time(end_unix)},
          {"now", format_utc_time(now)},
          {"state", state_at(now)},
          {"seconds_to_start", std::max<int64_t>(0, start_unix - now)},
          {"seconds_to_end", std::max<int64_t>(0, end_unix - now)},
          {"ranking", ranking},
          {"tasks", task_list},
          {"participants", names},
          {"limits",
           {{"max_code_bytes", max_code_bytes}, {"submissions", rate_submissions}, {"window_s", rate_window_s},
            {"max_pending", max_pending}}}};
}

result<competition> load_competition(const std::string& path) {
  auto text = read_file(path);
  if (!text) return make_error("--competition " + path + ": " + text.message());
  json j;
  try {
    j = json::parse(*text);
  } catch (const json::parse_error& e) {
    return make_error("--competition " + path + ": not JSON: " + e.what());
  }
  auto c = read_competition(j, fs::absolute(path).parent_path());
  if (!c) return make_error("--competition " + path + ": " + c.message());
  return c;
}

status write_judge_files(competition& c, const std::string& dir) {
  for (auto& t : c.tasks) {
    std::string extra;
    for (const auto& run : t.hidden) {
      if (run.sizes.is_null()) continue;
      std::string dict;
      for (const auto& [k, v] : run.sizes.items()) dict += (dict.empty() ? "" : ", ") + json_text(json(k)) + ": " + *python_literal(v);
      extra += "cudal1_profiles[\"" + run.profile + "\"] = {" + dict + "}\n";
    }
    if (extra.empty()) continue;
    t.judge_source = t.source + "\n\n# Added by cudal1 serve --competition: the hidden size profiles (never shown to entrants).\n"
                                "cudal1_profiles = dict(globals().get(\"cudal1_profiles\") or {})\n" + extra;
    t.judge_file = dir + "/" + t.name + ".py";
    if (auto w = write_file_atomic(t.judge_file, t.judge_source); !w) return w.err();
  }
  return ok_status();
}

result<int64_t> parse_utc_time(const std::string& text) {
  static const std::regex form(R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2}))");
  std::smatch m;
  if (!std::regex_match(text, m, form))
    return make_error("'" + text + "' is not a time like 2026-12-03T17:00:00Z (UTC, or with an offset like +01:00)");
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = m[6].matched ? std::stoi(m[6]) : 0;
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return make_error("'" + text + "' is not a valid time");
  int64_t t = timegm(&tm);
  std::string zone = m[7];
  if (zone != "Z") {
    int64_t offset = std::stoi(zone.substr(1, 2)) * 3600 + std::stoi(zone.substr(4, 2)) * 60;
    t -= zone[0] == '+' ? offset : -offset;
  }
  return t;
}

std::string format_utc_time(int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace cudal1
