#include "bench/bench.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"
#include "base/sha256.h"
#include "bench/inputs.h"
#include "bench/precompile.h"
#include "compile/compiler.h"
#include "compile/python_build.h"
#include "queue/job_queue.h"
#include "report/report.h"
#include "task/python.h"
#include "worker/probe.h"

namespace cudal1 {

using json = nlohmann::json;

std::string default_run_name(const std::vector<bench_item>& items, const bench_options& options) {
  sha256 h;
  for (const auto& it : items) h.update(it.task_path + '\0' + it.candidate_path + '\0' + std::to_string(it.sample) + '\0');
  const judge_options& j = options.judge;
  h.update(j.backend + '\0' + j.profile + '\0' + j.precision + '\0' + options.baseline);
  return "bench-" + h.hex_digest().substr(0, 12);
}

namespace {

bool native(const bench_item& it) { return it.format == "cuda" || it.format == "cpp"; }

// Compiles native candidates (and builds ModelNew extensions) ahead of their judgments, `jobs` at a time,
// on every CPU but the one the judgments run on; the judgment then finds
// its library in the content-hash cache.
class compile_ahead {
 public:
  compile_ahead(const std::vector<bench_item>& items, const std::vector<bool>& wanted, const judge_options& opt,
                const std::string& backend, int jobs, cpu_pins pinned)
      : items_(items), state_(items.size(), kDone), profile_(opt.profile) {
    bool any_python = false;
    for (size_t i = 0; i < items.size(); ++i) {
      bool ours = native(items[i]) ? items[i].format == (backend == "cuda" ? "cuda" : "cpp") : items[i].format == "modelnew";
      if (wanted[i] && ours) state_[i] = kPending;
      any_python = any_python || (wanted[i] && items[i].format == "modelnew");
    }
    builder_ = std::make_unique<precompiler>(opt, backend, any_python);
    if (!builder_->usable()) return;
    if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int t = 0; t < jobs; ++t) threads_.emplace_back([this, pinned] { work(pinned); });
  }
  ~compile_ahead() {
    {
      std::lock_guard<std::mutex> lock(m_);
      quit_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  /// Waits while item i compiles; an item not started yet is left to its judgment.
  void claim(size_t i) {
    std::unique_lock<std::mutex> lock(m_);
    if (state_[i] == kPending) state_[i] = kDone;
    cv_.wait(lock, [&] { return state_[i] == kDone; });
  }

 private:
  enum state_t { kPending, kCompiling, kDone };
  void work(cpu_pins pinned) {
    if (pinned.candidate >= 0 || pinned.reference >= 0) {
      // Compilers started from this thread inherit its CPUs: not the judged workers'.
      cpu_set_t set;
      sched_getaffinity(0, sizeof set, &set);
      for (int c : {pinned.candidate, pinned.reference})
        if (c >= 0 && CPU_COUNT(&set) > 1) CPU_CLR(c, &set);
      pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    for (;;) {
      size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(m_);
        while (next_ < state_.size() && state_[next_] != kPending) ++next_;
        if (quit_ || next_ >= state_.size()) return;
        i = next_++;
        state_[i] = kCompiling;
      }
      builder_->compile(items_[i].candidate_path, items_[i].format, items_[i].task_path, profile_);
      {
        std::lock_guard<std::mutex> lock(m_);
        state_[i] = kDone;
      }
      cv_.notify_all();
    }
  }

  const std::vector<bench_item>& items_;
  std::unique_ptr<precompiler> builder_;
  std::vector<state_t> state_;
  std::string profile_;  // the judgments' --profile, which a ModelNew's build key holds
  size_t next_ = 0;
  bool quit_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
};

// One item's outcome as stored: the judgment's JSON, a reference timed alone,
// or an error of the setup ("error": the message).
json judge_item(const bench_item& it, const judge_options& opt) {
  no_progress quiet;
  if (it.candidate_path.empty()) {
    auto t = time_reference(it.task_path, opt, quiet);
    if (!t) return {{"verdict", "error"}, {"message", t.message()}};
    return reference_timing_json(*t);
  }
  auto j = judge_candidate(it.task_path, it.candidate_path, opt, quiet);
  if (!j) return {{"verdict", "error"}, {"message", j.message()}};
  return judgment_to_json(*j);
}

// Stores one item's outcome and counts it. A setup error is stored for the
// report, and tried again when the run resumes.
status store_outcome(size_t i, const json& outcome, const std::vector<bench_item>& items,
                     const std::vector<judgment_key>& keys, const bench_options& options, store& st, bench_tally& tally,
                     bench_progress& progress) {
  std::string v = outcome.value("verdict", "error");
  if (v == "error") ++tally.errors;
  if (auto s = st.record_judgment(keys[i], outcome, options.baseline, items[i].published_score, items[i].published); !s)
    return s;
  ++tally.done;
  ++tally.verdicts[v];
  progress.item_done(items[i], i, outcome, tally);
  return ok_status();
}

// With Redis: every wanted item goes on the queue, keyed by what decides its
// result (the task, the code, the settings), and each result is stored as it
// comes; a resumed run finds the results the workers wrote meanwhile.
status run_remote(const std::vector<bench_item>& items, const std::vector<bool>& wanted,
                  const std::vector<judgment_key>& keys, const bench_options& options, store& st, bench_tally& tally,
                  bench_progress& progress, const std::atomic<bool>& stop) {
  auto q = job_queue::open(options.redis_url, options.redis_secret, options.redis_prefix);
  if (!q) return q.err();
  const judge_options& o = options.judge;
  json job_options = {{"profile", o.profile}, {"precision", o.precision}, {"baseline", o.baseline}};
  std::map<size_t, std::string> waiting;  // item -> job key
  for (size_t i = 0; i < items.size(); ++i) {
    if (!wanted[i]) {
      ++tally.skipped;
      continue;
    }
    const bench_item& it = items[i];
    auto task_source = read_file(it.task_path);
    if (!task_source) return task_source.err();
    std::string code;
    if (!it.candidate_path.empty()) {
      auto c = read_file(it.candidate_path);
      if (!c) return c.err();
      code = *c;
    }
    std::string key = sha256_hex(*task_source + '\0' + it.format + '\0' + code + '\0' + o.backend + '\0' +
                                 json_text(job_options) + '\0' + std::to_string(it.sample));
    json job = {{"task_name", it.task_name}, {"task_source", *task_source}, {"code", code}, {"format", it.format},
                {"options", job_options}, {"kind", code.empty() ? "reference" : "judge"}};
    if (auto done = q->result_of(key); !done || !*done)
      if (auto id = q->enqueue(key, job); !id) return id.err();
    waiting[i] = key;
  }
  while (!waiting.empty() && !stop.load()) {
    bool any = false;
    for (auto it = waiting.begin(); it != waiting.end() && !stop.load();) {
      auto r = q->result_of(it->second);
      if (!r) return r.err();
      if (!*r) {
        ++it;
        continue;
      }
      const json& got = **r;
      json outcome = got.value("state", "") == "done" && got.contains("judgment")
                         ? got["judgment"]
                         : json{{"verdict", "error"}, {"message", "worker " + got.value("worker", "?") + ": " + got.value("error", "?")}};
      if (auto s = store_outcome(it->first, outcome, items, keys, options, st, tally, progress); !s) return s;
      it = waiting.erase(it);
      any = true;
    }
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!waiting.empty()) tally.interrupted = true;
  return ok_status();
}

}  // namespace

result<bench_tally> run_bench(const std::vector<bench_item>& items, const bench_options& options, store& st,
                              bench_progress& progress, const std::atomic<bool>& stop) {
  json settings = {{"backend", options.judge.backend}, {"precision", options.judge.precision},
                   {"baseline", options.baseline}, {"profile", options.judge.profile}};
  auto run = st.open_run(options.run_name, options.command_line, settings);
  if (!run) return run.err();
  (void)st.set_run_status(run->run_id, "running");

  // Every item's key first: what is already judged is not compiled again.
  bench_tally tally;
  tally.total = static_cast<int>(items.size());
  std::vector<judgment_key> keys(items.size());
  std::vector<bool> wanted(items.size(), true);
  for (size_t i = 0; i < items.size(); ++i) {
    const bench_item& it = items[i];
    auto task_source = read_file(it.task_path);
    if (!task_source) return task_source.err();
    auto task_hash = st.put_task(it.task_name, *task_source);
    if (!task_hash) return task_hash.err();
    std::string cand_hash;
    if (!it.candidate_path.empty()) {
      auto source = read_file(it.candidate_path);
      if (!source) return source.err();
      auto h = st.put_candidate(*task_hash, it.format, *source, it.origin);
      if (!h) return h.err();
      cand_hash = *h;
    }
    keys[i] = {run->run_id, *task_hash, cand_hash, it.sample};
    auto have = st.has_judgment(keys[i]);
    if (!have) return have.err();
    wanted[i] = !*have;
  }

  if (!options.redis_url.empty()) {
    auto started = std::chrono::steady_clock::now();
    if (auto s = run_remote(items, wanted, keys, options, st, tally, progress, stop); !s) return s.err();
    tally.judged_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (stop.load()) tally.interrupted = true;
    (void)st.set_run_status(run->run_id, tally.interrupted ? "interrupted" : "done");
    return tally;
  }
  auto pinned = choose_cpus(options.judge.cpu, options.judge.backend);
  compile_ahead ahead(items, wanted, options.judge, options.judge.backend, options.jobs, pinned ? *pinned : cpu_pins{});
  for (size_t i = 0; i < items.size(); ++i) {
    if (!wanted[i]) {
      ++tally.skipped;
      continue;
    }
    if (stop.load()) {
      tally.interrupted = true;
      break;
    }
    ahead.claim(i);
    auto started = std::chrono::steady_clock::now();
    json outcome = judge_item(items[i], options.judge);
    tally.judged_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (auto s = store_outcome(i, outcome, items, keys, options, st, tally, progress); !s) return s.err();
  }
  if (stop.load()) tally.interrupted = true;
  (void)st.set_run_status(run->run_id, tally.interrupted ? "interrupted" : "done");
  return tally;
}

}  // namespace cudal1
