// cudal1 optimize, best, history: the contrastive loop and what it left in the store.
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"
#include "bench/inputs.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "optimize/loop.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;

constexpr const char* kOptimizeHelp = R"(usage: cudal1 optimize TASK|SUITE_DIR... --llm URL --model NAME [options]

Makes the tasks' kernels faster with an LLM, as CUDA-L1 does: each request
shows the model earlier kernels of the task with their measured speedups and
what the judge saw, asks why the faster ones are faster, and asks for one
faster still. Every answer is judged (compiled in parallel, timed one at a
time) and goes back into the store, the database the next round draws from.
The database starts from the reference (1.0x) and every kernel of the task
already in the store.

  TASK|SUITE_DIR...   KernelBench-format task files, or folders of them
  --llm URL           an OpenAI-compatible server: http://HOST:PORT/v1 (vLLM,
                      SGLang, llama.cpp's server, ollama, a hosted API,
                      `cudal1 llm-replay`)
  --model NAME        the model to ask (as the server names it)

options:
  --rounds R          rounds (default 3)
  --samples K         requests per task per round (default 4)
  --format F          what the model writes: native (cudal1's ABI: a .cu on
                      CUDA, a .cpp on the CPU; default) or modelnew (a
                      KernelBench ModelNew module)
  --api-key-env VAR   the environment variable holding the API key (sent as a
                      bearer token); none by default
  --concurrency N     requests in flight (default 4)
  --temperature T     sampling temperature (default 0.7)
  --max-tokens N      most tokens per answer (default 8192)
  --request-timeout S one request's limit, retries apart (default 600)
  --retries N         retries of a request on 429, 5xx and timeouts (default 4)
  --sampling S        exemplars: bucket (CUDA-L1's: score buckets drawn with
                      probability ~ exp((bucket mean - mean) / tau); default),
                      random, or island
  --tau X             the bucket draw's temperature (default 1.0)
  --bucket-width X    bucket width in speedup (default 0.1)
  --exemplars N       exemplars per prompt (default 2)
  --budget-tokens N   no request starts once N tokens are spent (0: none)
  --budget-seconds S  no request starts after S seconds (0: none)
  --exemplar-seed N   exemplar draws (default 1: the same prompts again)
  --store FILE        the store (default: $CUDAL1_STORE, else
                      ~/.local/share/cudal1/store.sqlite)
  --run NAME          the run's name (default: optimize-DATE-TIME)
  --resume            continue the run named by --run, or the newest
                      optimize run: what it holds is not asked again. The
                      run's model, format, backend, samples, sampling and
                      seeds are its own (a different value is refused);
                      --rounds may add rounds. --budget-tokens counts the
                      run's tokens over every session, --budget-seconds this
                      session's time
  --json              print the summary as JSON on stdout
  -q, --quiet         no line per answer (the live status line stays)

Ctrl-C stops sending requests, judges what has arrived, stores it and ends;
a second Ctrl-C abandons the requests in flight and ends after the judgment
in flight (answers already received are kept and judged on --resume); a
third ends at once. `cudal1 best TASK` and `cudal1 history TASK`
read what the run left.
)";

constexpr const char* kOptimizeExit = R"(
Exit status: 0 when every request of every round was answered and judged;
1 when the LLM server refused the run (a bad URL, a refused key, a model it
does not list), when requests failed (--resume asks them again) or when a
budget ended it early; 130 when interrupted; 2 for unusable input.
)";

std::atomic<int> g_stop{0};

void on_signal(int sig) {
  static const char kFirst[] =
      "\ncudal1 optimize: stopping: no new requests; judging what has arrived (Ctrl-C again: abandon the requests in "
      "flight)\n";
  static const char kSecond[] =
      "\ncudal1 optimize: abandoning the requests in flight; ending after the judgment in flight (Ctrl-C again: end at "
      "once)\n";
  int before = g_stop.load();
  if (before == 0) (void)!write(2, kFirst, sizeof kFirst - 1);
  if (before == 1) (void)!write(2, kSecond, sizeof kSecond - 1);
  if (g_stop.fetch_add(1) >= 2) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

std::string now_stamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

// The status line (rewritten in place on a terminal, every 10 s otherwise)
// and the events, one per line.
class live_display : public optimize_progress {
 public:
  explicit live_display(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}
  ~live_display() override { clear(); }
  void update(const optimize_state& s) override {
    std::lock_guard<std::mutex> lock(m_);
    double now = s.elapsed_s;
    if (!tty_ && now - last_ < 10) return;
    last_ = now;
    std::string line = status_line(s);
    if (tty_) {
      // One terminal row, or \r cannot take it back.
      winsize ws{};
      size_t cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
      if (line.size() > cols) line = line.substr(0, cols);
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      shown_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
  void event(const std::string& text) override {
    if (quiet_) return;
    std::lock_guard<std::mutex> lock(m_);
    clear_locked();
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    clear_locked();
  }

  static std::string status_line(const optimize_state& s) {
    char head[160];
    std::snprintf(head, sizeof head, "round %d/%d  requests %d/%d (%d in flight)  judging %d  tokens %lld  %.0fs",
                  s.round, s.rounds, s.requests_done, s.requests_total, s.in_flight, s.judging,
                  static_cast<long long>(s.prompt_tokens + s.completion_tokens), s.elapsed_s);
    std::string out = head;
    std::string tallies;
    for (const auto& [v, n] : s.verdicts) tallies += (tallies.empty() ? "" : " ") + v + " " + std::to_string(n);
    if (!tallies.empty()) out += "  | " + tallies;
    std::string best;
    int shown = 0;
    for (const auto& [task, x] : s.best) {
      if (shown++ == 3) {
        best += " ...";
        break;
      }
      char b[96];
      std::snprintf(b, sizeof b, "%s%s %.2fx", best.empty() ? "" : ", ", task.c_str(), x);
      best += b;
    }
    if (!best.empty()) out += "  | best " + best;
    return out;
  }

 private:
  void clear_locked() {
    if (tty_ && shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }
  bool quiet_, tty_;
  bool shown_ = false;
  double last_ = -1e9;
  std::mutex m_;
};

// The tasks of the arguments: task files, and the tasks of suite folders.
result<std::vector<optimize_task>> collect_tasks(const std::vector<std::string>& inputs, const std::string& backend) {
  auto items = collect_suite_items(inputs, "", backend);
  if (!items) return items.err();
  std::vector<optimize_task> out;
  std::set<std::string> seen;
  for (const auto& it : *items)
    if (seen.insert(it.task_path).second) out.push_back({it.task_path, it.task_name});
  return out;
}

}  // namespace

int run_optimize(const args_t& args) {
  optimize_options opt;
  std::string store_path, key_env, sampling = "bucket";
  bool resume = false, as_json = false, quiet = false;
  double seed = 1, budget_tokens = 0;
  std::vector<std::string> positional;
  std::set<std::string> given;  // the options on the command line
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    if (!flag.empty() && flag[0] == '-') given.insert(flag);
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s%s%s", kOptimizeHelp, kJudgeOptionsHelp, kOptimizeExit);
      return 0;
    } else if (a == "-q" || a == "--quiet") quiet = true;
    else if (a == "--json") as_json = true;
    else if (a == "--resume") resume = true;
    else if (flag == "--llm") ok = r.value(&opt.llm.base_url);
    else if (flag == "--model") ok = r.value(&opt.model);
    else if (flag == "--rounds") ok = r.integer(&opt.rounds, 1);
    else if (flag == "--samples") ok = r.integer(&opt.samples, 1);
    else if (flag == "--format") ok = r.value(&opt.format);
    else if (flag == "--api-key-env") ok = r.value(&key_env);
    else if (flag == "--concurrency") ok = r.integer(&opt.concurrency, 1);
    else if (flag == "--temperature") ok = r.number(&opt.temperature, 0);
    else if (flag == "--max-tokens") ok = r.integer(&opt.max_tokens, 1);
    else if (flag == "--request-timeout") ok = r.number(&opt.llm.timeout_s, 0.001);
    else if (flag == "--retries") ok = r.integer(&opt.llm.max_retries, 0);
    else if (flag == "--sampling") ok = r.value(&sampling);
    else if (flag == "--tau") ok = r.number(&opt.sampling.tau, 1e-6);
    else if (flag == "--bucket-width") ok = r.number(&opt.sampling.bucket_width, 1e-6);
    else if (flag == "--exemplars") ok = r.integer(&opt.sampling.exemplars, 0);
    else if (flag == "--budget-tokens") ok = r.number(&budget_tokens, 0);
    else if (flag == "--budget-seconds") ok = r.number(&opt.budget_seconds, 0);
    else if (flag == "--exemplar-seed") ok = r.number(&seed, 0);
    else if (flag == "--store") ok = r.value(&store_path);
    else if (flag == "--run") ok = r.value(&opt.run_name);
    else if (read_judge_option(r, opt.judge, &ok)) {
    } else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 optimize --help)");
    else positional.push_back(a);
    if (!ok) return usage_error(r.error);
  }
  if (positional.empty()) return usage_error("optimize needs tasks or suite folders (see cudal1 optimize --help)");
  if (opt.llm.base_url.empty()) return usage_error("optimize needs --llm URL (an OpenAI-compatible server)");
  if (opt.model.empty()) return usage_error("optimize needs --model NAME");
  if (opt.format != "native" && opt.format != "modelnew")
    return usage_error("--format must be native or modelnew, not '" + opt.format + "'");
  auto kind = parse_sampling(sampling);
  if (!kind) return usage_error("--sampling must be bucket, random or island, not '" + sampling + "'");
  opt.sampling.kind = *kind;
  opt.budget_tokens = static_cast<int64_t>(budget_tokens);
  opt.seed = static_cast<uint64_t>(seed);
  if (!key_env.empty()) {
    const char* key = std::getenv(key_env.c_str());
    if (!key || !*key) return usage_error("--api-key-env " + key_env + ": that variable is not set");
    opt.llm.api_key = key;
  }
  if (opt.judge.backend == "auto") opt.judge.backend = auto_backend();
  if (opt.judge.backend != "cpu" && opt.judge.backend != "cuda")
    return usage_error("--backend must be auto, cpu or cuda, not '" + opt.judge.backend + "'");
  auto tasks = collect_tasks(positional, opt.judge.backend);
  if (!tasks) return usage_error(tasks.message());
  auto data = data_dir();
  if (!data) return usage_error(data.message());
  opt.templates_dir = *data + "/prompts";
  if (store_path.empty()) store_path = store::default_path();
  auto st = store::open(store_path);
  if (!st) return usage_error(st.message());

  if (resume && opt.run_name.empty()) {
    auto runs = st->runs();
    if (!runs) return usage_error(runs.message());
    for (auto it = runs->rbegin(); it != runs->rend(); ++it)
      if (it->settings.value("kind", "") == "optimize") {
        opt.run_name = it->name;
        break;
      }
    if (opt.run_name.empty()) return usage_error("--resume: the store holds no optimize run");
  }
  if (opt.run_name.empty()) opt.run_name = "optimize-" + now_stamp();
  auto existing = st->find_run(opt.run_name);
  if (existing && !resume)
    return usage_error("the store already has a run '" + opt.run_name + "': add --resume to continue it, or name another");
  if (!existing && resume) return usage_error("--resume: no run '" + opt.run_name + "' in " + store_path);
  if (existing && existing->settings.value("kind", "") != "optimize")
    return usage_error("run '" + opt.run_name + "' is not an optimize run");
  if (existing) {
    // A resumed run keeps its own settings: what was asked stays comparable.
    const json& set = existing->settings;
    std::string conflict;
    auto keep_text = [&](const char* flag, const char* key, std::string& value) {
      if (!set.contains(key) || !set[key].is_string()) return;
      if (given.count(flag) && value != set[key].get<std::string>()) conflict += std::string(" ") + flag + " " + set[key].get<std::string>();
      value = set[key].get<std::string>();
    };
    auto keep_number = [&](const char* flag, const char* key, auto& value) {
      if (!set.contains(key) || !set[key].is_number()) return;
      using T = std::decay_t<decltype(value)>;
      T stored = set[key].get<T>();
      if (given.count(flag) && value != stored) conflict += std::string(" ") + flag + " " + json_text(set[key]);
      value = stored;
    };
    keep_text("--model", "model", opt.model);
    keep_text("--format", "format", opt.format);
    keep_text("--backend", "backend", opt.judge.backend);
    keep_text("--precision", "precision", opt.judge.precision);
    keep_text("--baseline", "baseline", opt.judge.baseline);
    keep_text("--profile", "profile", opt.judge.profile);
    std::string sampling_name = to_string(opt.sampling.kind);
    keep_text("--sampling", "sampling", sampling_name);
    if (auto k = parse_sampling(sampling_name)) opt.sampling.kind = *k;
    keep_number("--tau", "tau", opt.sampling.tau);
    keep_number("--bucket-width", "bucket_width", opt.sampling.bucket_width);
    keep_number("--exemplars", "exemplars", opt.sampling.exemplars);
    keep_number("--samples", "samples", opt.samples);
    keep_number("--exemplar-seed", "seed", opt.seed);
    if (!given.count("--rounds") && set.contains("rounds") && set["rounds"].is_number()) opt.rounds = set["rounds"].get<int>();
    if (!conflict.empty())
      return usage_error("run '" + opt.run_name + "' was made with" + conflict + ": a resumed run keeps its settings");
  }
  for (const auto& a : args) opt.command_line += (opt.command_line.empty() ? "cudal1 optimize " : " ") + a;
  std::string parent = std::filesystem::path(store_path).parent_path().string();
  opt.work_dir = (parent.empty() ? std::string(".") : parent) + "/optimize/" + opt.run_name;

  std::fprintf(stderr, "cudal1 optimize: %zu task(s), %d round(s) of %d request(s) each, model %s at %s; run '%s' in %s\n",
               tasks->size(), opt.rounds, opt.samples, opt.model.c_str(), opt.llm.base_url.c_str(), opt.run_name.c_str(),
               store_path.c_str());
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  live_display display(quiet);
  auto summary = cudal1::run_optimize(*tasks, opt, *st, display, g_stop);
  display.clear();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (!summary) {
    std::fprintf(stderr, "cudal1: error: %s\n", summary.message().c_str());
    return 2;
  }
  const optimize_state& s = summary->state;
  double outside = s.elapsed_s > 0 ? 1 - s.judging_s / s.elapsed_s : 0;
  if (as_json) {
    json out = {{"run", summary->run_name}, {"run_id", summary->run_id}, {"rounds", s.round},
                {"requests", s.requests_done}, {"verdicts", s.verdicts}, {"best", s.best},
                {"prompt_tokens", s.prompt_tokens}, {"completion_tokens", s.completion_tokens},
                {"seconds", s.elapsed_s}, {"judging_seconds", s.judging_s}, {"outside_judging_share", outside},
                {"interrupted", summary->interrupted}, {"budget_spent", summary->budget_spent},
                {"stopped_by", summary->stopped_by.empty() ? json() : json(summary->stopped_by)}};
    std::printf("%s\n", json_text(out, 1).c_str());
  } else {
    std::printf("%s\n", live_display::status_line(s).c_str());
    std::printf("judging took %.1f of %.1f s (%.1f%% of the time outside judging)\n", s.judging_s, s.elapsed_s,
                100 * outside);
    for (const auto& [task, x] : s.best) std::printf("  best %-40s %.3fx\n", task.c_str(), x);
  }
  if (!summary->stopped_by.empty()) {
    std::fprintf(stderr, "cudal1 optimize: stopped: %s\n", summary->stopped_by.c_str());
    return 1;
  }
  if (summary->failed_requests > 0 && !summary->interrupted) {
    std::fprintf(stderr, "cudal1 optimize: %d request(s) failed; add --resume --run %s to ask them again\n",
                 summary->failed_requests, summary->run_name.c_str());
    return 1;
  }
  if (summary->interrupted) {
    std::fprintf(stderr, "interrupted: add --resume --run %s to continue\n", summary->run_name.c_str());
    return 130;
  }
  if (summary->budget_spent) {
    std::fprintf(stderr, "cudal1 optimize: the budget is spent before the run's end; --resume --run %s continues it\n",
                 summary->run_name.c_str());
    return 1;
  }
  return 0;
}

namespace {

constexpr const char* kBestHelp = R"(usage: cudal1 best TASK [--store FILE] [--json]

Prints the best standing kernel of a task in the store (the fastest correct
judgment over every run) with its judgment. TASK: a task file, a name as the
store has it ("level1/softmax", or "softmax" when only one suite has it), or
the start of a task hash. --json prints an object with task, verdict,
speedup, code, judgment and more. Exit status 1 when the task has no correct
kernel yet, 2 for unusable input.
)";

constexpr const char* kHistoryHelp = R"(usage: cudal1 history TASK [--store FILE] [--json]

Shows a task's optimizer rounds: per run and round, the requests, what came
of them (correct, incorrect, rejected, no code, failed requests), the best
speedup of the round and the best so far, and the tokens spent. TASK as for
`cudal1 best`.
)";

// TASK as a file (hashed), a stored name, or a hash prefix.
result<std::pair<std::string, std::string>> resolve_task(store& st, const std::string& task) {
  if (std::filesystem::is_regular_file(task)) {
    auto src = read_file(task);
    if (!src) return src.err();
    std::string hash = sha256_hex(*src);
    auto src_in = st.task_source(hash);
    if (!src_in) return make_error("the store has no task with the source of " + task);
    auto named = st.find_tasks(hash);
    return std::make_pair(hash, named && !named->empty() ? named->front().second : task);
  }
  auto found = st.find_tasks(task);
  if (!found) return found.err();
  if (found->empty()) return make_error("no task '" + task + "' in the store (give a task file, a name or a hash)");
  // An exact name wins over the looser matches.
  std::vector<std::pair<std::string, std::string>> exact;
  for (const auto& f : *found)
    if (f.second == task) exact.push_back(f);
  if (!exact.empty()) *found = exact;
  std::set<std::string> names;
  for (const auto& f : *found) names.insert(f.second);
  if (names.size() > 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return make_error("'" + task + "' names several tasks: " + list);
  }
  return found->front();  // the newest source of that name
}

struct store_args {
  std::string task, store_path;
  bool json = false;
};

int parse_store_args(const args_t& args, const char* help, const char* command, store_args* out) {
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s", help);
      return 0;
    } else if (a == "--json") out->json = true;
    else if (flag == "--store") ok = r.value(&out->store_path);
    else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 " + command + " --help)");
    else if (out->task.empty()) out->task = a;
    else return usage_error(std::string(command) + " takes one task");
    if (!ok) return usage_error(r.error);
  }
  if (out->task.empty()) return usage_error(std::string(command) + " needs a task (see cudal1 " + command + " --help)");
  if (out->store_path.empty()) out->store_path = store::default_path();
  return -1;
}

}  // namespace

int run_best(const args_t& args) {
  store_args a;
  if (int rc = parse_store_args(args, kBestHelp, "best", &a); rc >= 0) return rc;
  auto st = store::open(a.store_path);
  if (!st) return usage_error(st.message());
  auto task = resolve_task(*st, a.task);
  if (!task) return usage_error(task.message());
  auto kernels = st->task_kernels(task->first);
  if (!kernels) return usage_error(kernels.message());
  const task_kernel* best = nullptr;
  for (const auto& k : *kernels)
    if (k.verdict == "correct" && k.speedup && (!best || *k.speedup > *best->speedup)) best = &k;
  if (!best) {
    if (a.json)
      std::printf("%s\n", json_text(json({{"task", task->second}, {"task_hash", task->first}, {"verdict", nullptr},
                                {"speedup", nullptr}, {"code", nullptr}, {"judgment", nullptr}}), 1).c_str());
    std::fprintf(stderr, "cudal1 best: %s has no correct kernel in %s yet (%zu judged)\n", task->second.c_str(),
                 a.store_path.c_str(), kernels->size());
    return 1;
  }
  if (a.json) {
    json out = {{"task", task->second}, {"task_hash", task->first}, {"verdict", best->verdict},
                {"speedup", *best->speedup}, {"format", best->format}, {"candidate_hash", best->candidate_hash},
                {"device", best->device}, {"baseline", best->baseline}, {"run_id", best->run_id},
                {"judgment_id", best->judgment_id}, {"code", best->source}, {"judgment", best->judgment}};
    std::printf("%s\n", json_text(out, 1).c_str());
    return 0;
  }
  const json& j = best->judgment;
  std::printf("%s: %s %.3fx (%s, baseline %s; run %lld, judgment %lld)\n", task->second.c_str(), best->verdict.c_str(),
              *best->speedup, best->device.empty() ? "?" : best->device.c_str(), best->baseline.c_str(),
              static_cast<long long>(best->run_id), static_cast<long long>(best->judgment_id));
  if (j.is_object() && j.contains("reference") && j["reference"].is_object() && j.contains("candidate") &&
      j["candidate"].is_object())
    std::printf("reference %.4g ms, candidate %.4g ms\n", j["reference"].value("median_ms", 0.0),
                j["candidate"].value("median_ms", 0.0));
  std::printf("candidate %s (%s):\n\n%s\n", best->candidate_hash.substr(0, 12).c_str(), best->format.c_str(),
              best->source.c_str());
  return 0;
}

int run_history(const args_t& args) {
  store_args a;
  if (int rc = parse_store_args(args, kHistoryHelp, "history", &a); rc >= 0) return rc;
  auto st = store::open(a.store_path);
  if (!st) return usage_error(st.message());
  auto task = resolve_task(*st, a.task);
  if (!task) return usage_error(task.message());
  auto attempts = st->task_attempts(task->first);
  if (!attempts) return usage_error(attempts.message());
  struct round_row {
    int64_t run_id = 0;
    int round = 0, requests = 0;
    std::map<std::string, int> outcomes;
    std::optional<double> best;
    int64_t tokens = 0;
  };
  std::vector<round_row> rows;
  for (const auto& at : *attempts) {
    if (rows.empty() || rows.back().run_id != at.run_id || rows.back().round != at.round) {
      rows.push_back({});
      rows.back().run_id = at.run_id;
      rows.back().round = at.round;
    }
    round_row& row = rows.back();
    ++row.requests;
    ++row.outcomes[at.status == "judged" ? at.verdict : at.status];
    row.tokens += at.prompt_tokens + at.completion_tokens;
    if (at.verdict == "correct" && at.speedup && (!row.best || *at.speedup > *row.best)) row.best = at.speedup;
  }
  std::map<int64_t, std::string> run_names;
  if (auto runs = st->runs(); runs)
    for (const auto& rr : *runs) run_names[rr.run_id] = rr.name;
  json out = json::array();
  double so_far = 0;  // the best so far within each run; 0: none yet
  int64_t last_run = -1;
  for (const auto& row : rows) {
    if (row.run_id != last_run) so_far = 0;
    last_run = row.run_id;
    if (row.best && *row.best > so_far) so_far = *row.best;
    out.push_back({{"run", run_names[row.run_id]}, {"run_id", row.run_id}, {"round", row.round},
                   {"requests", row.requests}, {"outcomes", row.outcomes},
                   {"best", row.best ? json(*row.best) : json()}, {"best_so_far", so_far > 0 ? json(so_far) : json()},
                   {"tokens", row.tokens}});
  }
  if (a.json) {
    std::printf("%s\n", json_text(json({{"task", task->second}, {"task_hash", task->first}, {"rounds", out}}), 1).c_str());
    return 0;
  }
  if (rows.empty()) {
    std::printf("%s: no optimizer rounds in %s\n", task->second.c_str(), a.store_path.c_str());
    return 0;
  }
  std::printf("%s\n%-28s %5s %8s %9s %11s %8s  %s\n", task->second.c_str(), "run", "round", "requests", "best", "best so far",
              "tokens", "outcomes");
  for (const auto& o : out) {
    std::string outcomes;
    for (const auto& [k, v] : o["outcomes"].items()) outcomes += (outcomes.empty() ? "" : ", ") + k + " " + std::to_string(v.get<int>());
    char best[32] = "-", so_far_s[32] = "-";
    if (o["best"].is_number()) std::snprintf(best, sizeof best, "%.3fx", o["best"].get<double>());
    if (o["best_so_far"].is_number()) std::snprintf(so_far_s, sizeof so_far_s, "%.3fx", o["best_so_far"].get<double>());
    std::printf("%-28s %5d %8d %9s %11s %8lld  %s\n", o["run"].get<std::string>().c_str(), o["round"].get<int>(),
                o["requests"].get<int>(), best, so_far_s, static_cast<long long>(o["tokens"].get<int64_t>()),
                outcomes.c_str());
  }
  return 0;
}

}  // namespace cudal1
