// JSON over HTTP, as cudal1's API routes answer (cudal1 serve's and the
// competition's): a failure a handler throws, and how every failure becomes
// {"error": {"message", "status"}} with its status and headers.
#pragma once

#include <exception>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "base/json_text.h"

namespace cudal1 {

/// An error the client sees: its status, a JSON body, Retry-After on 429/503.
struct http_failure {
  int status;
  std::string message;
  int retry_after_s = 0;
};

inline void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(json_text(body), "application/json");
}

/// The failure as its JSON error: WWW-Authenticate on 401, Retry-After where set.
inline void send_error(httplib::Response& res, const http_failure& f) {
  if (f.status == 401) res.set_header("WWW-Authenticate", "Bearer");
  if (f.retry_after_s > 0) res.set_header("Retry-After", std::to_string(f.retry_after_s));
  send_json(res, f.status, {{"error", {{"message", f.message}, {"status", f.status}}}});
}

/// Runs a handler's work; what it throws is answered as a JSON error: its
/// http_failure, a field of the wrong type (400) or anything else (500).
template <class Work>
void answer_json(httplib::Response& res, Work&& work) {
  try {
    work();
  } catch (const http_failure& f) {
    send_error(res, f);
  } catch (const nlohmann::json::exception& e) {
    send_error(res, {400, std::string("a field of the request has the wrong type: ") + e.what()});
  } catch (const std::exception& e) {
    send_error(res, {500, std::string("the server failed: ") + e.what()});
  }
}

/// The request's body as JSON (malformed: 400).
inline nlohmann::json parse_json_body(const httplib::Request& req) {
  try {
    return nlohmann::json::parse(req.body);
  } catch (const nlohmann::json::parse_error& e) {
    throw http_failure{400, std::string("malformed JSON: ") + e.what()};
  }
}

}  // namespace cudal1
