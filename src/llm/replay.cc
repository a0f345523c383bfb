// The replay LLM server over cpp-httplib: the answers file, the choice of an
// entry for a request, OpenAI-shaped answers and errors, record mode.
#include "llm/replay.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include "base/fs.h"
#include "base/http_server.h"
#include "base/json_text.h"
#include "base/sha256.h"
#include "llm/client.h"

namespace cudal1 {
namespace {

using json = nlohmann::json;

struct answer_entry {
  int line = 0;  // in the answers file, for messages
  std::string match, request_hash, content, body;
  bool has_content = false, has_body = false;
  int status = 200;
  double delay_s = 0;
  double retry_after_s = -1;  // -1: no Retry-After header
  json usage;                 // null when not given
  bool repeat = false;
  bool served = false;
};

// One line of the answers file; json's type errors name the field.
result<answer_entry> parse_entry(const json& j, int line) {
  if (!j.is_object()) return make_error("not a JSON object");
  answer_entry e;
  e.line = line;
  try {
    e.match = j.value("match", "");
    e.request_hash = j.value("request_hash", "");
    e.has_content = j.contains("content");
    if (e.has_content) e.content = j["content"].get<std::string>();
    e.has_body = j.contains("body");
    if (e.has_body) e.body = j["body"].get<std::string>();
    e.status = j.value("status", 200);
    e.delay_s = j.value("delay_s", 0.0);
    e.retry_after_s = j.value("retry_after_s", -1.0);
    e.repeat = j.value("repeat", false);
    if (j.contains("usage")) e.usage = j["usage"];
  } catch (const json::exception& ex) {
    return make_error(std::string("a field of the wrong type: ") + ex.what());
  }
  if (!e.has_content && !e.has_body && e.status == 200) return make_error("needs content, body or a status other than 200");
  if (e.status < 100 || e.status > 599) return make_error("status " + std::to_string(e.status) + " is not an HTTP status");
  if (!e.usage.is_null() && !e.usage.is_object()) return make_error("usage must be an object");
  for (const char* key : {"prompt_tokens", "completion_tokens", "total_tokens"})
    if (e.usage.is_object() && e.usage.contains(key) && !e.usage[key].is_number_integer())
      return make_error(std::string("usage.") + key + " must be an integer");
  return e;
}

// Blank lines are skipped. In record mode a missing file is an empty one.
result<std::vector<answer_entry>> load_answers(const std::string& path, bool record_mode) {
  if (record_mode && !file_exists(path)) return std::vector<answer_entry>{};
  std::ifstream in(path);
  if (!in) return make_error("cannot read the answers file " + path + ": " + (file_exists(path) ? "not readable" : "no such file"));
  std::vector<answer_entry> entries;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(text, nullptr, false);
    auto e = j.is_discarded() ? result<answer_entry>(make_error("not JSON")) : parse_entry(j, line);
    if (!e) return make_error(path + ":" + std::to_string(line) + ": " + e.message());
    entries.push_back(std::move(*e));
  }
  return entries;
}

// A message's content as text: a string, or the text parts of a list.
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const json& part : content)
      if (part.is_object() && part.value("type", "") == "text") text += part.value("text", "");
  return text;
}

// sha256 of model, each message's role and content, and the temperature, with
// NUL separators: what record mode writes and a replay matches.
std::string hash_request(const json& request) {
  sha256 h;
  const std::string_view nul("\0", 1);
  h.update(request.value("model", ""));
  h.update(nul);
  for (const json& m : request["messages"]) {
    h.update(m.value("role", ""));
    h.update(nul);
    h.update(content_text(m.contains("content") ? m["content"] : json()));
    h.update(nul);
  }
  char temperature[32];
  std::snprintf(temperature, sizeof temperature, "%.3f", request.value("temperature", 1.0));  // OpenAI's default
  h.update(temperature);
  return h.hex_digest();
}

std::string last_user_message(const json& request) {
  const json& messages = request["messages"];
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->value("role", "") == "user") return content_text(it->contains("content") ? (*it)["content"] : json());
  return "";
}

// Why a request is not a chat completion request, or "".
std::string check_request(const json& request) {
  if (!request.is_object()) return "the request body is not a JSON object";
  if (!request.contains("messages") || !request["messages"].is_array()) return "the request has no messages array";
  for (const json& m : request["messages"])
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) return "a message without a role";
  if (request.contains("model") && !request["model"].is_string()) return "model must be a string";
  if (request.contains("temperature") && !request["temperature"].is_number()) return "temperature must be a number";
  return "";
}

json error_body(const std::string& message, int status, const std::string& code) {
  const char* type = status == 401 ? "authentication_error"
                     : status == 403 ? "permission_error"
                     : status == 404 ? "not_found_error"
                     : status == 429 ? "rate_limit_error"
                     : status >= 500 ? "server_error"
                                     : "invalid_request_error";
  return {{"error", {{"message", message}, {"type", type}, {"code", code.empty() ? json() : json(code)}}}};
}

void send_error(httplib::Response& res, int status, const std::string& message, const std::string& code = "") {
  res.status = status;
  res.set_content(json_text(error_body(message, status, code)), "application/json");
}

int64_t estimate_tokens(size_t bytes) { return static_cast<int64_t>((bytes + 3) / 4); }

// The entry's usage where given; each count it lacks estimated as bytes / 4.
json usage_for(const answer_entry& e, const json& request) {
  size_t prompt_bytes = 0;
  for (const json& m : request["messages"]) prompt_bytes += content_text(m.contains("content") ? m["content"] : json()).size();
  const json& u = e.usage.is_object() ? e.usage : json::object();
  int64_t prompt = u.value("prompt_tokens", estimate_tokens(prompt_bytes));
  int64_t completion = u.value("completion_tokens", estimate_tokens(e.content.size()));
  return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", u.value("total_tokens", prompt + completion)}};
}

json completion_body(const std::string& model, const std::string& content, const json& usage, int serial) {
  json choice = {{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}};
  return {{"id", "chatcmpl-replay-" + std::to_string(serial)},
          {"object", "chat.completion"},
          {"created", static_cast<int64_t>(std::time(nullptr))},
          {"model", model},
          {"choices", json::array({choice})},
          {"usage", usage}};
}



}  // namespace

struct replay_server::impl {
  replay_options options;
  http_server server;
  std::thread thread;
  int port = 0;
  std::atomic<int> served{0};
  std::unique_ptr<llm_client> upstream;  // record mode only

  std::mutex mutex;  // guards everything below
  std::condition_variable changed;
  std::vector<answer_entry> entries;
  bool stopping = false;

  void add_routes();
  status listen();
  void handle_chat(const httplib::Request& req, httplib::Response& res);
  std::optional<answer_entry> take_entry(const std::string& hash, const std::string& last_user);
  void serve_entry(const answer_entry& e, const json& request, int serial, httplib::Response& res);
  void record(const json& request, const std::string& hash, httplib::Response& res);
  bool sleep_unless_stopping(double seconds);
  void stop();
};

void replay_server::impl::add_routes() {
  auto chat = [this](const httplib::Request& req, httplib::Response& res) { handle_chat(req, res); };
  server.Post("/v1/chat/completions", chat);
  server.Post("/chat/completions", chat);
  server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    json data = json::array();
    for (const auto& m : options.models) data.push_back({{"id", m}, {"object", "model"}, {"owned_by", "cudal1-replay"}});
    res.set_content(json_text(json{{"object", "list"}, {"data", data}}), "application/json");
  });
  server.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    res.set_content(json_text(json{{"status", "ok"}, {"answers", entries.size()}, {"requests_served", served.load()}}),
                    "application/json");
  });
  // Every error, ours or httplib's (an unknown route), leaves with a JSON body.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = res.status == 404 ? "no route for " + req.method + " " + req.path +
                                                  " (this replay server answers POST /v1/chat/completions, GET /v1/models, GET /health)"
                                            : "HTTP " + std::to_string(res.status) + " for " + req.method + " " + req.path;
    send_error(res, res.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, "the replay server failed: " + what);
  });
}

status replay_server::impl::listen() {
  add_routes();
  // Requests with a delay_s sleep on a pool thread: enough of them that a
  // slow answer never holds up the others.
  auto bound = server.start_serving(options.host, options.port, std::max(16u, std::thread::hardware_concurrency()), thread);
  if (!bound) return bound.err();
  port = *bound;
  return ok_status();
}

bool replay_server::impl::sleep_unless_stopping(double seconds) {
  std::unique_lock<std::mutex> lock(mutex);
  return !changed.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping; });
}

// The first entry not yet served (or marked repeat) whose request_hash is the
// request's or, without one, whose match is in the last user message.
std::optional<answer_entry> replay_server::impl::take_entry(const std::string& hash, const std::string& last_user) {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& e : entries) {
    if (e.served && !e.repeat) continue;
    bool fits = !e.request_hash.empty() ? e.request_hash == hash : last_user.find(e.match) != std::string::npos;
    if (!fits) continue;
    e.served = true;
    return e;
  }
  return std::nullopt;
}

void replay_server::impl::handle_chat(const httplib::Request& req, httplib::Response& res) {
  const int serial = ++served;
  json request = json::parse(req.body, nullptr, false);
  if (request.is_discarded()) return send_error(res, 400, "the request body is not JSON", "invalid_json");
  if (std::string why = check_request(request); !why.empty()) return send_error(res, 400, why, "invalid_request");
  const std::string hash = hash_request(request);
  if (upstream) return record(request, hash, res);
  std::optional<answer_entry> e = take_entry(hash, last_user_message(request));
  if (!e)
    return send_error(res, 503, "the replay has no answer left for this request (request_hash " + hash +
                                    "): every entry that fits was served; add entries or mark one repeat", "replay_exhausted");
  if (e->delay_s > 0 && !sleep_unless_stopping(e->delay_s)) return send_error(res, 503, "the replay server is stopping");
  serve_entry(*e, request, serial, res);
}

// The entry's raw body, its error status, or a completion of its content.
void replay_server::impl::serve_entry(const answer_entry& e, const json& request, int serial, httplib::Response& res) {
  if (e.retry_after_s >= 0) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", e.retry_after_s);
    res.set_header("Retry-After", value);
  }
  if (e.has_body) {
    res.status = e.status;
    res.set_content(e.body, "application/json");
  } else if (e.status != 200) {
    send_error(res, e.status, e.has_content ? e.content : "replayed HTTP " + std::to_string(e.status));
  } else {
    json usage = usage_for(e, request);
    res.set_content(json_text(completion_body(request.value("model", ""), e.content, usage, serial)), "application/json");
  }
}

// Record mode: the upstream server answers; the answer is appended to the
// answers file under the request's hash, then served.
void replay_server::impl::record(const json& request, const std::string& hash, httplib::Response& res) {
  chat_request forward;
  forward.model = request.value("model", "");
  forward.temperature = request.value("temperature", 1.0);
  forward.max_tokens = request.value("max_tokens", forward.max_tokens);
  for (const json& m : request["messages"])
    forward.messages.push_back({m.value("role", ""), content_text(m.contains("content") ? m["content"] : json())});
  auto answer = upstream->chat(forward);
  if (auto* failure = std::get_if<llm_failure>(&answer))
    return send_error(res, failure->http_status >= 400 ? failure->http_status : 502,
                      "record: the upstream server failed: " + failure->message, to_string(failure->kind));
  const chat_response& r = std::get<chat_response>(answer);
  json usage = {{"prompt_tokens", r.usage.prompt_tokens},
                {"completion_tokens", r.usage.completion_tokens},
                {"total_tokens", r.usage.total_tokens}};
  json line = {{"request_hash", hash}, {"match", ""}, {"content", r.content}, {"usage", usage}};
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::ofstream out(options.answers_path, std::ios::app);
    out << json_text(line) << "\n";
    if (!out.flush()) return send_error(res, 500, "record: cannot append to " + options.answers_path);
  }
  res.set_content(json_text(completion_body(forward.model, r.content, usage, served.load())), "application/json");
}

void replay_server::impl::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return;
    stopping = true;
  }
  changed.notify_all();  // wakes delayed answers and wait()
  server.stop();
  if (thread.joinable()) thread.join();
}

result<std::unique_ptr<replay_server>> replay_server::start(const replay_options& options) {
  auto entries = load_answers(options.answers_path, !options.record_url.empty());
  if (!entries) return entries.err();
  std::unique_ptr<replay_server> s(new replay_server());
  s->impl_ = std::make_unique<impl>();
  s->impl_->options = options;
  s->impl_->entries = std::move(*entries);
  if (!options.record_url.empty()) {
    llm_options upstream;
    upstream.base_url = options.record_url;
    upstream.api_key = options.record_api_key;
    s->impl_->upstream = std::make_unique<llm_client>(upstream);
  }
  if (status st = s->impl_->listen(); !st) return st.err();
  return result<std::unique_ptr<replay_server>>(std::move(s));
}

replay_server::~replay_server() {
  if (impl_) impl_->stop();
}

int replay_server::port() const { return impl_->port; }

std::string replay_server::base_url() const {
  const std::string& host = impl_->options.host;
  const bool ipv6 = host.find(':') != std::string::npos;  // a URL wants [::1]
  return "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port) + "/v1";
}

int replay_server::requests_served() const { return impl_->served.load(); }

int replay_server::answer_count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<int>(impl_->entries.size());
}

void replay_server::stop() { impl_->stop(); }

void replay_server::wait() {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->changed.wait(lock, [this] { return impl_->stopping; });
}

}  // namespace cudal1
