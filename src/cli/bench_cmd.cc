// cudal1 bench: whole suites of candidates judged into the store.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/fs.h"
#include "base/json_text.h"
#include "bench/bench.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "queue/job_queue.h"
#include "report/run_summary.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;

constexpr const char* kBenchHelp = R"(usage: cudal1 bench SUITE_DIR|TASK... [--candidates DIR] [options]
       cudal1 bench --jsonl FILE [options]

Judges many candidates into the results store, one judgment at a time on the
device while the next candidates compile in parallel, and ends with a summary
per level (`cudal1 report` shows it again, as a table, JSON or HTML).

  SUITE_DIR|TASK...   task folders (each *.py is a KernelBench-format task) or
                      task files. Each task's candidates come from --candidates;
                      without it, a task's own solution (SUITE/solutions/STEM.cu,
                      or .cpp on the CPU backend) is judged. A task without a
                      candidate gets its reference timed alone.
  --candidates DIR    candidates matched by task stem: STEM.cu, STEM.cpp, STEM.py
                      (a KernelBench ModelNew), several samples as STEM.N.ext; or
                      KernelBench's run layout, level_L_problem_P_sample_S_kernel.py,
                      matched to the task file P_*.py of the folder ending in L
  --jsonl FILE        CUDA-L1's release format instead: one JSON object per line
                      with level_id, task_id, ref_code, custom_code; score_* fields
                      are kept as the published score beside the re-judged one

options:
  --store FILE        the results store (default: $CUDAL1_STORE, else
                      ~/.local/share/cudal1/store.sqlite)
  --run NAME          the run's name in the store (default: one derived from the
                      inputs and settings, so the same command names the same run)
  --jobs N            compiles at once (default: one per CPU)
  --redis URL         put the items on this Redis queue (redis://HOST[:PORT][/DB])
                      for `cudal1 worker`s, one per GPU on any host, and store
                      their results as they come (give --backend: the workers')
  --redis-prefix P    the queue's key prefix (default cudal1)
  --redis-secret-file FILE  the secret the server and workers share (first
                      line, 16 bytes or more; else $CUDAL1_REDIS_SECRET): jobs
                      and results are signed with it
  --json FILE         also write each outcome judged now as a JSON line
  -q, --quiet         no line per item (the summary stays)

A run resumes: the same command (or --run NAME) skips what the run already
holds, so an interrupted bench (Ctrl-C, a kill) loses at most the judgment in
flight; Ctrl-C finishes that judgment and stores it first (twice: at once).
)";

constexpr const char* kBenchExit = R"(
Exit status: 0 when every item got a result; 1 when some hit a setup error
(stored as "error", tried again on resume); 130 when interrupted; 2 for
unusable input.
)";

std::atomic<bool> g_stop{false};

void on_signal(int sig) {
  if (g_stop.exchange(true)) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

std::string fmt_duration(double s) {
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

// A line per item: where the run is, what this one got, the tallies, what is left.
class line_progress : public bench_progress {
 public:
  line_progress(bool quiet, std::ofstream* json_out) : quiet_(quiet), json_out_(json_out) {}
  void item_done(const bench_item& item, size_t index, const json& outcome, const bench_tally& t) override {
    if (json_out_ && *json_out_) {
      json row = {{"task", item.task_name}, {"candidate", item.candidate_path}, {"sample", item.sample}, {"outcome", outcome}};
      if (item.published_score) row["published_score"] = *item.published_score;
      *json_out_ << json_text(row) << "\n" << std::flush;
    }
    if (quiet_) return;
    std::string v = outcome.value("verdict", "error");
    char what[160];
    if (outcome.contains("speedup") && outcome["speedup"].is_number())
      std::snprintf(what, sizeof what, "%s %.2fx", v.c_str(), outcome["speedup"].get<double>());
    else if (v == "reference" && outcome.contains("reference"))
      std::snprintf(what, sizeof what, "reference %.4g ms", outcome["reference"].value("median_ms", 0.0));
    else
      std::snprintf(what, sizeof what, "%s", v.c_str());
    std::string tallies;
    for (const auto& [name, n] : t.verdicts) tallies += (tallies.empty() ? "" : ", ") + name + " " + std::to_string(n);
    int left = t.total - t.skipped - t.done;
    std::string eta = t.done > 0 ? fmt_duration(t.judged_s / t.done * left) + " left" : "";
    std::fprintf(stderr, "[%zu/%d] %s%s%s  %s  (%s%s%s)\n", index + 1, t.total, item.task_name.c_str(),
                 item.candidate_path.empty() ? "" : "  ", std::filesystem::path(item.candidate_path).filename().c_str(), what,
                 tallies.c_str(), eta.empty() ? "" : "; ", eta.c_str());
    if (v == "error") std::fprintf(stderr, "    %s\n", outcome.value("message", std::string()).substr(0, 300).c_str());
  }

 private:
  bool quiet_;
  std::ofstream* json_out_;
};

}  // namespace

int run_bench(const args_t& args) {
  bench_options opt;
  std::string candidates, jsonl, store_path, json_path, redis_secret_file;
  bool quiet = false;
  std::vector<std::string> positional;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s%s%s", kBenchHelp, kJudgeOptionsHelp, kBenchExit);
      return 0;
    } else if (a == "-q" || a == "--quiet") quiet = true;
    else if (flag == "--candidates") ok = r.value(&candidates);
    else if (flag == "--jsonl") ok = r.value(&jsonl);
    else if (flag == "--store") ok = r.value(&store_path);
    else if (flag == "--run") ok = r.value(&opt.run_name);
    else if (flag == "--jobs") ok = r.integer(&opt.jobs, 1);
    else if (flag == "--redis") ok = r.value(&opt.redis_url);
    else if (flag == "--redis-prefix") ok = r.value(&opt.redis_prefix);
    else if (flag == "--redis-secret-file") ok = r.value(&redis_secret_file);
    else if (flag == "--json") ok = r.value(&json_path);
    else if (read_judge_option(r, opt.judge, &ok)) {
    } else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 bench --help)");
    else positional.push_back(a);
    if (!ok) return usage_error(r.error);
  }
  if (jsonl.empty() == positional.empty())
    return usage_error(jsonl.empty() ? "bench needs suite folders or tasks, or --jsonl FILE (see cudal1 bench --help)"
                                     : "--jsonl takes no suite folders or tasks");
  if (!jsonl.empty() && !candidates.empty()) return usage_error("--candidates goes with suite folders, not --jsonl");
  if (opt.judge.backend == "auto") opt.judge.backend = auto_backend();
  if (opt.judge.backend != "cpu" && opt.judge.backend != "cuda")
    return usage_error("--backend must be auto, cpu or cuda, not '" + opt.judge.backend + "'");
  if (store_path.empty()) store_path = store::default_path();
  opt.baseline = opt.judge.baseline;
  if (!opt.redis_url.empty()) {
    auto secret = read_queue_secret(redis_secret_file);
    if (!secret) return usage_error(secret.message());
    opt.redis_secret = *secret;
  }

  result<std::vector<bench_item>> items = make_error("");
  if (jsonl.empty()) {
    items = collect_suite_items(positional, candidates, opt.judge.backend);
  } else {
    std::string work = std::filesystem::path(store_path).parent_path().string();
    items = collect_jsonl_items(jsonl, (work.empty() ? "." : work) + "/jsonl-sources");
  }
  if (!items) return usage_error(items.message());
  auto st = store::open(store_path);
  if (!st) return usage_error(st.message());
  if (opt.run_name.empty()) opt.run_name = default_run_name(*items, opt);
  for (const auto& a : args) opt.command_line += (opt.command_line.empty() ? "cudal1 bench " : " ") + a;

  std::ofstream json_out;
  if (!json_path.empty()) {
    json_out.open(json_path, std::ios::app);
    if (!json_out) return usage_error("cannot write " + json_path);
  }
  std::fprintf(stderr, "cudal1 bench: %zu items, run '%s' in %s\n", items->size(), opt.run_name.c_str(), store_path.c_str());
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  line_progress progress(quiet, json_path.empty() ? nullptr : &json_out);
  auto tally = cudal1::run_bench(*items, opt, *st, progress, g_stop);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (!tally) {
    std::fprintf(stderr, "cudal1: error: %s\n", tally.message().c_str());
    return 2;
  }
  if (tally->skipped) std::fprintf(stderr, "%d items were already in the run (resumed)\n", tally->skipped);
  auto run = st->find_run(opt.run_name);
  auto rows = run ? st->judgments(run->run_id) : result<std::vector<judgment_record>>(run.err());
  if (rows) std::printf("%s", run_summary_table(summarize_run(*rows), *run).c_str());
  if (tally->interrupted) {
    std::fprintf(stderr, "interrupted: %d of %d items are in the run; the same command resumes it\n",
                 tally->skipped + tally->done, tally->total);
    return 130;
  }
  return tally->errors ? 1 : 0;
}

}  // namespace cudal1
