// The LLM client over libcurl's easy interface: one handle per request (so
// chat() may run on several threads at once), the retry loop, and the errors
// a user can act on.
#include "llm/client.h"
#include "base/json_text.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>

namespace cudal1 {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

// curl_global_init must run once before any handle exists, and older libcurls
// do not make it thread-safe: a function-local static runs it exactly once
// even when several optimizer threads send their first request together.
void init_curl_once() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)code;  // a failure shows again, with its reason, at curl_easy_init
}

std::string normalize_base_url(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() < 3 || url.compare(url.size() - 3, 3, "/v1") != 0) url += "/v1";
  return url;
}

std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Text from a server, made fit for a one-line message.
std::string one_line(const std::string& text, size_t max_chars = 200) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

long to_ms(double seconds) { return seconds <= 0 ? 0 : std::max(1L, std::lround(seconds * 1000)); }

// One HTTP exchange, before any judgment on it.
struct http_reply {
  CURLcode code = CURLE_OK;
  std::string curl_reason;  // when code != CURLE_OK
  long status = 0;
  std::string body;
  double retry_after_s = -1;  // the Retry-After header in seconds; -1 when absent
  bool connected = true;      // false: a timeout struck before the connection was made
};

size_t on_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Headers arrive a line at a time; only Retry-After matters (in seconds: the
// HTTP-date form is ignored). A status line starts a new response (after a
// 100 Continue), so it forgets an earlier value.
size_t on_header(char* data, size_t size, size_t n, void* out) {
  auto* reply = static_cast<http_reply*>(out);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) reply->retry_after_s = -1;
  size_t colon = line.find(':');
  if (colon != std::string::npos && to_lower(line.substr(0, colon)) == "retry-after") {
    const char* value = line.c_str() + colon + 1;
    char* end = nullptr;
    double s = std::strtod(value, &end);
    if (end != value && s >= 0 && std::string(end).find_first_not_of(" \t\r\n") == std::string::npos)
      reply->retry_after_s = s;
  }
  return size * n;
}

// libcurl's progress callback: a non-zero return abandons the transfer.
int on_progress(void* opts, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* o = static_cast<const llm_options*>(opts);
  return o->cancelled && o->cancelled() ? 1 : 0;
}

// GET when post_body is null, else POST of that JSON.
http_reply perform(const llm_options& o, const std::string& url, const std::string* post_body) {
  init_curl_once();
  http_reply reply;
  CURL* curl = curl_easy_init();
  if (!curl) {
    reply.code = CURLE_FAILED_INIT;
    reply.curl_reason = "libcurl could not start a request";
    return reply;
  }
  char error_buffer[CURL_ERROR_SIZE] = "";
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip before a long prompt
  if (!o.api_key.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + o.api_key).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  // Timeouts without SIGALRM: signals and threads do not mix.
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, to_ms(o.timeout_s));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, to_ms(o.connect_timeout_s));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply);
  if (o.cancelled) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &o);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  if (post_body) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  reply.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  // A timeout before any connection was made is a server that cannot be
  // reached, not a slow answer.
  if (reply.code == CURLE_OPERATION_TIMEDOUT) {
    double connected = 0;
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME, &connected);
    reply.connected = connected > 0;
  }
  if (reply.code != CURLE_OK) reply.curl_reason = error_buffer[0] ? error_buffer : curl_easy_strerror(reply.code);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return reply;
}

// The message of an error body: OpenAI's {"error": {"message"}}, or the
// {"error": "..."}, {"message"}, {"detail"} other servers use, else the text.
std::string server_message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_object()) {
    if (j.contains("error")) {
      const json& e = j["error"];
      if (e.is_string()) return one_line(e.get<std::string>());
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return one_line(e["message"].get<std::string>());
    }
    for (const char* key : {"message", "detail"})
      if (j.contains(key) && j[key].is_string()) return one_line(j[key].get<std::string>());
  }
  return body.empty() ? "no message" : one_line(body);
}

// What one attempt came to when it failed: its kind, the user's message, and
// whether another attempt may fare better.
struct attempt_failure {
  llm_error_kind kind;
  std::string message;
  bool retry;
};

std::optional<attempt_failure> classify_transport(const http_reply& r, const std::string& url, const llm_options& o) {
  switch (r.code) {
    case CURLE_OK:
      return std::nullopt;
    case CURLE_ABORTED_BY_CALLBACK:
      return attempt_failure{llm_error_kind::cancelled, "the request to " + url + " was abandoned (the run is stopping)", false};
    case CURLE_OPERATION_TIMEDOUT: {
      if (!r.connected) {
        char what[96];
        std::snprintf(what, sizeof what, " within %g s", o.connect_timeout_s);
        return attempt_failure{llm_error_kind::bad_url, "cannot connect to " + url + what + " (" + r.curl_reason +
                                                            "): check the base URL and that the server is running", false};
      }
      char what[96];
      std::snprintf(what, sizeof what, " within %g s", o.timeout_s);
      return attempt_failure{llm_error_kind::timeout, "no complete answer from " + url + what + " (" + r.curl_reason +
                                                          "): raise the timeout or check the server's load", true};
    }
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
      return attempt_failure{llm_error_kind::bad_url, "cannot reach " + url + ": " + r.curl_reason +
                                                          ": check the base URL and that the server is running", false};
    default:  // a dropped connection, a reset, an empty reply: transient as a rule
      return attempt_failure{llm_error_kind::server_error, "the connection to " + url + " failed: " + r.curl_reason, true};
  }
}

bool mentions_missing_model(const std::string& message) {
  std::string m = to_lower(message);
  return m.find("model") != std::string::npos &&
         (m.find("not found") != std::string::npos || m.find("does not exist") != std::string::npos ||
          m.find("not exist") != std::string::npos || m.find("no such") != std::string::npos ||
          m.find("unknown") != std::string::npos);
}

std::optional<attempt_failure> classify_status(const http_reply& r, const std::string& url, const llm_options& o) {
  const long s = r.status;
  if (s == 200) return std::nullopt;
  const std::string http = "HTTP " + std::to_string(s);
  const std::string said = server_message(r.body);
  if (s == 401 || s == 403) {
    std::string m = o.api_key.empty()
                        ? "the server wants an API key (" + http + ") and none was sent: set --api-key-env to a variable holding one"
                        : "the server refused the API key (" + http + "): set --api-key-env to a variable holding a valid key";
    return attempt_failure{llm_error_kind::unauthorized, m + " (server: " + said + ")", false};
  }
  if ((s == 404 || s == 400) && mentions_missing_model(said))
    return attempt_failure{llm_error_kind::model_not_found, said, false};
  if (s == 404)
    return attempt_failure{llm_error_kind::bad_url, url + " answered " + http + " (" + said +
                                                        "): is the base URL an OpenAI-compatible API root (.../v1)?", false};
  if (s == 408) return attempt_failure{llm_error_kind::timeout, url + " answered " + http + " (request timeout): " + said, true};
  if (s == 429)
    return attempt_failure{llm_error_kind::rate_limited, "rate limited (" + http + "): " + said +
                                                             ": send fewer requests at once or raise the retries", true};
  if (s >= 500) return attempt_failure{llm_error_kind::server_error, "the server failed (" + http + "): " + said, true};
  if (s >= 400) return attempt_failure{llm_error_kind::bad_request, "the server rejected the request (" + http + "): " + said, false};
  return attempt_failure{llm_error_kind::bad_url, url + " answered " + http + " where a JSON answer was expected: " +
                                                      "give the base URL the server's final address", false};
}

// Exponential backoff with jitter: several optimizer threads that hit the
// same 429 should not all come back at the same instant. A Retry-After from
// the server wins over the schedule; both are capped.
double backoff_s(const llm_options& o, int attempt, double retry_after_s) {
  if (retry_after_s >= 0) return std::min(retry_after_s, o.backoff_max_s);
  thread_local std::mt19937 rng{std::random_device{}()};
  double wait = o.backoff_initial_s * std::pow(2.0, attempt - 1);
  wait *= std::uniform_real_distribution<double>(1.0, 1.1)(rng);
  return std::min(wait, o.backoff_max_s);
}

template <class T>
using parse_fn = std::variant<T, std::string> (*)(const std::string& body);

// The retry loop shared by chat() and models(): send, classify, parse; wait
// and send again while the failure is transient and retries are left.
template <class T>
std::variant<T, llm_failure> exchange(const llm_options& o, const std::string& url, const std::string* post_body,
                                      parse_fn<T> parse, int* attempts) {
  const auto start = steady::now();
  for (int attempt = 1;; ++attempt) {
    *attempts = attempt;
    http_reply reply = perform(o, url, post_body);
    std::optional<attempt_failure> f = classify_transport(reply, url, o);
    if (!f) f = classify_status(reply, url, o);
    if (!f) {
      std::variant<T, std::string> parsed = parse(reply.body);
      if (parsed.index() == 0) return std::get<0>(std::move(parsed));
      f = attempt_failure{llm_error_kind::malformed,
                          url + " answered HTTP 200 but " + std::get<1>(parsed) + ": is it an OpenAI-compatible server?", true};
    }
    if (!f->retry || attempt > o.max_retries) {
      double seconds = std::chrono::duration<double>(steady::now() - start).count();
      std::string tries = attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "";
      return llm_failure{f->kind, f->message + tries, static_cast<int>(reply.status), attempt, seconds};
    }
    // The backoff, in short steps, so a stopping run need not wait it out.
    const auto until = steady::now() + std::chrono::duration_cast<steady::duration>(
                                           std::chrono::duration<double>(backoff_s(o, attempt, reply.retry_after_s)));
    while (steady::now() < until) {
      if (o.cancelled && o.cancelled()) {
        double seconds = std::chrono::duration<double>(steady::now() - start).count();
        return llm_failure{llm_error_kind::cancelled, "the request to " + url + " was abandoned (the run is stopping)",
                           static_cast<int>(reply.status), attempt, seconds};
      }
      std::this_thread::sleep_for(std::min<steady::duration>(until - steady::now(), std::chrono::milliseconds(50)));
    }
  }
}

// The body is JSON, or why not ("a body that is not JSON (...)").
std::variant<json, std::string> parse_json(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) return "a body that is not JSON (\"" + one_line(body, 80) + "\")";
  if (!j.is_object()) return std::string("a JSON body that is not an object");
  if (j.contains("error") && !j["error"].is_null()) return "an error instead of an answer (" + server_message(body) + ")";
  return j;
}

int64_t count(const json& usage, const char* key) {
  return usage.contains(key) && usage[key].is_number() ? usage[key].get<int64_t>() : 0;
}

std::variant<chat_response, std::string> parse_completion(const std::string& body) {
  auto parsed = parse_json(body);
  if (parsed.index() == 1) return std::get<1>(parsed);
  const json& j = std::get<0>(parsed);
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return std::string("the answer has no choices");
  const json& choice = j["choices"][0];
  chat_response r;
  if (choice.is_object() && choice.contains("finish_reason") && choice["finish_reason"].is_string())
    r.finish_reason = choice["finish_reason"];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object() ||
      !choice["message"].contains("content") || !choice["message"]["content"].is_string())
    return "choices[0].message.content is missing or not text" +
           (r.finish_reason.empty() ? "" : " (finish_reason " + r.finish_reason + ")");
  r.content = choice["message"]["content"];
  if (j.contains("model") && j["model"].is_string()) r.model = j["model"];
  if (j.contains("usage") && j["usage"].is_object()) {
    const json& u = j["usage"];
    r.usage.prompt_tokens = count(u, "prompt_tokens");
    r.usage.completion_tokens = count(u, "completion_tokens");
    r.usage.total_tokens = count(u, "total_tokens");
    if (r.usage.total_tokens == 0) r.usage.total_tokens = r.usage.prompt_tokens + r.usage.completion_tokens;
  }
  return r;
}

std::variant<std::vector<std::string>, std::string> parse_model_list(const std::string& body) {
  auto parsed = parse_json(body);
  if (parsed.index() == 1) return std::get<1>(parsed);
  const json& j = std::get<0>(parsed);
  if (!j.contains("data") || !j["data"].is_array()) return std::string("the model list has no data array");
  std::vector<std::string> ids;
  for (const json& m : j["data"])
    if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"]);
  return ids;
}

// "the server has no model 'X' (...): it offers a, b; ..." with the list when
// the server gives it quickly.
std::string explain_missing_model(const llm_options& o, const std::string& model, const std::string& said) {
  llm_options quick = o;
  quick.timeout_s = std::min(o.timeout_s, 5.0);
  quick.max_retries = 0;
  auto listed = llm_client(quick).models();
  std::string offers;
  if (auto* ids = std::get_if<std::vector<std::string>>(&listed)) {
    for (size_t i = 0; i < ids->size() && i < 12; ++i) offers += (i ? ", " : "") + (*ids)[i];
    if (ids->size() > 12) offers += ", ...";
  }
  return "the server has no model '" + model + "' (" + said + ")" +
         (offers.empty() ? ": check the model name" : ": it offers " + offers + "; name one of them as the model");
}

}  // namespace

const char* to_string(llm_error_kind kind) {
  switch (kind) {
    case llm_error_kind::bad_url: return "bad_url";
    case llm_error_kind::unauthorized: return "unauthorized";
    case llm_error_kind::model_not_found: return "model_not_found";
    case llm_error_kind::bad_request: return "bad_request";
    case llm_error_kind::rate_limited: return "rate_limited";
    case llm_error_kind::server_error: return "server_error";
    case llm_error_kind::timeout: return "timeout";
    case llm_error_kind::malformed: return "malformed";
    case llm_error_kind::cancelled: return "cancelled";
  }
  return "unknown";
}

llm_client::llm_client(llm_options options) : options_(std::move(options)) {
  options_.base_url = normalize_base_url(options_.base_url);
}

std::variant<chat_response, llm_failure> llm_client::chat(const chat_request& request) const {
  const auto start = steady::now();
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  const std::string body = json_text(json{{"model", request.model},
                                          {"messages", messages},
                                          {"temperature", request.temperature},
                                          {"max_tokens", request.max_tokens}});
  int attempts = 0;
  auto out = exchange<chat_response>(options_, options_.base_url + "/chat/completions", &body, parse_completion, &attempts);
  if (auto* failure = std::get_if<llm_failure>(&out)) {
    if (failure->kind == llm_error_kind::model_not_found)
      failure->message = explain_missing_model(options_, request.model, failure->message);
    return out;
  }
  auto& r = std::get<chat_response>(out);
  r.attempts = attempts;
  r.seconds = std::chrono::duration<double>(steady::now() - start).count();
  return out;
}

std::variant<std::vector<std::string>, llm_failure> llm_client::models() const {
  int attempts = 0;
  return exchange<std::vector<std::string>>(options_, options_.base_url + "/models", nullptr, parse_model_list, &attempts);
}

}  // namespace cudal1
