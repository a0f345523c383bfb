#include "queue/worker.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "base/fs.h"
#include "queue/job_queue.h"
#include "report/report.h"
#include "serve/requests.h"

namespace cudal1 {

using nlohmann::json;

namespace {

std::string default_consumer() {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid());
}

std::string extension_of(const std::string& format) {
  return format == "cuda" ? ".cu" : format == "cpp" ? ".cpp" : ".py";
}

// Keeps the job claimed while it is judged: a keep-alive every third of the
// reclaim time, on a connection of its own.
class keep_alive {
 public:
  keep_alive(const worker_options& o, const std::string& entry_id) {
    thread_ = std::thread([this, o, entry_id] {
      auto q = job_queue::open(o.redis_url, o.secret, o.prefix);
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        if (changed_.wait_for(lock, std::chrono::duration<double>(o.reclaim_after_s / 3), [this] { return done_; })) break;
        if (q) (void)q->keep_alive(o.consumer, entry_id);
      }
    });
  }
  ~keep_alive() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false;
  std::thread thread_;
};

json judge_job(const worker_options& o, const queued_job& job, const std::string& scratch) {
  const json& j = job.job;
  if (!j.is_object() || !j.contains("task_source") || !j["task_source"].is_string() || !j.contains("code") ||
      !j["code"].is_string() || !j.contains("format"))
    return {{"state", "failed"}, {"error", "a malformed job (it lacks the task, the code or the format)"}};
  const bool reference_alone = j.value("kind", "judge") == "reference";  // bench: a task without a candidate
  std::string dir = scratch + "/" + job.key.substr(0, 16);
  if (auto s = make_dirs(dir); !s) return {{"state", "failed"}, {"error", s.message()}};
  std::string stem = std::filesystem::path(j.value("task_name", "task")).filename().string();
  std::string task_path = dir + "/" + (stem.empty() ? "task" : stem) + ".py";
  std::string code_path = dir + "/candidate" + extension_of(j.value("format", ""));
  if (!write_file_atomic(task_path, j["task_source"].get<std::string>()) ||
      !write_file_atomic(code_path, j["code"].get<std::string>()))
    return {{"state", "failed"}, {"error", "cannot write the job's files under " + dir}};
  no_progress quiet;
  judge_options options = with_job_options(o.judge, j.value("options", json::object()));
  if (reference_alone) {
    auto timed = time_reference(task_path, options, quiet);
    remove_tree(dir);
    if (!timed) return {{"state", "failed"}, {"error", timed.message()}};
    return {{"state", "done"}, {"judgment", reference_timing_json(*timed)}};
  }
  auto judged = judge_candidate(task_path, code_path, options, quiet);
  remove_tree(dir);
  if (!judged) return {{"state", "failed"}, {"error", judged.message()}};
  json out = judgment_to_json(*judged);
  out["task_name"] = j.value("task_name", "");
  return {{"state", "done"}, {"judgment", out}};
}

}  // namespace

result<int> run_worker(const worker_options& options, const std::atomic<bool>* stop) {
  worker_options o = options;
  if (o.consumer.empty()) o.consumer = default_consumer();
  auto q = job_queue::open(o.redis_url, o.secret, o.prefix);
  if (!q) return q.err();
  auto scratch = make_temp_dir("cudal1-worker");
  if (!scratch) return scratch.err();
  std::fprintf(stderr, "cudal1 worker %s: taking jobs from %s (%s:jobs)\n", o.consumer.c_str(), o.redis_url.c_str(),
               o.prefix.c_str());
  int judged = 0;
  while (!(stop && *stop) && (o.max_jobs == 0 || judged < o.max_jobs)) {
    auto next = q->next(o.consumer, 1.0, o.reclaim_after_s);
    if (!next) {  // Redis went away: wait and try again
      std::fprintf(stderr, "cudal1 worker %s: %s\n", o.consumer.c_str(), next.message().c_str());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    if (!*next) continue;
    queued_job& job = **next;
    // Idempotent by content hash: a job judged already (by a worker that
    // died before acknowledging it) is acknowledged, not judged again.
    if (auto done = q->result_of(job.key); done && *done) {
      (void)q->finish(job, **done);
      continue;
    }
    json result;
    if (job.deliveries > o.max_deliveries) {
      result = {{"state", "failed"},
                {"error", "the job was delivered " + std::to_string(job.deliveries) +
                              " times: its workers ended while judging it (" + std::to_string(o.max_deliveries) +
                              " at most)"}};
    } else {
      keep_alive claimed(o, job.entry_id);
      try {  // a judgment that throws fails its job, not the worker
        result = judge_job(o, job, *scratch);
      } catch (const std::exception& e) {
        result = {{"state", "failed"}, {"error", std::string("internal error while judging: ") + e.what()}};
      }
    }
    result["worker"] = o.consumer;
    if (auto s = q->finish(job, result); !s)
      std::fprintf(stderr, "cudal1 worker %s: %s\n", o.consumer.c_str(), s.message().c_str());
    ++judged;
    std::fprintf(stderr, "cudal1 worker %s: %s %s\n", o.consumer.c_str(), job.job.value("task_name", "?").c_str(),
                 result.value("state", "") == "done" ? result["judgment"].value("verdict", "reference").c_str()
                                                     : ("failed: " + result.value("error", "")).c_str());
  }
  remove_tree(*scratch);
  return judged;
}

}  // namespace cudal1
