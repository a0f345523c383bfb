#include "optimize/loop.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "base/fs.h"
#include "base/sha256.h"
#include "bench/precompile.h"
#include "llm/answer.h"
#include "optimize/prompt.h"
#include "report/report.h"
#include "worker/probe.h"

namespace cudal1 {

using json = nlohmann::json;

std::string answer_format(const optimize_options& options, const std::string& backend) {
  if (options.format == "modelnew") return "modelnew";
  return backend == "cuda" ? "cuda" : "cpp";
}

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The sample number of an attempt's judgment within the run: unique per
// (round, slot), so the same code answered twice is judged twice.
int judgment_sample(int round, int slot) { return round * 1000 + slot; }

const char* extension_for(const std::string& format) {
  return format == "cuda" ? ".cu" : format == "cpp" ? ".cpp" : ".py";
}

// What the judge saw, in a paragraph the next prompt can show.
std::string judge_summary(const json& j) {
  std::string v = j.value("verdict", "");
  char buf[256];
  std::string out = v;
  if (j.contains("speedup") && j["speedup"].is_number()) {
    std::snprintf(buf, sizeof buf, ", %.3fx over the reference", j["speedup"].get<double>());
    out += buf;
  }
  const json& ref = j.value("reference", json());
  const json& cand = j.value("candidate", json());
  if (ref.is_object() && cand.is_object() && ref.contains("median_ms") && cand.contains("median_ms")) {
    std::snprintf(buf, sizeof buf, " (%.4g ms against %.4g ms)", cand.value("median_ms", 0.0), ref.value("median_ms", 0.0));
    out += buf;
  }
  const json& sol = j.value("speed_of_light", json());
  if (v == "correct" && sol.is_object() && sol.contains("floor_ms") && sol["floor_ms"].is_number() &&
      cand.is_object() && cand.value("median_ms", 0.0) > 0) {
    std::snprintf(buf, sizeof buf, "; at %.0f%% of the speed-of-light floor (%.4g ms)",
                  100 * sol["floor_ms"].get<double>() / cand.value("median_ms", 1.0), sol["floor_ms"].get<double>());
    out += buf;
  }
  const json& kernels = j.value("kernels", json());
  if (kernels.is_object() && kernels.value("available", false)) {
    std::string names;
    int n = 0;
    for (const auto& k : kernels.value("kernels", json::array())) {
      if (n++ == 4) {
        names += ", ...";
        break;
      }
      if (!names.empty()) names += ", ";
      names += k.value("name", "?") + " [" + k.value("origin", "?") + ", " + std::to_string(k.value("launches", 0)) + "x]";
    }
    if (!names.empty()) out += "; kernels launched: " + names;
  }
  for (const auto& h : j.value("hacks", json::array())) out += "; hack " + h.value("class", "") + ": " + h.value("evidence", "");
  if (v != "correct") {
    for (const auto& c : j.value("checks", json::array()))
      if (!c.value("pass", true)) {
        out += "; failed " + c.value("name", "") + ": " + c.value("reason", "");
        break;
      }
    std::string msg = j.value("message", "");
    if (!msg.empty()) out += "; " + msg.substr(0, 600);
  }
  return out;
}

struct task_state {
  optimize_task task;
  std::string hash, source, backend, format, profile;
  task_card card;
  std::vector<kernel_entry> db;        // as of the round's start
  std::vector<kernel_entry> failures;  // the previous round's, shown as such
  std::optional<double> best;
};

struct job {
  size_t task = 0;
  int round = 0, slot = 0;
  prompt_text prompt;
  json exemplars = json::array();
};

// An answer with code, waiting for its judgment.
struct pending {
  size_t task = 0;
  attempt_record attempt;
  std::string code_path;
};

// The client's options, with a second stop abandoning requests in flight.
llm_options client_options(const optimize_options& options, const std::atomic<int>& stop) {
  llm_options o = options.llm;
  o.cancelled = [&stop] { return stop.load() >= 2; };
  return o;
}

class optimizer {
 public:
  optimizer(const std::vector<optimize_task>& tasks, const optimize_options& options, store& st,
            optimize_progress& progress, const std::atomic<int>& stop)
      : tasks_in_(tasks), opt_(options), st_(st), progress_(progress), stop_(stop), client_(client_options(options, stop)) {}

  result<optimize_summary> run() {
    start_ = clock_type::now();
    optimize_summary out;
    out.run_name = opt_.run_name;
    // The server first: a wrong URL, key or model costs no reference timing.
    if (std::string why = preflight(); !why.empty()) {
      out.stopped_by = why;
      return out;
    }
    json settings = {{"kind", "optimize"}, {"model", opt_.model}, {"format", opt_.format},
                     {"backend", opt_.judge.backend}, {"precision", opt_.judge.precision},
                     {"baseline", opt_.judge.baseline}, {"profile", opt_.judge.profile},
                     {"sampling", to_string(opt_.sampling.kind)}, {"tau", opt_.sampling.tau},
                     {"bucket_width", opt_.sampling.bucket_width}, {"exemplars", opt_.sampling.exemplars},
                     {"samples", opt_.samples}, {"rounds", opt_.rounds}, {"seed", opt_.seed}};
    auto run = st_.open_run(opt_.run_name, opt_.command_line, settings);
    if (!run) return run.err();
    run_id_ = run->run_id;
    (void)st_.set_run_status(run_id_, "running");
    if (auto s = make_dirs(opt_.work_dir); !s) return s.err();
    if (auto s = load_tasks(); !s) return s.err();
    state_.rounds = opt_.rounds;
    for (int r = 1; r <= opt_.rounds && !stopping() && fatal_.empty(); ++r) {
      if (budget_spent()) {
        budget_hit_ = true;
        break;
      }
      if (auto s = run_round(r); !s) return s.err();
    }
    out.state = snapshot();
    out.run_id = run_id_;
    out.interrupted = stopping();
    out.budget_spent = budget_hit_;
    out.stopped_by = fatal_;
    out.failed_requests = failed_requests_;
    bool complete = !out.interrupted && fatal_.empty() && !budget_hit_ && failed_requests_ == 0;
    (void)st_.set_run_status(run_id_, complete ? "done" : "incomplete");
    return out;
  }

  // Asks the server for its models: an unreachable server or a refused key
  // ends the run here. A model it does not list is only a warning (llama.cpp's
  // server answers any name), and a server without the endpoint is left to
  // the requests.
  std::string preflight() {
    auto models = client_.models();
    if (auto* f = std::get_if<llm_failure>(&models)) {
      // Unreachable (no HTTP answer at all) or a refused key; a 404 on
      // /models alone may be a server without the endpoint.
      if ((f->kind == llm_error_kind::bad_url && f->http_status == 0) || f->kind == llm_error_kind::unauthorized)
        return f->message;
      return "";
    }
    const auto& names = std::get<std::vector<std::string>>(models);
    if (names.empty() || std::find(names.begin(), names.end(), opt_.model) != names.end()) return "";
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    event("warning: the server at " + opt_.llm.base_url + " does not list the model '" + opt_.model + "' (it lists: " +
          list + "); asking it anyway");
    return "";
  }

 private:
  bool stopping() const { return stop_.load() >= 1; }
  bool budget_spent() const {
    std::lock_guard<std::mutex> lock(m_);
    return budget_spent_locked();
  }
  bool budget_spent_locked() const {
    if (opt_.budget_tokens > 0 && state_.prompt_tokens + state_.completion_tokens >= opt_.budget_tokens) return true;
    return opt_.budget_seconds > 0 && seconds_between(start_, clock_type::now()) >= opt_.budget_seconds;
  }

  optimize_state snapshot() {
    std::lock_guard<std::mutex> lock(m_);
    state_.elapsed_s = seconds_between(start_, clock_type::now());
    return state_;
  }
  void show() { progress_.update(snapshot()); }
  void event(const std::string& line) { progress_.event(line); }

  // Each task's source into the store, its reference timed once per run
  // (kept as the run's judgment with no candidate: resuming skips it).
  status load_tasks() {
    std::map<std::string, std::string> names;  // name -> hash
    for (const auto& t : tasks_in_) {
      if (stopping()) break;  // no more reference timings once asked to stop
      task_state ts;
      ts.task = t;
      auto source = read_file(t.path);
      if (!source) return source.err();
      ts.source = *source;
      auto hash = st_.put_task(t.name, ts.source);
      if (!hash) return hash.err();
      ts.hash = *hash;
      bool again = false;
      for (const auto& other : tasks_)
        again = again || other.hash == ts.hash;
      if (again) {
        event(t.name + " (" + t.path + "): the same task as one given before; optimized once");
        continue;
      }
      if (auto it = names.find(t.name); it != names.end())
        return make_error("two different tasks are named " + t.name + " (" + t.path +
                          " is one): give them from folders of different names");
      names[t.name] = ts.hash;
      auto ref = reference_judgment(ts);
      if (!ref) return ref.err();
      ts.backend = ref->value("backend", opt_.judge.backend);
      ts.format = answer_format(opt_, ts.backend);
      ts.profile = ref->value("profile", json()).is_string() ? ref->value("profile", std::string()) : "";
      ts.card = card_from_judgment(t.name, ts.source, *ref);
      ts.card.baseline = opt_.judge.baseline;
      ts.card.precision = opt_.judge.precision;
      // Tokens this run already spent count toward its budget.
      auto before = st_.attempts(run_id_, ts.hash);
      if (!before) return before.err();
      for (const auto& a : *before) {
        state_.prompt_tokens += a.prompt_tokens;
        state_.completion_tokens += a.completion_tokens;
      }
      tasks_.push_back(std::move(ts));
    }
    return ok_status();
  }

  result<json> reference_judgment(const task_state& ts) {
    judgment_key key{run_id_, ts.hash, "", 0};
    auto stored = st_.judgments(run_id_);
    if (!stored) return stored.err();
    for (const auto& j : *stored)
      if (j.task_hash == ts.hash && j.candidate_hash.empty() && j.judgment.is_object() && j.verdict == "reference")
        return j.judgment;
    event(ts.task.name + ": timing the reference");
    no_progress quiet;
    auto started = clock_type::now();
    auto t = time_reference(ts.task.path, opt_.judge, quiet);
    add_judging(seconds_between(started, clock_type::now()));
    if (!t) return make_error(ts.task.name + ": " + t.message());
    json out = reference_timing_json(*t);
    // The device's name and figures, as a judgment has them (the reference's
    // timing alone starts no candidate worker to report them).
    if (const json& dev = device_facts(t->backend); !dev.is_null()) out["device"] = dev;
    if (auto s = st_.record_judgment(key, out, opt_.judge.baseline); !s) return s.err();
    return out;
  }

  // The device's facts, probed once per backend for the run (a probe starts a worker).
  const json& device_facts(const std::string& backend) {
    auto it = devices_.find(backend);
    if (it == devices_.end()) {
      auto dev = probe_device(backend);
      it = devices_.emplace(backend, dev ? *dev : json()).first;
    }
    return it->second;
  }

  // The compile-ahead of answers, made once for the run (it probes the
  // device and finds the Python a ModelNew build needs).
  const precompiler& compiler() {
    if (!builder_) {
      bool need_python = false;
      for (const auto& ts : tasks_) need_python = need_python || ts.format == "modelnew";
      builder_ = std::make_unique<precompiler>(opt_.judge, tasks_.empty() ? "cpu" : tasks_[0].backend, need_python);
    }
    return *builder_;
  }

  void add_judging(double s) {
    std::lock_guard<std::mutex> lock(m_);
    state_.judging_s += s;
  }

  // The database of a task as it stands: the reference and every judged
  // kernel of the task in the store in the format asked for.
  status refresh_database(task_state& ts, int round) {
    ts.db.clear();
    kernel_entry ref;
    ref.format = "reference";
    ref.code = ts.source;
    ref.verdict = "correct";
    ref.score = 1.0;
    ref.summary = "the PyTorch reference (the baseline, 1.0x)";
    ts.db.push_back(ref);
    auto kernels = st_.task_kernels(ts.hash);
    if (!kernels) return kernels.err();
    std::set<std::string> seen;
    for (const auto& k : *kernels) {
      if (k.format != ts.format || !seen.insert(k.candidate_hash).second) continue;  // best judgment first
      if (!comparable(k.judgment, ts)) continue;
      kernel_entry e;
      e.candidate_hash = k.candidate_hash;
      e.code = k.source;
      e.format = k.format;
      e.verdict = k.verdict;
      e.score = k.speedup.value_or(0);
      e.summary = judge_summary(k.judgment);
      ts.db.push_back(std::move(e));
      if (k.verdict == "correct" && k.speedup && (!ts.best || *k.speedup > *ts.best)) ts.best = k.speedup;
    }
    // Analyses and rounds come from the attempts that produced the kernels.
    auto attempts = st_.task_attempts(ts.hash);
    if (!attempts) return attempts.err();
    ts.failures.clear();
    for (const auto& a : *attempts) {
      for (auto& e : ts.db)
        if (!a.candidate_hash.empty() && e.candidate_hash == a.candidate_hash) {
          e.analysis = a.analysis;
          e.round = a.round;
        }
      // The previous round's failures of this run, shown as failures.
      if (a.run_id == run_id_ && a.round == round - 1 && (a.status == "no_code" || (a.status == "judged" && a.verdict != "correct"))) {
        kernel_entry f;
        f.candidate_hash = a.candidate_hash;
        f.verdict = a.status == "no_code" ? "no_code" : a.verdict;
        f.format = ts.format;
        f.round = a.round;
        if (!a.candidate_hash.empty()) {
          auto src = st_.candidate_source(a.candidate_hash);
          if (src) f.code = *src;
        }
        f.summary = a.problem;
        ts.failures.push_back(std::move(f));
      }
    }
    if (ts.failures.size() > 2) ts.failures.erase(ts.failures.begin(), ts.failures.end() - 2);
    std::lock_guard<std::mutex> lock(m_);
    if (ts.best) state_.best[ts.task.name] = *ts.best;
    return ok_status();
  }

  // A kernel's speedup can be compared with this run's only when it was
  // measured the same way: backend, baseline, precision and size profile.
  bool comparable(const json& j, const task_state& ts) const {
    if (!j.is_object()) return false;
    if (j.value("backend", ts.backend) != ts.backend) return false;
    if (j.value("baseline", std::string("eager")) != opt_.judge.baseline) return false;
    const json& p = j.value("precision", json::object());
    if (p.is_object() && p.value("policy", std::string("fp32")) != opt_.judge.precision) return false;
    std::string profile = j.value("profile", json()).is_string() ? j.value("profile", std::string()) : "";
    return profile == ts.profile;
  }

  status run_round(int round) {
    {
      std::lock_guard<std::mutex> lock(m_);
      state_.round = round;
    }
    std::deque<job> jobs;
    std::deque<pending> answered;  // from an earlier session: judged first
    for (size_t ti = 0; ti < tasks_.size(); ++ti) {
      task_state& ts = tasks_[ti];
      if (auto s = refresh_database(ts, round); !s) return s;
      auto done = st_.attempts(run_id_, ts.hash);
      if (!done) return done.err();
      std::map<int, attempt_record> have;
      for (auto& a : *done)
        if (a.round == round) have[a.slot] = a;
      for (int slot = 0; slot < opt_.samples; ++slot) {
        auto it = have.find(slot);
        if (it != have.end() && (it->second.status == "judged" || it->second.status == "no_code")) continue;
        if (it != have.end() && it->second.status == "answered") {
          auto src = st_.candidate_source(it->second.candidate_hash);
          if (!src) return src.err();
          pending p{ti, it->second, write_code(ts, round, slot, *src)};
          if (p.code_path.empty()) return make_error("cannot write an answer's code under " + opt_.work_dir);
          answered.push_back(std::move(p));
          continue;
        }
        auto j = make_job(ti, round, slot);
        if (!j) return j.err();
        jobs.push_back(std::move(*j));
      }
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      state_.requests_total += static_cast<int>(jobs.size());
      state_.judging += static_cast<int>(answered.size());
      queue_ = std::move(jobs);
      judge_queue_ = std::move(answered);
      workers_left_ = std::max(1, std::min<int>(opt_.concurrency, static_cast<int>(queue_.size())));
    }
    const precompiler& builder = compiler();
    std::vector<std::thread> workers;
    for (int w = 0; w < workers_left_; ++w) workers.emplace_back([this, &builder] { request_worker(builder); });
    status judged = judge_until_done();
    {
      std::lock_guard<std::mutex> lock(m_);
      queue_.clear();  // what a stop or a fatal error left unsent
    }
    cv_.notify_all();
    for (auto& t : workers) t.join();
    if (!judged) return judged;
    return set_group_rewards(round);
  }

  result<job> make_job(size_t ti, int round, int slot) {
    task_state& ts = tasks_[ti];
    // The same seed, task, round and slot draw the same exemplars.
    std::mt19937_64 rng(opt_.seed ^ std::hash<std::string>{}(ts.hash) ^ (static_cast<uint64_t>(round) << 32) ^
                        static_cast<uint64_t>(slot) * 0x9E3779B97F4A7C15ull);
    auto picked = sample_exemplars(ts.db, opt_.sampling, rng);
    std::vector<kernel_entry> exemplars;
    json ex = json::array();
    for (size_t i : picked) {
      exemplars.push_back(ts.db[i]);
      ex.push_back({{"candidate_hash", ts.db[i].candidate_hash}, {"score", ts.db[i].score}, {"format", ts.db[i].format}});
    }
    auto prompt = render_prompt(opt_.templates_dir, ts.card, ts.format, exemplars, ts.failures);
    if (!prompt) return prompt.err();
    job j;
    j.task = ti;
    j.round = round;
    j.slot = slot;
    j.prompt = std::move(*prompt);
    j.exemplars = std::move(ex);
    return j;
  }

  std::string write_code(const task_state& ts, int round, int slot, const std::string& code) {
    // Named by the task's content hash: two tasks never share a file.
    std::string stem = std::filesystem::path(ts.task.path).stem().string();
    std::string path = opt_.work_dir + "/" + stem + "-" + ts.hash.substr(0, 12) + ".r" + std::to_string(round) + ".s" +
                       std::to_string(slot) + extension_for(ts.format);
    if (!write_file_atomic(path, code)) return "";
    return path;
  }

  status record(const attempt_record& a) {
    std::lock_guard<std::mutex> lock(store_m_);
    return st_.put_attempt(a);
  }

  // A request thread: sends, parses, records, compiles, queues for judging.
  void request_worker(const precompiler& builder) {
    for (;;) {
      job j;
      {
        std::unique_lock<std::mutex> lock(m_);
        if (queue_.empty() || stop_.load() >= 1 || !fatal_.empty() || budget_spent_locked()) {
          if (!queue_.empty() && budget_spent_locked()) budget_hit_ = true;
          --workers_left_;
          cv_.notify_all();
          return;
        }
        j = std::move(queue_.front());
        queue_.pop_front();
        ++state_.in_flight;
      }
      show();
      const task_state& ts = tasks_[j.task];
      chat_request req;
      req.model = opt_.model;
      req.temperature = opt_.temperature;
      req.max_tokens = opt_.max_tokens;
      req.messages = {{"system", j.prompt.system}, {"user", j.prompt.user}};
      auto answer = client_.chat(req);
      attempt_record a;
      a.run_id = run_id_;
      a.task_hash = ts.hash;
      a.task_name = ts.task.name;
      a.round = j.round;
      a.slot = j.slot;
      a.model = opt_.model;
      a.prompt = {{"system", j.prompt.system}, {"user", j.prompt.user}};
      a.exemplars = j.exemplars;
      pending p;
      bool to_judge = false;
      std::string line;
      if (auto* f = std::get_if<llm_failure>(&answer)) {
        a.status = "llm_error";
        a.problem = std::string(to_string(f->kind)) + ": " + f->message;
        a.llm_seconds = f->seconds;
        bool fatal = f->kind == llm_error_kind::unauthorized || f->kind == llm_error_kind::model_not_found ||
                     f->kind == llm_error_kind::bad_url || f->kind == llm_error_kind::bad_request;
        line = ts.task.name + " round " + std::to_string(j.round) + " #" + std::to_string(j.slot) +
               ": the request failed: " + a.problem;
        std::lock_guard<std::mutex> lock(m_);
        if (fatal && fatal_.empty()) fatal_ = f->message;
        state_.llm_wait_s += f->seconds;
        if (f->kind != llm_error_kind::cancelled) {
          ++state_.verdicts["llm_error"];
          ++failed_requests_;
        } else {
          line.clear();  // a stop, not a failure: asked again on --resume
        }
      } else {
        const chat_response& r = std::get<chat_response>(answer);
        a.answer = r.content;
        a.prompt_tokens = r.usage.prompt_tokens;
        a.completion_tokens = r.usage.completion_tokens;
        a.llm_seconds = r.seconds;
        parsed_answer parsed = parse_answer(r.content, ts.format);
        a.analysis = parsed.analysis;
        {
          std::lock_guard<std::mutex> lock(m_);
          state_.prompt_tokens += a.prompt_tokens;
          state_.completion_tokens += a.completion_tokens;
          state_.llm_wait_s += r.seconds;
        }
        if (!parsed.has_code) {
          a.status = "no_code";
          a.problem = parsed.problem.empty() ? "no usable code in the answer" : parsed.problem;
          a.reward = kernel_reward("incorrect", std::nullopt, opt_.reward);
          line = ts.task.name + " round " + std::to_string(j.round) + ": no usable code (" + a.problem + ")";
          std::lock_guard<std::mutex> lock(m_);
          ++state_.verdicts["no_code"];
        } else {
          std::lock_guard<std::mutex> lock(store_m_);
          auto hash = st_.put_candidate(ts.hash, ts.format, parsed.code, "optimize:" + opt_.model);
          if (hash) {
            a.candidate_hash = *hash;
            a.status = "answered";
            p.code_path = write_code(ts, j.round, j.slot, parsed.code);
            to_judge = !p.code_path.empty();
          }
          if (!to_judge) {
            a.status = "llm_error";
            a.problem = hash ? "cannot write the answer's code under " + opt_.work_dir : hash.message();
          }
        }
      }
      if (auto s = record(a); !s) {
        std::lock_guard<std::mutex> lock(m_);
        if (store_error_.empty()) store_error_ = s.message();
      }
      if (!line.empty()) event(line);
      if (to_judge) {
        // Compiled ahead while the GPU is busy judging, so that judgment finds
        // it in the cache; to an idle judge (the round's first answer) it goes
        // at once, and its judgment compiles it while its reference starts.
        bool judge_idle = false;
        {
          std::lock_guard<std::mutex> lock(m_);
          judge_idle = judge_queue_.empty() && !judging_now_;
        }
        if (!judge_idle) builder.compile(p.code_path, ts.format, ts.task.path, opt_.judge.profile);
      }
      {
        std::lock_guard<std::mutex> lock(m_);
        --state_.in_flight;
        ++state_.requests_done;
        if (to_judge) {
          p.task = j.task;
          p.attempt = a;
          judge_queue_.push_back(std::move(p));
          ++state_.judging;
        }
      }
      cv_.notify_all();
      show();
    }
  }

  // The main thread: one judgment at a time, as answers arrive.
  status judge_until_done() {
    for (;;) {
      pending p;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait_for(lock, std::chrono::milliseconds(500),
                     [&] { return !judge_queue_.empty() || workers_left_ == 0 || !store_error_.empty(); });
        if (!store_error_.empty()) return make_error("the store: " + store_error_);
        if (stop_.load() >= 2) return ok_status();
        if (judge_queue_.empty()) {
          if (workers_left_ == 0) return ok_status();
          lock.unlock();
          show();
          continue;
        }
        p = std::move(judge_queue_.front());
        judge_queue_.pop_front();
        judging_now_ = true;
      }
      status s = judge(p);
      {
        std::lock_guard<std::mutex> lock(m_);
        judging_now_ = false;
      }
      if (!s) return s;
    }
  }

  status judge(pending& p) {
    task_state& ts = tasks_[p.task];
    no_progress quiet;
    auto started = clock_type::now();
    auto j = judge_candidate(ts.task.path, p.code_path, opt_.judge, quiet);
    double took = seconds_between(started, clock_type::now());
    add_judging(took);
    attempt_record& a = p.attempt;
    a.judge_seconds = took;
    json out;
    if (!j) {
      // A failure of the setup, not of the answer: kept, tried again on resume.
      a.status = "answered";
      a.problem = j.message();
      event(ts.task.name + " round " + std::to_string(a.round) + ": cannot judge: " + j.message());
    } else {
      out = judgment_to_json(*j);
      {
        std::lock_guard<std::mutex> lock(store_m_);
        judgment_key key{run_id_, ts.hash, a.candidate_hash, judgment_sample(a.round, a.slot)};
        if (auto s = st_.record_judgment(key, out, opt_.judge.baseline); !s) return s;
      }
      a.status = "judged";
      a.verdict = to_string(j->outcome);
      a.speedup = j->speedup;
      a.reward = kernel_reward(out, opt_.reward);
      a.problem = a.verdict == "correct" ? "" : judge_summary(out);
      std::string line = ts.task.name + " round " + std::to_string(a.round) + " #" + std::to_string(a.slot) + ": " + a.verdict;
      char buf[64];
      if (a.speedup) {
        std::snprintf(buf, sizeof buf, " %.3fx", *a.speedup);
        line += buf;
      }
      bool new_best = false;
      {
        std::lock_guard<std::mutex> lock(m_);
        ++state_.verdicts[a.verdict];
        if (a.verdict == "correct" && a.speedup && (!ts.best || *a.speedup > *ts.best)) {
          ts.best = a.speedup;
          state_.best[ts.task.name] = *a.speedup;
          new_best = *a.speedup > 1.0;  // the reference is the database's first kernel
        }
      }
      if (new_best) line += " (new best)";
      if (a.verdict == "rejected")
        for (const auto& h : out.value("hacks", json::array())) line += " [" + h.value("class", "") + "]";
      event(line);
    }
    if (auto s = record(a); !s) return s;
    {
      std::lock_guard<std::mutex> lock(m_);
      --state_.judging;
    }
    show();
    return ok_status();
  }

  // Smoothed rewards within each task's group of this round (CUDA-L1's
  // z-normalization); failed requests are not in a group.
  status set_group_rewards(int round) {
    for (const auto& ts : tasks_) {
      auto all = st_.attempts(run_id_, ts.hash);
      if (!all) return all.err();
      std::vector<attempt_record> group;
      for (auto& a : *all)
        if (a.round == round && a.reward) group.push_back(a);
      std::vector<double> rewards;
      for (const auto& a : group) rewards.push_back(*a.reward);
      auto smoothed = group_rewards(rewards, opt_.reward);
      for (size_t i = 0; i < group.size(); ++i) {
        group[i].group_reward = smoothed[i];
        if (auto s = record(group[i]); !s) return s;
      }
    }
    return ok_status();
  }

  const std::vector<optimize_task>& tasks_in_;
  const optimize_options& opt_;
  store& st_;
  optimize_progress& progress_;
  const std::atomic<int>& stop_;
  llm_client client_;
  clock_type::time_point start_;
  int64_t run_id_ = 0;
  std::vector<task_state> tasks_;
  std::map<std::string, json> devices_;       // backend -> probed facts (null: the probe failed)
  std::unique_ptr<precompiler> builder_;

  mutable std::mutex m_;  // state_, the queues, fatal_
  std::mutex store_m_;    // the store's connection, shared by the threads
  std::condition_variable cv_;
  optimize_state state_;
  std::deque<job> queue_;
  std::deque<pending> judge_queue_;
  bool judging_now_ = false;  // the main thread is in a judgment (guarded by m_)
  int workers_left_ = 0;
  bool budget_hit_ = false;
  int failed_requests_ = 0;
  std::string fatal_, store_error_;
};

}  // namespace

result<optimize_summary> run_optimize(const std::vector<optimize_task>& tasks, const optimize_options& options,
                                      store& st, optimize_progress& progress, const std::atomic<int>& stop) {
  optimizer o(tasks, options, st, progress, stop);
  return o.run();
}

}  // namespace cudal1
