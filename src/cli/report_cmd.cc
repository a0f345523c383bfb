// cudal1 report and cudal1 compare: stored runs as tables, JSON, HTML and
// KernelBench's eval_results.json.
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "base/fs.h"
#include "base/json_text.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/html.h"
#include "report/run_summary.h"
#include "store/store.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;

constexpr const char* kReportHelp = R"(usage: cudal1 report [RUN] [options]
       cudal1 report --list [--store FILE]

Shows a run of the results store (by name or number; the newest without RUN):
a table per level (tasks, correct, faster than 1x/1.5x/2x, fast_p, geometric
mean, mean, median, quartiles, max, rejected candidates by hack class).

options:
  --store FILE             the results store (default: $CUDAL1_STORE, else
                           ~/.local/share/cudal1/store.sqlite)
  --json                   the summary and every judgment as one JSON object
  --html FILE              write a self-contained HTML page (tables; charts of the
                           speedups, their distribution, the speed-of-light
                           fractions, verdicts per level, published scores)
  --kernelbench-json FILE  write KernelBench's eval_results.json layout
  --list                   list the store's runs
)";

constexpr const char* kCompareHelp = R"(usage: cudal1 compare RUN_A RUN_B [--store FILE] [--json]
       cudal1 compare RUN published [--store FILE] [--json]

Sets two runs side by side (two GPUs, two baselines, two candidate sets):
each task's best correct speedup in both and their ratio, then both runs'
per-level figures. With "published" as the second run, the run's re-judged
speedups are set beside the scores its input published (CUDA-L1's score_*).
)";

std::string cell(const std::optional<double>& v, const char* f = "%.3f") {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

struct opened {
  store st;
  run_record run;
  std::vector<judgment_record> rows;
};

result<store> open_store(const std::string& path) { return store::open(path.empty() ? store::default_path() : path); }

// Best correct speedup per task, and the best published score per task.
std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> best_per_task(
    const std::vector<judgment_record>& rows) {
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> out;
  for (const auto& r : rows) {
    auto& [best, published] = out[r.task_name];
    if (r.verdict == "correct" && r.speedup && (!best || *r.speedup > *best)) best = r.speedup;
    if (r.published_score && (!published || *r.published_score > *published)) published = r.published_score;
  }
  return out;
}

}  // namespace

int run_report(const args_t& args) {
  std::string store_path, html_path, kb_path, which;
  bool as_json = false, list = false;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s", kReportHelp);
      return 0;
    } else if (a == "--json") as_json = true;
    else if (a == "--list") list = true;
    else if (flag == "--store") ok = r.value(&store_path);
    else if (flag == "--html") ok = r.value(&html_path);
    else if (flag == "--kernelbench-json") ok = r.value(&kb_path);
    else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 report --help)");
    else if (which.empty()) which = a;
    else return usage_error("report takes one run (see cudal1 report --help)");
    if (!ok) return usage_error(r.error);
  }
  auto st = open_store(store_path);
  if (!st) return usage_error(st.message());
  if (list) {
    auto runs = st->runs();
    if (!runs) return usage_error(runs.message());
    for (const auto& run : *runs) {
      auto rows = st->judgments(run.run_id);
      std::printf("%4lld  %-28s %-11s %s  %zu judgments  %s\n", static_cast<long long>(run.run_id), run.name.c_str(),
                  run.status.c_str(), run.created_at.c_str(), rows ? rows->size() : 0, run.command.c_str());
    }
    return 0;
  }
  auto run = st->find_run(which);
  if (!run) return usage_error(run.message());
  auto rows = st->judgments(run->run_id);
  if (!rows) return usage_error(rows.message());
  if (!html_path.empty()) {
    auto page = render_html_report(report_data(*run, *rows));
    if (!page) return usage_error(page.message());
    if (auto s = write_file_atomic(html_path, *page); !s) return usage_error(s.message());
    std::fprintf(stderr, "wrote %s\n", html_path.c_str());
  }
  if (!kb_path.empty()) {
    if (auto s = write_file_atomic(kb_path, json_text(kernelbench_eval_results(*rows), 2)); !s) return usage_error(s.message());
    std::fprintf(stderr, "wrote %s\n", kb_path.c_str());
  }
  if (as_json) {
    std::printf("%s\n", json_text(report_data(*run, *rows), 2).c_str());
  } else if (html_path.empty() && kb_path.empty()) {
    std::printf("%s", run_summary_table(summarize_run(*rows), *run).c_str());
  }
  return 0;
}

int run_compare(const args_t& args) {
  std::string store_path;
  std::vector<std::string> names;
  bool as_json = false;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s", kCompareHelp);
      return 0;
    } else if (a == "--json") as_json = true;
    else if (flag == "--store") ok = r.value(&store_path);
    else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 compare --help)");
    else names.push_back(a);
    if (!ok) return usage_error(r.error);
  }
  if (names.size() != 2) return usage_error("compare needs two runs, or a run and 'published' (see cudal1 compare --help)");
  auto st = open_store(store_path);
  if (!st) return usage_error(st.message());
  auto run_a = st->find_run(names[0]);
  if (!run_a) return usage_error(run_a.message());
  auto rows_a = st->judgments(run_a->run_id);
  if (!rows_a) return usage_error(rows_a.message());
  bool published = names[1] == "published";
  std::vector<judgment_record> rows_b_store;
  run_record run_b;
  if (!published) {
    auto found = st->find_run(names[1]);
    if (!found) return usage_error(found.message());
    run_b = *found;
    auto rows = st->judgments(run_b.run_id);
    if (!rows) return usage_error(rows.message());
    rows_b_store = std::move(*rows);
  }
  auto a = best_per_task(*rows_a);
  auto b = published ? a : best_per_task(rows_b_store);
  std::set<std::string> tasks;
  for (const auto& [t, _] : a) tasks.insert(t);
  for (const auto& [t, _] : b) tasks.insert(t);
  std::string name_b = published ? "published" : run_b.name;
  json out = {{"a", run_a->name}, {"b", name_b}, {"tasks", json::array()}};
  double log_sum = 0;
  int both = 0;
  if (!as_json) std::printf("%-44s %12s %12s %8s\n", "task", run_a->name.substr(0, 12).c_str(), name_b.substr(0, 12).c_str(), "b/a");
  for (const auto& t : tasks) {
    std::optional<double> sa = a.count(t) ? a[t].first : std::nullopt;
    std::optional<double> sb = b.count(t) ? (published ? b[t].second : b[t].first) : std::nullopt;
    std::optional<double> ratio;
    if (sa && sb && *sa > 0) {
      ratio = *sb / *sa;
      log_sum += std::log(*ratio);
      ++both;
    }
    out["tasks"].push_back({{"task", t}, {"a", sa ? json(*sa) : json()}, {"b", sb ? json(*sb) : json()},
                            {"b_over_a", ratio ? json(*ratio) : json()}});
    if (!as_json)
      std::printf("%-44s %12s %12s %8s\n", t.substr(0, 44).c_str(), cell(sa).c_str(), cell(sb).c_str(), cell(ratio).c_str());
  }
  std::optional<double> geo = both ? std::optional<double>(std::exp(log_sum / both)) : std::nullopt;
  out["geomean_b_over_a"] = geo ? json(*geo) : json();
  if (as_json) {
    out["summary_a"] = run_summary_json(summarize_run(*rows_a), *run_a);
    if (!published) out["summary_b"] = run_summary_json(summarize_run(rows_b_store), run_b);
    std::printf("%s\n", json_text(out, 2).c_str());
    return 0;
  }
  std::printf("geometric mean of b/a over the %d tasks both have: %s\n", both, cell(geo).c_str());
  std::printf("%s", run_summary_table(summarize_run(*rows_a), *run_a).c_str());
  if (!published) std::printf("%s", run_summary_table(summarize_run(rows_b_store), run_b).c_str());
  return 0;
}

}  // namespace cudal1
