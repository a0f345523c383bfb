#include "report/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "timing/stats.h"

namespace cudal1 {

using json = nlohmann::json;

namespace {

std::string level_of(const std::string& task_name) {
  size_t slash = task_name.find('/');
  return slash == std::string::npos ? "(none)" : task_name.substr(0, slash);
}

struct task_state {
  bool has_candidate = false;
  std::optional<double> best;  // best correct speedup
};

level_summary summarize(const std::string& name, const std::map<std::string, task_state>& tasks,
                        const std::vector<const judgment_record*>& rows) {
  level_summary s;
  s.level = name;
  s.tasks = static_cast<int>(tasks.size());
  std::vector<double> best;
  for (const auto& [task, st] : tasks) {
    s.with_candidate += st.has_candidate;
    if (!st.best) continue;
    ++s.correct;
    best.push_back(*st.best);
    s.faster_1 += *st.best > 1;
    s.faster_1_5 += *st.best > 1.5;
    s.faster_2 += *st.best > 2;
  }
  for (const auto* r : rows) {
    if (r->verdict == "error") ++s.errors;
    if (r->candidate_hash.empty()) continue;
    ++s.verdicts[r->verdict];
    if (r->verdict == "rejected")
      for (const auto& c : r->hack_classes) ++s.rejected_by_class[c];
  }
  double n = std::max(1, s.tasks);
  s.fast_p = {{"0", s.correct / n}, {"1", s.faster_1 / n}, {"1.5", s.faster_1_5 / n}, {"2", s.faster_2 / n}};
  if (!best.empty()) {
    std::sort(best.begin(), best.end());
    double logs = 0, sum = 0;
    for (double b : best) logs += std::log(b), sum += b;
    s.geomean = std::exp(logs / best.size());
    s.mean = sum / best.size();
    s.median = sorted_quantile(best, 0.5);
    s.p25 = sorted_quantile(best, 0.25);
    s.p75 = sorted_quantile(best, 0.75);
    s.max = best.back();
  }
  return s;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string cell(const std::optional<double>& v, const char* f = "%.2f") {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

}  // namespace

std::vector<level_summary> summarize_run(const std::vector<judgment_record>& rows) {
  std::map<std::string, std::map<std::string, task_state>> levels;
  std::map<std::string, std::vector<const judgment_record*>> level_rows;
  std::map<std::string, task_state> all;
  std::vector<const judgment_record*> all_rows;
  for (const auto& r : rows) {
    std::string level = level_of(r.task_name);
    for (auto* tasks : {&levels[level], &all}) {
      task_state& t = (*tasks)[r.task_name];
      if (!r.candidate_hash.empty()) t.has_candidate = true;
      if (r.verdict == "correct" && r.speedup && (!t.best || *r.speedup > *t.best)) t.best = r.speedup;
    }
    level_rows[level].push_back(&r);
    all_rows.push_back(&r);
  }
  std::vector<level_summary> out;
  for (const auto& [level, tasks] : levels) out.push_back(summarize(level, tasks, level_rows[level]));
  out.push_back(summarize("all", all, all_rows));
  return out;
}

json run_summary_json(const std::vector<level_summary>& levels, const run_record& run) {
  json out = {{"run", {{"id", run.run_id}, {"name", run.name}, {"command", run.command}, {"status", run.status},
                       {"created_at", run.created_at}, {"settings", run.settings}}},
              {"levels", json::array()}};
  for (const auto& s : levels)
    out["levels"].push_back({{"level", s.level}, {"tasks", s.tasks}, {"with_candidate", s.with_candidate},
                             {"correct", s.correct}, {"faster_1", s.faster_1}, {"faster_1_5", s.faster_1_5},
                             {"faster_2", s.faster_2}, {"fast_p", s.fast_p}, {"geomean", opt(s.geomean)},
                             {"mean", opt(s.mean)}, {"median", opt(s.median)}, {"p25", opt(s.p25)}, {"p75", opt(s.p75)},
                             {"max", opt(s.max)}, {"verdicts", s.verdicts}, {"rejected_by_class", s.rejected_by_class},
                             {"errors", s.errors}});
  return out;
}

std::string run_summary_table(const std::vector<level_summary>& levels, const run_record& run) {
  std::string out = "\nrun " + std::to_string(run.run_id) + " '" + run.name + "' (" + run.status + ", " + run.created_at + ")\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %6s %8s %5s %5s %5s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n", "level", "tasks",
                "correct", ">1x", ">1.5x", ">2x", "fast_1", "geomean", "mean", "median", "p25", "p75", "max", "reject",
                "errors");
  out += line;
  for (const auto& s : levels) {
    int rejected = 0;
    for (const auto& [c, n] : s.rejected_by_class) rejected += n;
    if (s.verdicts.count("rejected")) rejected = s.verdicts.at("rejected");
    std::snprintf(line, sizeof line, "%-14s %6d %8d %5d %5d %5d %7.3f %7s %7s %7s %7s %7s %7s %7d %7d\n", s.level.c_str(),
                  s.tasks, s.correct, s.faster_1, s.faster_1_5, s.faster_2, s.fast_p.at("1"), cell(s.geomean).c_str(),
                  cell(s.mean).c_str(), cell(s.median).c_str(), cell(s.p25).c_str(), cell(s.p75).c_str(),
                  cell(s.max).c_str(), rejected, s.errors);
    out += line;
  }
  const level_summary& all = levels.back();
  if (!all.rejected_by_class.empty()) {
    out += "rejected by hack class:";
    for (const auto& [c, n] : all.rejected_by_class) out += " " + c + " " + std::to_string(n) + ";";
    out.back() = '\n';
  }
  std::string verdicts;
  for (const auto& [v, n] : all.verdicts) verdicts += (verdicts.empty() ? "" : ", ") + v + " " + std::to_string(n);
  if (!verdicts.empty()) out += "candidates judged: " + verdicts + "\n";
  out += "(a task counts once, by its best correct candidate; fast_p is over all tasks, as KernelBench counts it)\n";
  return out;
}

}  // namespace cudal1
