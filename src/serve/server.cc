#include "serve/server.h"

#include <cmath>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/http_json.h"
#include "base/http_server.h"
#include "base/json_text.h"
#include "base/sha256.h"

namespace cudal1 {

using nlohmann::json;

namespace {

// The bearer token of the request being handled (hashed), set by the route
// wrapper on the HTTP thread: jobs belong to it, and GET /v1/jobs/ID shows a
// job to its owner only.
thread_local std::string current_owner;

std::string owner_of(const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  return auth.empty() ? "" : sha256_hex(auth);
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string fmt_number(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

const json* find_path(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

}  // namespace

struct judge_server::impl {
  server_options options;
  judge_service* service = nullptr;
  const task_catalog* tasks = nullptr;
  http_server server;
  std::thread thread;
  int port = 0;
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false;
  // KernelGYM task ids, per client (its bearer token): id -> job id and the
  // request's content, oldest first for trimming.
  struct kernelgym_entry {
    std::string job_id, content;
  };
  std::map<std::string, kernelgym_entry> kernelgym_ids;
  std::deque<std::string> kernelgym_order;
  std::string kernelgym_key(const httplib::Request& req, const std::string& task_id) const {
    return req.get_header_value("Authorization") + "\n" + task_id;
  }
  // Claims `task_id` for this client's request: a task id already used for
  // other content is refused (409), so no client's result is replaced.
  void claim_kernelgym_id(const httplib::Request& req, const std::string& task_id, const json& task);
  void bind_kernelgym_id(const httplib::Request& req, const std::string& task_id, const std::string& job_id, const json& task);
  std::map<std::string, int64_t> requests_by_route;   // "POST /v1/judge 200" -> count

  void add_routes();
  void authorize(const httplib::Request& req) const;
  void count(const httplib::Request& req, int status);

  // One request of cudal1's shape, queued or answered at once (no code).
  struct queued {
    std::string job_id;  // empty: answered without judging
    json answer;         // when not queued
  };
  std::vector<queued> submit(const std::vector<json>& bodies, const std::string& client);
  json finished(const queued& q, const json& no_wait_state = nullptr);
  json wait_all(const std::vector<queued>& qs);

  json openrlhf(const json& body);
  json slime(const json& body);
  json kernelgym_result(const std::string& task_id, const json& job);
  json kernelgym_evaluate(const httplib::Request& req, const json& body);
  std::string metrics_text();
};

void judge_server::impl::authorize(const httplib::Request& req) const {
  if (options.tokens.empty()) return;
  std::string auth = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  if (auth.rfind(prefix, 0) == 0) {
    std::string token = auth.substr(prefix.size());
    for (const auto& t : options.tokens)
      if (t == token) return;
  }
  throw http_failure{401, auth.empty() ? "this server wants a bearer token (Authorization: Bearer TOKEN)"
                                       : "the bearer token is not one this server accepts"};
}

void judge_server::impl::count(const httplib::Request& req, int status) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string route = req.matches.empty() ? req.path : req.path;
  // Job and result ids are not routes: counted under their pattern.
  for (const char* prefix : {"/v1/jobs/", "/status/", "/results/"})
    if (route.rfind(prefix, 0) == 0) route = std::string(prefix) + "ID";
  ++requests_by_route[req.method + " " + route + " " + std::to_string(status)];
}

std::vector<judge_server::impl::queued> judge_server::impl::submit(const std::vector<json>& bodies,
                                                                   const std::string& client) {
  if (bodies.size() > options.max_batch)
    throw http_failure{413, std::to_string(bodies.size()) + " requests in one batch; this server takes at most " +
                                std::to_string(options.max_batch) + " (--max-batch)"};
  std::vector<queued> out(bodies.size());
  std::vector<judge_request> requests;
  std::vector<size_t> slots;
  for (size_t i = 0; i < bodies.size(); ++i) {
    taken_code code;
    auto r = parse_judge_request(bodies[i], *tasks, options.limits, &code);
    if (auto* e = std::get_if<request_error>(&r)) {
      std::string where = bodies.size() > 1 ? "request " + std::to_string(i) + ": " : "";
      throw http_failure{e->status, where + e->message};
    }
    auto& req = std::get<judge_request>(r);
    if (!code.has_code) {  // an answer without code is scored, not refused
      double floor = reward_of(req.reward, {{"verdict", "no_code"}});
      out[i].answer = {{"id", nullptr}, {"state", "done"}, {"task", req.task_name}, {"format", req.format},
                       {"verdict", "no_code"}, {"speedup", nullptr}, {"reward", floor}, {"cached", false},
                       {"problem", code.problem}, {"judgment", nullptr}};
      continue;
    }
    req.client = client;
    req.owner = current_owner;
    requests.push_back(std::move(req));
    slots.push_back(i);
  }
  if (!requests.empty()) {
    bool full = false;
    auto ids = service->submit(std::move(requests), &full);
    if (!ids) throw http_failure{full ? 429 : 503, ids.message(), full ? service->retry_after_s() : 0};
    for (size_t k = 0; k < slots.size(); ++k) out[slots[k]].job_id = (*ids)[k];
  }
  return out;
}

json judge_server::impl::finished(const queued& q, const json&) {
  if (q.job_id.empty()) return q.answer;
  auto v = service->wait(q.job_id, options.wait_timeout_s);
  if (!v) return {{"id", q.job_id}, {"state", "failed"}, {"error", "the job was dropped"}};
  return v->to_json();
}

json judge_server::impl::wait_all(const std::vector<queued>& qs) {
  json results = json::array();
  for (const auto& q : qs) results.push_back(finished(q));
  return results;
}

// OpenRLHF's remote reward model: each query is a prompt and its response
// (the prompt first when "prompts" is given); each label names the task.
json judge_server::impl::openrlhf(const json& body) {
  if (!body.is_object() || !body.contains("query") || !body["query"].is_array())
    throw http_failure{400, "OpenRLHF's request has \"query\": a list of texts (and \"prompts\", \"labels\")"};
  const json& queries = body["query"];
  const json prompts = body.value("prompts", json::array());
  const json labels = body.value("labels", json::array());
  if (!labels.is_array() || labels.size() != queries.size())
    throw http_failure{400, "\"labels\" must name the task of each query (" + std::to_string(queries.size()) + " queries, " +
                                std::to_string(labels.is_array() ? labels.size() : 0) + " labels)"};
  std::vector<json> bodies;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (!queries[i].is_string() || !labels[i].is_string())
      throw http_failure{400, "query " + std::to_string(i) + ": the query and its label must be strings"};
    std::string text = queries[i].get<std::string>();
    if (prompts.is_array() && i < prompts.size() && prompts[i].is_string()) {
      const std::string p = prompts[i].get<std::string>();
      if (text.rfind(p, 0) == 0) text = text.substr(p.size());  // the response alone
    }
    bodies.push_back({{"task", labels[i]}, {"code", text}});
  }
  json results = wait_all(submit(bodies, "openrlhf"));
  json rewards = json::array(), correct = json::array(), speedup = json::array(), rejected = json::array();
  for (const auto& r : results) {
    rewards.push_back(r.value("reward", 0.0));
    correct.push_back(r.value("verdict", "") == "correct" ? 1.0 : 0.0);
    rejected.push_back(r.value("verdict", "") == "rejected" ? 1.0 : 0.0);
    speedup.push_back(r.contains("speedup") && r["speedup"].is_number() ? r["speedup"].get<double>() : 0.0);
  }
  // extra_logs are numbers only: OpenRLHF makes tensors of them.
  return {{"rewards", rewards}, {"scores", rewards},
          {"extra_logs", {{"correct", correct}, {"speedup", speedup}, {"rejected", rejected}}}};
}

// slime's remote reward model: one sample; the reward under "reward" (slime's --reward-key).
json judge_server::impl::slime(const json& body) {
  if (!body.is_object() || !body.contains("response") || !body["response"].is_string() || !body.contains("label") ||
      !body["label"].is_string())
    throw http_failure{400, "slime's request has \"response\" (the model's text) and \"label\" (the task)"};
  json r = wait_all(submit({{{"task", body["label"]}, {"code", body["response"]}}}, "slime"))[0];
  return {{"reward", r.value("reward", 0.0)}, {"score", r.value("reward", 0.0)}, {"verdict", r.value("verdict", "")},
          {"speedup", r.contains("speedup") ? r["speedup"] : json()}, {"id", r.contains("id") ? r["id"] : json()}};
}

// KernelGYM's EvaluationResponse for one of its task ids.
json judge_server::impl::kernelgym_result(const std::string& task_id, const json& job) {
  std::string state = job.value("state", "");
  std::string status = state == "done" ? "completed" : state == "failed" ? "failed" : state == "queued" ? "pending" : "processing";
  json out = {{"task_id", task_id}, {"status", status}};
  if (state == "done") {
    const json& j = job["judgment"];
    std::string verdict = job.value("verdict", "");
    out["compiled"] = verdict != "compile_error" && verdict != "no_code";
    out["correctness"] = verdict == "correct";
    out["decoy_kernel"] = verdict == "rejected";
    const json* ref = find_path(j, {"reference", "median_ms"});
    const json* cand = find_path(j, {"candidate", "median_ms"});
    out["reference_runtime"] = ref ? *ref : json();
    out["kernel_runtime"] = cand ? *cand : json();
    out["speedup"] = job.contains("speedup") ? job["speedup"] : json();
    out["metadata"] = {{"judge", "cudal1"}, {"verdict", verdict}, {"reward", job.value("reward", 0.0)},
                       {"job_id", job.contains("id") ? job["id"] : json()},
                       {"device", j.is_object() && j.contains("device") ? j["device"] : json()},
                       {"hacks", j.is_object() && j.contains("hacks") ? j["hacks"] : json::array()}};
    if (verdict != "correct")
      out["error_message"] = j.is_object() && j.contains("message") ? j["message"] : json(job.value("problem", verdict));
  } else if (state == "failed") {
    out["error_message"] = job.value("error", "");
  }
  out["completed_at"] = state == "done" || state == "failed" ? json(utc_now()) : json();
  out["processing_time"] = job.value("seconds", 0.0);
  return out;
}

std::string kernelgym_content(const json& task) {
  return sha256_hex(task.value("reference_code", "") + '\0' + task.value("kernel_code", "") + '\0' +
                    task.value("precision", "") + '\0' + json_text(json(task.value("num_correct_trials", 0))));
}

void judge_server::impl::claim_kernelgym_id(const httplib::Request& req, const std::string& task_id, const json& task) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = kernelgym_ids.find(kernelgym_key(req, task_id));
  if (it != kernelgym_ids.end() && it->second.content != kernelgym_content(task))
    throw http_failure{409, "task_id " + task_id + " was used for another request; use a new id"};
}

void judge_server::impl::bind_kernelgym_id(const httplib::Request& req, const std::string& task_id, const std::string& job_id,
                                           const json& task) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = kernelgym_key(req, task_id);
  if (!kernelgym_ids.count(key)) kernelgym_order.push_back(key);
  kernelgym_ids[key] = {job_id, kernelgym_content(task)};
  while (kernelgym_order.size() > 10000) {  // as many as the service keeps jobs
    kernelgym_ids.erase(kernelgym_order.front());
    kernelgym_order.pop_front();
  }
}

// KernelGYM's request, checked: its fields' types, then cudal1's request.
json kernelgym_request(const json& t) {
  if (!t.is_object() || !t.contains("task_id") || !t["task_id"].is_string() || !t.contains("kernel_code") ||
      !t["kernel_code"].is_string() || (t.contains("reference_code") && !t["reference_code"].is_string()))
    throw http_failure{400, "KernelGYM's request has \"task_id\", \"reference_code\" and \"kernel_code\", all strings"};
  json ours = {{"reference_code", t.value("reference_code", "")}, {"code", t["kernel_code"]}};
  if (t.contains("precision")) ours["options"]["precision"] = t["precision"];
  if (t.contains("num_correct_trials")) ours["options"]["trials"] = t["num_correct_trials"];
  if (t.contains("force_refresh") && t["force_refresh"].is_boolean() && t["force_refresh"].get<bool>()) ours["fresh"] = true;
  return ours;
}

json judge_server::impl::kernelgym_evaluate(const httplib::Request& req, const json& body) {
  json ours = kernelgym_request(body);
  std::string task_id = body["task_id"].get<std::string>();
  claim_kernelgym_id(req, task_id, body);
  auto qs = submit({ours}, "kernelgym");
  if (!qs[0].job_id.empty()) bind_kernelgym_id(req, task_id, qs[0].job_id, body);
  return kernelgym_result(task_id, finished(qs[0]));
}

std::string judge_server::impl::metrics_text() {
  service_metrics m = service->metrics();
  std::ostringstream o;
  o << "# HELP cudal1_queue_jobs Judgment jobs waiting or in progress, by state.\n# TYPE cudal1_queue_jobs gauge\n";
  o << "cudal1_queue_jobs{state=\"queued\"} " << m.queued << "\n";
  o << "cudal1_queue_jobs{state=\"compiling\"} " << m.compiling << "\n";
  o << "cudal1_queue_jobs{state=\"running\"} " << m.running << "\n";
  o << "# HELP cudal1_judgments_total Judgments finished, by verdict (error: cudal1 could not judge).\n"
       "# TYPE cudal1_judgments_total counter\n";
  for (const auto& [verdict, n] : m.verdicts) o << "cudal1_judgments_total{verdict=\"" << verdict << "\"} " << n << "\n";
  o << "# HELP cudal1_cache_hits_total Requests answered from an earlier judgment of the same code.\n"
       "# TYPE cudal1_cache_hits_total counter\ncudal1_cache_hits_total " << m.cache_hits << "\n";
  o << "# HELP cudal1_queue_full_total Requests refused with 429 for a full queue.\n"
       "# TYPE cudal1_queue_full_total counter\ncudal1_queue_full_total " << m.rejected_full << "\n";
  o << "# HELP cudal1_judge_seconds_total Seconds the device spent judging.\n"
       "# TYPE cudal1_judge_seconds_total counter\ncudal1_judge_seconds_total " << fmt_number(m.judge_seconds_sum) << "\n";
  o << "# HELP cudal1_job_latency_seconds Submission to result, per judged job.\n"
       "# TYPE cudal1_job_latency_seconds histogram\n";
  for (size_t b = 0; b < m.latency_buckets_s.size(); ++b)
    o << "cudal1_job_latency_seconds_bucket{le=\"" << fmt_number(m.latency_buckets_s[b]) << "\"} " << m.latency_counts[b] << "\n";
  o << "cudal1_job_latency_seconds_bucket{le=\"+Inf\"} " << m.latency_count << "\n";
  o << "cudal1_job_latency_seconds_sum " << fmt_number(m.latency_sum_s) << "\n";
  o << "cudal1_job_latency_seconds_count " << m.latency_count << "\n";
  o << "# HELP cudal1_http_requests_total HTTP requests, by method, route and status.\n"
       "# TYPE cudal1_http_requests_total counter\n";
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [key, n] : requests_by_route) {
    std::istringstream parts(key);
    std::string method, route, status;
    parts >> method >> route >> status;
    o << "cudal1_http_requests_total{method=\"" << method << "\",route=\"" << route << "\",status=\"" << status << "\"} " << n
      << "\n";
  }
  return o.str();
}

void judge_server::impl::add_routes() {
  // Every handler: authorization, then its work; a failure becomes its JSON error.
  auto route = [this](bool open, auto work) {
    return [this, open, work](const httplib::Request& req, httplib::Response& res) {
      answer_json(res, [&] {
        if (!open) authorize(req);
        current_owner = owner_of(req);
        work(req, res);
      });
      count(req, res.status);
    };
  };
  auto body_list = [](const json& body) -> std::vector<json> {
    const json& list = body.is_array() ? body : body.is_object() && body.contains("requests") ? body["requests"] : json();
    if (!list.is_array() || list.empty())
      throw http_failure{400, "a batch is a non-empty list of judge requests (or {\"requests\": [...]})"};
    return std::vector<json>(list.begin(), list.end());
  };

  server.Post("/v1/judge", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    json body = parse_json_body(req);
    auto qs = submit({body}, "judge");
    if (body.is_object() && body.value("wait", true) == false && !qs[0].job_id.empty()) {
      auto v = service->get(qs[0].job_id);
      send_json(res, 202, v ? v->to_json() : json{{"id", qs[0].job_id}});
      return;
    }
    send_json(res, 200, finished(qs[0]));
  }));
  server.Post("/v1/judge/batch", route(false, [this, body_list](const httplib::Request& req, httplib::Response& res) {
    json body = parse_json_body(req);
    json results = wait_all(submit(body_list(body), "judge_batch"));
    json out = {{"results", results}};
    // CUDA-L1's smoothing over a group of samples of one prompt.
    if (body.is_object() && body.value("group", false)) {
      std::vector<double> rewards;
      for (const auto& r : results) rewards.push_back(r.value("reward", 0.0));
      out["group_rewards"] = group_rewards(rewards);
    }
    send_json(res, 200, out);
  }));
  server.Get(R"(/v1/jobs/([A-Za-z0-9-]+))", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    auto v = service->get(req.matches[1]);
    if (!v || v->owner != owner_of(req))  // another client's job is not shown, nor said to exist
      throw http_failure{404, "no job " + std::string(req.matches[1]) + " (finished jobs are kept for a while)"};
    send_json(res, 200, v->to_json());
  }));
  server.Get("/v1/tasks", route(false, [this](const httplib::Request&, httplib::Response& res) {
    json list = json::array();
    for (const auto& t : tasks->tasks()) list.push_back(t.name);
    send_json(res, 200, {{"tasks", list}, {"backend", options.limits.backend}});
  }));
  server.Post("/v1/openrlhf", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    send_json(res, 200, openrlhf(parse_json_body(req)));
  }));
  server.Post("/v1/slime", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    send_json(res, 200, slime(parse_json_body(req)));
  }));
  server.Post("/evaluate", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    send_json(res, 200, kernelgym_evaluate(req, parse_json_body(req)));
  }));
  server.Post("/evaluate/batch", route(false, [this](const httplib::Request& req, httplib::Response& res) {
    json body = parse_json_body(req);
    if (!body.is_object() || !body.contains("tasks") || !body["tasks"].is_array() || body["tasks"].empty())
      throw http_failure{400, "KernelGYM's batch has \"batch_id\" and a non-empty list \"tasks\""};
    json results = json::array();
    // Queued together (compiled in parallel), then waited for in order.
    std::vector<json> ours;
    for (const auto& t : body["tasks"]) {
      ours.push_back(kernelgym_request(t));
      claim_kernelgym_id(req, t["task_id"].get<std::string>(), t);
    }
    auto qs = submit(ours, "kernelgym");
    int completed = 0, failed = 0;
    for (size_t i = 0; i < qs.size(); ++i) {
      const json& t = body["tasks"][i];
      std::string id = t["task_id"].get<std::string>();
      if (!qs[i].job_id.empty()) bind_kernelgym_id(req, id, qs[i].job_id, t);
      json r = kernelgym_result(id, finished(qs[i]));
      (r["status"] == "completed" ? completed : failed)++;
      results.push_back(r);
    }
    send_json(res, 200, {{"batch_id", body.value("batch_id", "")}, {"total_tasks", results.size()},
                         {"completed_tasks", completed}, {"failed_tasks", failed}, {"results", results},
                         {"batch_status", failed ? "failed" : "completed"}});
  }));
  auto kernelgym_lookup = [this](const httplib::Request& req) {
    std::string task_id = req.matches[1];
    std::string job_id;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = kernelgym_ids.find(kernelgym_key(req, task_id));  // only the client's own ids
      if (it == kernelgym_ids.end()) throw http_failure{404, "no task " + task_id};
      job_id = it->second.job_id;
    }
    auto v = service->get(job_id);
    if (!v) throw http_failure{404, "task " + task_id + " is no longer kept"};
    return kernelgym_result(task_id, v->to_json());
  };
  server.Get(R"(/status/([^/]+))", route(false, [kernelgym_lookup](const httplib::Request& req, httplib::Response& res) {
    json r = kernelgym_lookup(req);
    send_json(res, 200, {{"task_id", r["task_id"]}, {"status", r["status"]}});
  }));
  server.Get(R"(/results/([^/]+))", route(false, [kernelgym_lookup](const httplib::Request& req, httplib::Response& res) {
    send_json(res, 200, kernelgym_lookup(req));
  }));
  server.Get("/health", route(true, [this](const httplib::Request&, httplib::Response& res) {
    service_metrics m = service->metrics();
    send_json(res, 200, {{"status", "ok"}, {"backend", options.limits.backend}, {"tasks", tasks->tasks().size()},
                         {"queued", m.queued + m.compiling}, {"running", m.running}});
  }));
  server.Get("/metrics", route(true, [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_text() + (options.extra_metrics ? options.extra_metrics() : ""), "text/plain; version=0.0.4");
  }));
  if (options.extra_routes) options.extra_routes(server);
  // Unknown routes and httplib's own errors leave with a JSON body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    send_error(res, {res.status, res.status == 404 ? "no route for " + req.method + " " + req.path
                                                   : "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path});
    return httplib::Server::HandlerResponse::Handled;
  }));
}

result<std::unique_ptr<judge_server>> judge_server::start(const server_options& options, judge_service& service,
                                                          const task_catalog& tasks) {
  std::unique_ptr<judge_server> s(new judge_server());
  s->impl_ = std::make_unique<impl>();
  s->impl_->options = options;
  s->impl_->service = &service;
  s->impl_->tasks = &tasks;
  s->impl_->add_routes();
  // A request body larger than the code limit allows (JSON escaping, a batch) is refused by httplib (413).
  s->impl_->server.set_payload_max_length(std::max<size_t>(64 << 20, options.limits.max_code_bytes * 8));
  auto bound = s->impl_->server.start_serving(options.host, options.port, options.http_threads, s->impl_->thread);
  if (!bound) return bound.err();
  s->impl_->port = *bound;
  return s;
}

judge_server::~judge_server() { stop(); }

int judge_server::port() const { return impl_->port; }

void judge_server::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->stopping) return;
    impl_->stopping = true;
  }
  impl_->changed.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void judge_server::wait() {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->changed.wait(lock, [this] { return impl_->stopping; });
}

}  // namespace cudal1
