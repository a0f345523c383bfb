#include "serve/service.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/sha256.h"
#include "bench/precompile.h"
#include "queue/job_queue.h"
#include "report/report.h"
#include "serve/requests.h"
#include "store/store.h"

namespace cudal1 {

using nlohmann::json;
using clock_type = std::chrono::steady_clock;

struct judge_service::job {
  std::string id, key, code_path;
  judge_request req;
  std::string state = "queued", error, verdict;
  std::shared_ptr<const json> judgment;  // shared by the jobs answered from it
  std::optional<double> speedup;
  double reward = 0;
  bool cached = false;
  int64_t serial = 0;
  clock_type::time_point submitted = clock_type::now(), ended;
};

struct judge_service::remote {
  std::optional<job_queue> submit_queue;   // used under mutex_
  std::optional<job_queue> collect_queue;  // the collector thread's
  std::vector<std::shared_ptr<job>> outstanding;  // under mutex_
};

struct judge_service::store_state {
  std::optional<store> db;
  int64_t run_id = 0;
};

namespace {

std::string extension_of(const std::string& format) {
  return format == "cuda" ? ".cu" : format == "cpp" ? ".cpp" : ".py";
}

// What makes two requests the same judgment: the task, the code and the
// options (the reward is computed per request from the same judgment).
std::string request_key(const judge_request& r) {
  sha256 h;
  for (const std::string& part : {r.task_source, r.format, r.code, json_text(r.options)}) h.update(part + '\0');
  return h.hex_digest();
}

std::string utc_stamp() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return buf;
}

}  // namespace

json job_view::to_json() const {
  json j = {{"id", id}, {"state", state}, {"task", task}, {"format", format}, {"seconds", seconds}};
  if (state == "queued") j["queue_position"] = queue_position;
  if (state == "failed") j["error"] = error;
  if (state == "done") {
    j["verdict"] = verdict;
    j["speedup"] = speedup ? json(*speedup) : json();
    j["reward"] = reward;
    j["cached"] = cached;
    j["judgment"] = judgment;
  }
  return j;
}

result<std::unique_ptr<judge_service>> judge_service::start(const service_options& options) {
  std::unique_ptr<judge_service> s(new judge_service());
  s->opt_ = options;
  s->store_ = std::make_unique<store_state>();
  if (!options.store_path.empty()) {
    auto db = store::open(options.store_path);
    if (!db) return db.err();
    auto run = db->open_run("serve-" + utc_stamp(), "cudal1 serve",
                            {{"backend", options.backend}, {"precision", options.judge.precision},
                             {"baseline", options.judge.baseline}});
    if (!run) return run.err();
    s->store_->run_id = run->run_id;
    s->store_->db.emplace(std::move(*db));
  }
  auto scratch = make_temp_dir("cudal1-serve");
  if (!scratch) return scratch.err();
  s->scratch_ = *scratch;
  s->counters_.latency_buckets_s = {0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600};
  s->counters_.latency_counts.assign(s->counters_.latency_buckets_s.size(), 0);
  if (!options.redis_url.empty()) {
    s->remote_ = std::make_unique<remote>();
    auto a = job_queue::open(options.redis_url, options.redis_secret, options.redis_prefix);
    if (!a) return a.err();
    auto b = job_queue::open(options.redis_url, options.redis_secret, options.redis_prefix);
    if (!b) return b.err();
    s->remote_->submit_queue.emplace(std::move(*a));
    s->remote_->collect_queue.emplace(std::move(*b));
    s->threads_.emplace_back([p = s.get()] { p->collect_loop(); });
    return s;
  }
  // One device probe for all the compile threads.
  s->builder_ = std::make_unique<precompiler>(options.judge, options.backend, true);
  int compilers = options.compile_threads > 0 ? options.compile_threads : std::max(1u, std::thread::hardware_concurrency());
  for (int i = 0; i < compilers; ++i) s->threads_.emplace_back([p = s.get()] { p->compile_loop(); });
  s->threads_.emplace_back([p = s.get()] { p->judge_loop(); });
  return s;
}

judge_service::~judge_service() {
  stop();
  if (!scratch_.empty()) remove_tree(scratch_);
}

void judge_service::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

result<std::vector<std::string>> judge_service::submit(std::vector<judge_request> requests, bool* queue_full) {
  std::vector<std::string> ids;
  if (queue_full) *queue_full = false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return make_error("the server is stopping");
  int64_t active = counters_.queued + counters_.compiling + counters_.running;
  // Requests answered from an earlier judgment take no place in the queue.
  int64_t need = 0;
  std::vector<std::string> keys;
  for (const auto& r : requests) {
    keys.push_back(request_key(r));
    auto it = done_by_key_.find(keys.back());
    if (r.fresh || it == done_by_key_.end() || !jobs_.count(it->second)) ++need;
  }
  if (active + need > opt_.queue_limit) {
    counters_.rejected_full += static_cast<int64_t>(requests.size());
    if (queue_full) *queue_full = true;
    return make_error("the queue is full (" + std::to_string(active) + " jobs waiting or in progress, limit " +
                          std::to_string(opt_.queue_limit) + ")");
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    auto j = std::make_shared<job>();
    j->serial = ++serial_;
    j->id = "job-" + std::to_string(j->serial) + "-" + keys[i].substr(0, 8);
    j->key = keys[i];
    j->req = std::move(requests[i]);
    auto earlier = done_by_key_.find(j->key);
    if (!j->req.fresh && earlier != done_by_key_.end() && jobs_.count(earlier->second)) {
      const job& e = *jobs_[earlier->second];
      j->state = "done";
      j->cached = true;
      j->judgment = e.judgment;
      j->verdict = e.verdict;
      j->speedup = e.speedup;
      j->reward = reward_of(j->req.reward, *j->judgment);
      j->ended = clock_type::now();
      ++counters_.cache_hits;
      j->req.code.clear();  // a finished job keeps no code (memory: up to keep_jobs of them)
      j->req.task_source.clear();
      finished_order_.push_back(j->id);
    } else if (remote_) {
      // On the queue; a fresh request gets a key of its own, so that a
      // worker does not take the earlier result for it.
      if (j->req.fresh) j->key = sha256_hex(j->key + "\n" + j->id + "\n" + std::to_string(std::time(nullptr)));
      json payload = {{"task_name", j->req.task_name}, {"task_source", j->req.task_source}, {"code", j->req.code},
                      {"format", j->req.format}, {"options", j->req.options}};
      if (auto id = remote_->submit_queue->enqueue(j->key, payload); !id) return id.err();
      remote_->outstanding.push_back(j);
      ++counters_.queued;
    } else {
      // A file per job, removed once judged (compiles are cached by content).
      j->code_path = scratch_ + "/" + j->id + extension_of(j->req.format);
      if (auto w = write_file_atomic(j->code_path, j->req.code); !w) return w.err();
      to_compile_.push_back(j);
      ++counters_.queued;
    }
    jobs_[j->id] = j;
    ids.push_back(j->id);
  }
  trim_finished();  // answers from earlier judgments are finished jobs too
  changed_.notify_all();
  return ids;
}

// Waits for a queued job in `from` and takes it into `state`, counted out of
// the queued and into `counter`; null once the service stops.
std::shared_ptr<judge_service::job> judge_service::take(std::deque<std::shared_ptr<job>>& from, const char* state,
                                                        int64_t& counter) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || !from.empty(); });
  if (stopping_) return nullptr;
  std::shared_ptr<job> j = from.front();
  from.pop_front();
  j->state = state;
  --counters_.queued;
  ++counter;
  return j;
}

void judge_service::compile_loop() {
  for (;;) {
    std::shared_ptr<job> j = take(to_compile_, "compiling", counters_.compiling);
    if (!j) return;
    builder_->compile(j->code_path, j->req.format, j->req.task_path,  // failures are the judgment's to report
                      with_job_options(opt_.judge, j->req.options).profile);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      j->state = "queued";
      --counters_.compiling;
      ++counters_.queued;
      ready_.push_back(j);
    }
    changed_.notify_all();
  }
}

void judge_service::judge_loop() {
  no_progress quiet;
  for (;;) {
    std::shared_ptr<job> j = take(ready_, "running", counters_.running);
    if (!j) return;
    changed_.notify_all();
    auto started = clock_type::now();
    // A judgment that throws fails its own job, never the server and the
    // jobs queued behind it (an attack review, 2026-12-07: a candidate's
    // output that was not UTF-8 made the store's dump() throw here, and the
    // server aborted).
    json jj;
    std::string error;
    try {
      auto out = judge_candidate(j->req.task_path, j->code_path, with_job_options(opt_.judge, j->req.options), quiet);
      if (out) {
        jj = judgment_to_json(*out);
        jj["task_name"] = j->req.task_name;
      } else {
        error = out.err().message;
      }
    } catch (const std::exception& e) {
      error = std::string("internal error while judging: ") + e.what();
    }
    std::remove(j->code_path.c_str());
    double judged_s = std::chrono::duration<double>(clock_type::now() - started).count();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      mean_judge_s_ = 0.8 * mean_judge_s_ + 0.2 * judged_s;
      counters_.judge_seconds_sum += judged_s;
    }
    finish(j, std::move(jj), error);
  }
}

// With Redis: polls the results of the jobs on the queue (a few a second:
// a judgment takes seconds) and finishes each as its worker writes it.
void judge_service::collect_loop() {
  for (;;) {
    std::vector<std::shared_ptr<job>> waiting;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stopping_; });
      if (stopping_) return;
      waiting = remote_->outstanding;
    }
    for (const auto& j : waiting) {
      auto r = remote_->collect_queue->result_of(j->key);
      if (!r || !*r) continue;  // Redis away, or not judged yet
      const json& got = **r;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto& list = remote_->outstanding;
        list.erase(std::remove(list.begin(), list.end(), j), list.end());
        --counters_.queued;
        ++counters_.running;  // finish() counts it out
      }
      if (got.value("state", "") == "done" && got.contains("judgment"))
        finish(j, got["judgment"], "");
      else
        finish(j, nullptr, "the worker " + got.value("worker", "?") + " could not judge it: " + got.value("error", "?"));
    }
  }
}

void judge_service::finish(const std::shared_ptr<job>& j, json judgment, const std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j->ended = clock_type::now();
    --counters_.running;
    if (!error.empty()) {
      j->state = "failed";
      j->error = error;
      ++counters_.verdicts["error"];
    } else {
      j->state = "done";
      j->judgment = std::make_shared<const json>(std::move(judgment));
      const json& jj = *j->judgment;
      j->verdict = jj.value("verdict", "");
      if (jj.contains("speedup") && jj["speedup"].is_number()) j->speedup = jj["speedup"].get<double>();
      j->reward = reward_of(j->req.reward, jj);
      ++counters_.verdicts[j->verdict];
      // Later identical requests are answered from this judgment only when
      // it was not asked "fresh" (a client re-judging until a lucky result
      // must not set it for everyone) and its verdict does not hang on a
      // noisy moment: a timeout, a runtime error or a rejection (a clock or
      // re-check verdict) is judged again when asked again.
      bool settled = j->verdict == "correct" || j->verdict == "incorrect" || j->verdict == "compile_error";
      if (settled && !j->req.fresh && !done_by_key_.count(j->key)) done_by_key_[j->key] = j->id;
    }
    double s = std::chrono::duration<double>(j->ended - j->submitted).count();
    ++counters_.latency_count;
    counters_.latency_sum_s += s;
    for (size_t b = 0; b < counters_.latency_buckets_s.size(); ++b)
      if (s <= counters_.latency_buckets_s[b]) ++counters_.latency_counts[b];
    finished_order_.push_back(j->id);
    trim_finished();
  }
  if (error.empty()) record(*j);
  // One line per judged job on stderr: the server's log.
  {
    double s = std::chrono::duration<double>(j->ended - j->submitted).count();
    char speed[32] = "";
    if (j->speedup) std::snprintf(speed, sizeof speed, " %.3fx", *j->speedup);
    std::fprintf(stderr, "cudal1 serve: %s %s %s%s (%.1f s, %s)\n", j->id.c_str(), j->req.task_name.c_str(),
                 error.empty() ? j->verdict.c_str() : ("failed: " + error).c_str(), speed, s, j->req.client.c_str());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j->req.code.clear();  // a finished job keeps no code (memory: up to keep_jobs of them)
    j->req.task_source.clear();
  }
  changed_.notify_all();
}

// Only the newest finished jobs are kept for GET /v1/jobs/ID (under mutex_).
void judge_service::trim_finished() {
  while (finished_order_.size() > opt_.keep_jobs) {
    auto old = jobs_.find(finished_order_.front());
    if (old != jobs_.end()) {
      auto k = done_by_key_.find(old->second->key);
      if (k != done_by_key_.end() && k->second == old->first) done_by_key_.erase(k);
      jobs_.erase(old);
    }
    finished_order_.pop_front();
  }
}

// Runs on the judging thread only: the store's handle is used by no other.
void judge_service::record(const job& j) {
  if (!store_->db) return;
  store& db = *store_->db;
  auto task_hash = db.put_task(j.req.task_name, j.req.task_source);
  if (!task_hash) return;
  auto cand = db.put_candidate(*task_hash, j.req.format, j.req.code, "serve:" + j.req.client);
  if (!cand) return;
  try {  // a store that fails loses this record, not the server
    (void)db.record_judgment({store_->run_id, *task_hash, *cand, static_cast<int>(j.serial)}, *j.judgment,
                             j.judgment->value("baseline", opt_.judge.baseline));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudal1 serve: %s not stored: %s\n", j.id.c_str(), e.what());
  }
}

std::optional<job_view> judge_service::get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const job& j = *it->second;
  job_view v;
  v.id = j.id;
  v.state = j.state;
  v.error = j.error;
  v.task = j.req.task_name;
  v.format = j.req.format;
  v.judgment = j.judgment ? *j.judgment : json();
  v.speedup = j.speedup;
  v.reward = j.reward;
  v.verdict = j.verdict;
  v.cached = j.cached;
  v.owner = j.req.owner;
  auto end = j.state == "done" || j.state == "failed" ? j.ended : clock_type::now();
  v.seconds = std::chrono::duration<double>(end - j.submitted).count();
  if (j.state == "queued") {
    for (const auto& q : ready_) {
      if (q.get() == &j) break;
      ++v.queue_position;
    }
    if (std::find_if(to_compile_.begin(), to_compile_.end(), [&](const auto& q) { return q.get() == &j; }) != to_compile_.end())
      v.queue_position = static_cast<int>(ready_.size());
  }
  return v;
}

std::optional<job_view> judge_service::wait(const std::string& id, double timeout_s) const {
  auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(timeout_s));
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_until(lock, deadline, [&] {
      auto it = jobs_.find(id);
      return stopping_ || it == jobs_.end() || it->second->state == "done" || it->second->state == "failed";
    });
  }
  return get(id);
}

service_metrics judge_service::metrics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

int judge_service::retry_after_s() const {
  std::lock_guard<std::mutex> lock(mutex_);
  double ahead = static_cast<double>(counters_.queued + counters_.compiling + counters_.running);
  // The time for a tenth of the queue to drain, at least a second.
  return static_cast<int>(std::clamp(std::ceil(ahead * mean_judge_s_ / 10), 1.0, 600.0));
}

}  // namespace cudal1
