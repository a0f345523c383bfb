#include "competition/board.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace cudal1 {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

bool rankable(const competition& c, const submission& s) {
  if (!s.standing || s.state != "done") return false;
  return c.ranking == "speedup" ? s.speedup.has_value() : s.time_ms.has_value();
}

bool earlier(const submission& a, const submission& b) {
  return a.submitted_ms != b.submitted_ms ? a.submitted_ms < b.submitted_ms : a.id < b.id;
}

json entry_json(const submission& s, int rank) {
  return {{"rank", rank},
          {"participant", s.participant},
          {"id", s.id},
          {"time_ms", opt(s.time_ms)},
          {"reference_ms", opt(s.reference_ms)},
          {"speedup", opt(s.speedup)},
          {"sol_fraction", opt(s.sol_fraction)},
          {"device", s.device},
          {"submitted_at", format_utc_time(s.submitted_ms / 1000)},
          {"submitted_ms", s.submitted_ms}};
}

// One task on one GPU kind: the entrants' best standing submissions, ranked,
// and how the best moved over the competition.
json one_board(const competition& c, const std::string& gpu, std::vector<const submission*> subs) {
  std::sort(subs.begin(), subs.end(), [](const submission* a, const submission* b) { return earlier(*a, *b); });
  std::map<std::string, const submission*> best;
  json history = json::array();
  const submission* leader = nullptr;
  for (const submission* s : subs) {
    auto& b = best[s->participant];
    if (!b || ranks_above(c.ranking, *s, *b)) b = s;
    if (!leader || ranks_above(c.ranking, *s, *leader)) {
      leader = s;
      history.push_back({{"t_ms", s->submitted_ms}, {"time_ms", opt(s->time_ms)}, {"speedup", opt(s->speedup)},
                         {"participant", s->participant}, {"id", s->id}});
    }
  }
  std::vector<const submission*> ranked;
  for (const auto& [name, s] : best) ranked.push_back(s);
  std::sort(ranked.begin(), ranked.end(),
            [&](const submission* a, const submission* b) { return ranks_above(c.ranking, *a, *b); });
  json entries = json::array();
  for (size_t i = 0; i < ranked.size(); ++i) entries.push_back(entry_json(*ranked[i], static_cast<int>(i + 1)));
  return {{"gpu", gpu}, {"entries", entries}, {"history", history}};
}

}  // namespace

std::string gpu_kind(const competition& c, const std::string& device) {
  if (c.gpus.empty()) return device.empty() ? "unknown device" : device;
  for (const auto& kind : c.gpus)
    if (lower(device).find(lower(kind)) != std::string::npos) return kind;
  return "";
}

bool ranks_above(const std::string& rule, const submission& a, const submission& b) {
  if (rule == "speedup") {
    double x = a.speedup.value_or(0), y = b.speedup.value_or(0);
    if (x != y) return x > y;
  } else {
    double x = a.time_ms.value_or(1e300), y = b.time_ms.value_or(1e300);
    if (x != y) return x < y;
  }
  return earlier(a, b);
}

json build_board(const competition& c, const std::vector<submission>& all, size_t recent) {
  json tasks = json::array();
  for (const auto& t : c.tasks) {
    std::map<std::string, std::vector<const submission*>> by_gpu;
    for (const auto& s : all) {
      if (s.task != t.name || !rankable(c, s)) continue;
      std::string kind = gpu_kind(c, s.device);
      if (!kind.empty()) by_gpu[kind].push_back(&s);
    }
    json boards = json::array();
    for (auto& [gpu, subs] : by_gpu) boards.push_back(one_board(c, gpu, subs));
    tasks.push_back({{"name", t.name}, {"title", t.title}, {"boards", boards}});
  }
  std::vector<const submission*> newest;
  for (const auto& s : all) newest.push_back(&s);
  std::sort(newest.begin(), newest.end(), [](const submission* a, const submission* b) { return a->id > b->id; });
  json list = json::array();
  int standing = 0, rejected = 0;
  for (const auto* s : newest) {
    if (list.size() < recent) list.push_back(submission_summary(*s));
    standing += s->standing;
    rejected += s->verdict == "rejected";
  }
  return {{"ranking", c.ranking},
          {"tasks", tasks},
          {"recent", list},
          {"counts", {{"submissions", all.size()}, {"standing", standing}, {"rejected", rejected}}}};
}

json standing_on(const json& board, const competition& c, const submission& s) {
  std::string kind = gpu_kind(c, s.device);
  for (const auto& t : board["tasks"]) {
    if (t["name"] != s.task) continue;
    for (const auto& b : t["boards"]) {
      if (b["gpu"] != kind) continue;
      for (const auto& e : b["entries"])
        if (e["participant"] == s.participant)
          return {{"gpu", kind}, {"rank", e["rank"]}, {"of", b["entries"].size()}, {"best_id", e["id"]},
                  {"this_is_best", e["id"] == s.id}};
    }
  }
  return nullptr;
}

}  // namespace cudal1
