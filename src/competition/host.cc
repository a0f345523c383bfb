#include "competition/host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "competition/board.h"
#include "serve/requests.h"

namespace cudal1 {

using nlohmann::json;

namespace {

// A job's owner that no bearer token hashes to: GET /v1/jobs/ID shows the
// competition's judgments (the hidden ones among them) to no client.
constexpr const char* kJobOwner = "competition (no client)";

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool finished(const std::string& state) { return state == "done" || state == "failed"; }

std::string seconds_text(int64_t s) {
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string(s / 60) + " min";
  return std::to_string(s / 3600) + " h";
}

}  // namespace

struct competition_host::flight {
  int64_t id = 0;
  std::string public_job;
  bool public_taken = false;
  run_outcome public_outcome;
  std::vector<std::string> hidden_jobs;
};

result<std::unique_ptr<competition_host>> competition_host::start(competition c, judge_service& service,
                                                                  const std::string& store_path,
                                                                  const std::string& private_dir) {
  std::unique_ptr<competition_host> h(new competition_host());
  if (auto w = write_judge_files(c, private_dir); !w) return make_error("the judge's copies of the tasks: " + w.message());
  h->c_ = std::move(c);
  h->service_ = &service;
  auto db = submission_store::open(store_path);
  if (!db) return db.err();
  h->db_.emplace(std::move(*db));
  auto all = h->db_->load(h->c_.name);
  if (!all) return make_error("competition store " + store_path + ": " + all.message());
  for (auto& s : *all) {
    // A submission the last run left unjudged is judged again from the start.
    if (!finished(s.state)) {
      s.state = "queued";
      h->incoming_.push_back(s.id);
    }
    h->subs_[s.id] = std::move(s);
  }
  h->rebuild_board();
  h->referee_ = std::thread([p = h.get()] { p->referee_loop(); });
  return h;
}

competition_host::~competition_host() { stop(); }

void competition_host::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (referee_.joinable()) referee_.join();
}

void competition_host::note_refusal(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++refused_[std::to_string(status)];
}

bool competition_host::stopping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopping_;
}

std::variant<int64_t, refusal> competition_host::submit(const participant& who, const std::string& task_name,
                                                        const std::string& code, const std::string& format) {
  auto refuse = [&](refusal r) -> std::variant<int64_t, refusal> {
    std::lock_guard<std::mutex> lock(mutex_);
    ++refused_[std::to_string(r.status)];
    return r;
  };
  int64_t now = now_ms();
  std::string window = c_.state_at(now / 1000);
  if (window == "before")
    return refuse({403, "the competition has not started: it opens at " + format_utc_time(c_.start_unix) + " (in " +
                            seconds_text(c_.start_unix - now / 1000) + ")"});
  if (window == "ended")
    return refuse({403, "the competition has ended (at " + format_utc_time(c_.end_unix) + "): no more submissions"});
  const competition_task* task = c_.find_task(task_name);
  if (!task) {
    std::string names;
    for (const auto& t : c_.tasks) names += (names.empty() ? "" : ", ") + t.name;
    return refuse({404, "unknown task '" + task_name + "' (this competition's tasks: " + names + ")"});
  }
  request_limits limits;
  limits.max_code_bytes = c_.max_code_bytes;
  limits.backend = c_.backend;
  auto taken = take_code(code, format, limits);
  if (auto* e = std::get_if<request_error>(&taken)) {
    std::string message = e->message;
    if (e->status == 413)  // the server-wide flag is not the competition's limit
      message = "the code is " + std::to_string(code.size()) + " bytes; this competition takes at most " +
                std::to_string(c_.max_code_bytes);
    return refuse({e->status, message});
  }
  const taken_code& got = std::get<taken_code>(taken);
  if (!got.has_code) return refuse({422, "no code to judge: " + got.problem});

  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return refusal{503, "the server is stopping"};
  int pending = 0;
  std::vector<int64_t> recent;
  for (const auto& [id, s] : subs_) {
    if (s.participant != who.name) continue;
    if (!finished(s.state)) ++pending;
    if (s.submitted_ms > now - int64_t{c_.rate_window_s} * 1000) recent.push_back(s.submitted_ms);
  }
  if (pending >= c_.max_pending) {
    ++refused_["429"];
    lock.unlock();
    return refusal{429,
                   "you have " + std::to_string(pending) + " submissions waiting or being judged (at most " +
                       std::to_string(c_.max_pending) + " at once): wait for a verdict",
                   service_->retry_after_s()};
  }
  if (static_cast<int>(recent.size()) >= c_.rate_submissions) {
    ++refused_["429"];
    int64_t oldest = *std::min_element(recent.begin(), recent.end());
    int retry = static_cast<int>(std::max<int64_t>(1, (oldest + int64_t{c_.rate_window_s} * 1000 - now + 999) / 1000));
    return refusal{429,
                   std::to_string(recent.size()) + " submissions in the last " + seconds_text(c_.rate_window_s) +
                       " (at most " + std::to_string(c_.rate_submissions) + "): the next is taken in " + seconds_text(retry),
                   retry};
  }
  submission s;
  s.participant = who.name;
  s.task = task->name;
  s.format = got.format;
  s.code = got.code;
  s.submitted_ms = now;
  auto id = db_->insert(c_.name, s);
  if (!id) return refusal{500, "the competition store failed: " + id.message()};
  s.id = *id;
  subs_[s.id] = std::move(s);
  incoming_.push_back(*id);
  rebuild_board();
  lock.unlock();
  changed_.notify_all();
  std::fprintf(stderr, "cudal1 serve: competition submission %lld by %s for %s queued\n", static_cast<long long>(*id),
               who.name.c_str(), task->name.c_str());
  return *id;
}

judge_request competition_host::request_for(const submission& s, json options) const {
  const competition_task* t = c_.find_task(s.task);
  judge_request r;
  r.task_name = t->name;
  r.task_path = t->judge_file;
  r.task_source = t->judge_source;
  r.code = s.code;
  r.format = s.format;
  r.options = std::move(options);
  r.fresh = true;  // every submission is judged, never answered from another's judgment
  r.client = "competition";
  r.owner = kJobOwner;
  return r;
}

void competition_host::referee_loop() {
  std::vector<flight> flights;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Judgments take seconds: a look ten times a second is soon enough.
      changed_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping_ || !incoming_.empty(); });
      if (stopping_) return;
      for (int64_t id : incoming_) {
        flights.emplace_back();
        flights.back().id = id;
      }
      incoming_.clear();
    }
    flights.erase(std::remove_if(flights.begin(), flights.end(), [this](flight& f) { return advance(f); }), flights.end());
  }
}

// One step of a submission's judgment: queue its public run; once that is
// judged correct, its hidden runs; once those are judged, settle it. A full
// queue is tried again on the next look.
bool competition_host::advance(flight& f) {
  submission s;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s = subs_[f.id];
  }
  const competition_task* task = c_.find_task(s.task);
  if (!task) {
    settle_submission(s, run_outcome{false, "", {}, "the task " + s.task + " is no longer in the competition"}, {});
    settle(std::move(s), "");
    return true;
  }
  if (f.public_job.empty()) {
    json options = json::object();
    if (!task->public_profile.empty()) options["profile"] = task->public_profile;
    auto ids = service_->submit({request_for(s, options)});
    if (!ids) return false;
    f.public_job = (*ids)[0];
    std::lock_guard<std::mutex> lock(mutex_);
    subs_[f.id].state = "judging";
    (void)db_->update(subs_[f.id]);
    rebuild_board();
    changed_.notify_all();
    return false;
  }
  if (!f.public_taken) {
    auto job = service_->get(f.public_job);
    if (job && !finished(job->state)) return false;
    f.public_taken = true;
    if (!job || job->state == "failed") {
      f.public_outcome = run_outcome{false, "", {}, job ? job->error : "the judgment was lost"};
    } else {
      take_public_judgment(s, job->judgment);
      f.public_outcome = outcome_of(job->judgment);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      subs_[f.id] = s;  // the public figures, while the hidden runs are judged
    }
    if (!f.public_outcome.done || f.public_outcome.verdict != "correct") {
      settle_submission(s, f.public_outcome, {});
      settle(std::move(s), f.public_outcome.error);
      return true;
    }
  }
  if (f.hidden_jobs.empty()) {
    std::vector<judge_request> runs;
    for (const auto& h : task->hidden) {
      json options = {{"profile", h.profile}};
      if (h.seed) options["seed"] = *h.seed;
      runs.push_back(request_for(s, options));
    }
    auto ids = service_->submit(std::move(runs));
    if (!ids) return false;
    f.hidden_jobs = *ids;
    return false;
  }
  std::vector<run_outcome> hidden;
  json kept = json::array();
  std::string note;
  for (const auto& id : f.hidden_jobs) {
    auto job = service_->get(id);
    if (job && !finished(job->state)) return false;
    if (!job || job->state == "failed") {
      std::string why = job ? job->error : "the judgment was lost";
      hidden.push_back(run_outcome{false, "", {}, why});
      kept.push_back({{"error", why}});
      note = "hidden run: " + why;  // for the organizers' log only
    } else {
      hidden.push_back(outcome_of(job->judgment));
      kept.push_back(job->judgment);
    }
  }
  s.hidden_judgments = kept;
  settle_submission(s, f.public_outcome, hidden);
  settle(std::move(s), note);
  return true;
}

void competition_host::settle(submission s, const std::string& note) {
  s.judged_ms = now_ms();
  std::ostringstream line;
  line << "cudal1 serve: competition submission " << s.id << " by " << s.participant << " for " << s.task << ": ";
  if (s.state == "failed") {
    line << "failed (" << (note.empty() ? s.error : note) << ")";
  } else {
    line << s.verdict;
    if (!s.part.empty()) line << " (" << s.part << " run" << (s.verdict_class != s.verdict ? ": " + s.verdict_class : "") << ")";
    if (s.time_ms) line << ", public " << *s.time_ms << " ms";
    if (s.speedup) line << ", " << *s.speedup << "x";
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto u = db_->update(s); !u) line << " [not stored: " << u.message() << "]";
    subs_[s.id] = std::move(s);
    rebuild_board();
  }
  changed_.notify_all();
  std::fprintf(stderr, "%s\n", line.str().c_str());
}

void competition_host::rebuild_board() {
  std::vector<submission> all;
  all.reserve(subs_.size());
  for (const auto& [id, s] : subs_) all.push_back(s);
  board_ = build_board(c_, all);
  board_["version"] = ++version_;
}

std::optional<submission> competition_host::get(int64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = subs_.find(id);
  if (it == subs_.end()) return std::nullopt;
  return it->second;
}

std::vector<submission> competition_host::submissions_of(const std::string& participant) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<submission> out;
  for (auto it = subs_.rbegin(); it != subs_.rend(); ++it)
    if (it->second.participant == participant) out.push_back(it->second);
  return out;
}

json competition_host::board() const {
  std::lock_guard<std::mutex> lock(mutex_);
  json b = board_;
  int64_t now = now_ms() / 1000;
  b["competition"] = {{"name", c_.name}, {"state", c_.state_at(now)}, {"now", format_utc_time(now)},
                      {"start", format_utc_time(c_.start_unix)}, {"end", format_utc_time(c_.end_unix)}};
  return b;
}

json competition_host::standing(const submission& s) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return standing_on(board_, c_, s);
}

int64_t competition_host::wait_change(int64_t seen, double timeout_s) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return stopping_ || version_ != seen; });
  return version_;
}

std::optional<submission> competition_host::wait_judged(int64_t id, double timeout_s) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] {
    auto it = subs_.find(id);
    return stopping_ || it == subs_.end() || finished(it->second.state);
  });
  auto it = subs_.find(id);
  if (it == subs_.end()) return std::nullopt;
  return it->second;
}

std::string competition_host::metrics_text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, int64_t> by_verdict;
  for (const auto& [id, s] : subs_) ++by_verdict[s.state == "done" ? s.verdict : s.state];
  std::ostringstream o;
  o << "# HELP cudal1_competition_submissions Competition submissions, by verdict (or queued, judging, failed).\n"
       "# TYPE cudal1_competition_submissions gauge\n";
  for (const auto& [v, n] : by_verdict) o << "cudal1_competition_submissions{verdict=\"" << v << "\"} " << n << "\n";
  o << "# HELP cudal1_competition_refused_total Submissions refused, by HTTP status.\n"
       "# TYPE cudal1_competition_refused_total counter\n";
  for (const auto& [status, n] : refused_) o << "cudal1_competition_refused_total{status=\"" << status << "\"} " << n << "\n";
  return o.str();
}

}  // namespace cudal1
