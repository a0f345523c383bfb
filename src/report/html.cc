#include "report/html.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "base/fs.h"
#include "base/json_text.h"

namespace cudal1 {

using json = nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string candidate_name(const judgment_record& r) {
  if (r.candidate_hash.empty()) return "";
  std::string path = r.judgment.value("candidate_path", std::string());
  return path.empty() ? r.candidate_hash.substr(0, 12) : std::filesystem::path(path).filename().string();
}

// JSON safe inside a <script> element: no "</script>" or "<!--" can appear.
std::string script_json(const json& j) {
  std::string s = json_text(j);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

void replace_once(std::string& text, const std::string& key, const std::string& value) {
  size_t at = text.find(key);
  if (at != std::string::npos) text.replace(at, key.size(), value);
}

}  // namespace

json report_data(const run_record& run, const std::vector<judgment_record>& rows) {
  json judgments = json::array();
  std::map<std::string, const judgment_record*> best;
  std::set<std::string> devices;
  for (const auto& r : rows) {
    if (!r.device.empty()) devices.insert(r.device);
    json hacks = json::array();
    for (const auto& h : r.hack_classes) hacks.push_back(h);
    std::string message = r.judgment.value("message", std::string());
    judgments.push_back({{"task", r.task_name}, {"candidate", candidate_name(r)}, {"sample", r.sample},
                         {"verdict", r.verdict}, {"speedup", opt(r.speedup)}, {"reference_ms", opt(r.reference_ms)},
                         {"candidate_ms", opt(r.candidate_ms)}, {"sol_fraction", opt(r.sol_fraction)},
                         {"published_score", opt(r.published_score)}, {"hacks", hacks},
                         {"message", message.substr(0, std::min(message.find('\n'), size_t{200}))}});
    if (r.verdict == "correct" && r.speedup) {
      auto& b = best[r.task_name];
      if (!b || *r.speedup > *b->speedup) b = &r;
    }
  }
  json best_rows = json::array();
  for (const auto& [task, r] : best)
    best_rows.push_back({{"task", task}, {"speedup", *r->speedup}, {"sol_fraction", opt(r->sol_fraction)}});
  return {{"summary", run_summary_json(summarize_run(rows), run)},
          {"best_per_task", best_rows},
          {"judgments", judgments},
          {"devices", json(std::vector<std::string>(devices.begin(), devices.end()))}};
}

result<std::string> render_html_report(const json& data) {
  auto dir = data_dir();
  if (!dir) return dir.err();
  auto page = read_file(*dir + "/web/report.html");
  if (!page) return make_error("the report template is missing (" + *dir + "/web/report.html): " + page.message());
  auto chart = read_file(*dir + "/web/chart.umd.js");
  std::string title = data["summary"]["run"].value("name", std::string("run"));
  std::string safe_title;
  for (char c : title) safe_title += (c == '<' || c == '>' || c == '&') ? '_' : c;
  replace_once(*page, "{{TITLE}}", safe_title);
  replace_once(*page, "{{TITLE}}", safe_title);
  replace_once(*page, "{{CHARTJS}}", chart ? *chart : "/* chart library not installed */");
  replace_once(*page, "{{DATA}}", script_json(data));
  return *page;
}

json kernelbench_eval_results(const std::vector<judgment_record>& rows) {
  static const std::regex leading(R"(^(\d+)_)");
  json out = json::object();
  for (const auto& r : rows) {
    if (r.candidate_hash.empty()) continue;  // a reference timed alone is no sample
    std::string stem = r.task_name.substr(r.task_name.find('/') + 1);
    std::smatch m;
    std::string problem = std::regex_search(stem, m, leading) ? m[1].str() : r.task_name;
    bool compiled = r.verdict != "compile_error" && r.verdict != "error";
    bool correct = r.verdict == "correct";
    json stats = nullptr;
    const json& cand = r.judgment.contains("candidate") ? r.judgment["candidate"] : json();
    if (cand.is_object())
      stats = {{"mean", cand.value("mean_ms", 0.0)}, {"std", cand.value("stdev_ms", 0.0)}, {"min", cand.value("min_ms", 0.0)},
               {"max", cand.value("max_ms", 0.0)}, {"num_trials", cand.value("samples", 0)}, {"hardware", r.device}};
    json meta = {{"verdict", r.verdict}, {"hardware", r.device}, {"cudal1_speedup", opt(r.speedup)},
                 {"hacks", r.hack_classes}};
    if (!correct) meta["message"] = r.judgment.value("message", std::string()).substr(0, 500);
    out[problem].push_back({{"sample_id", r.sample}, {"compiled", compiled}, {"correctness", correct}, {"metadata", meta},
                            {"runtime", correct && r.candidate_ms ? json(*r.candidate_ms) : json(-1.0)},
                            {"runtime_stats", correct ? stats : json::object()}});
  }
  return out;
}

}  // namespace cudal1
