// The replay LLM server: recorded answers served over the OpenAI API, so the
// optimizer's whole loop runs in CI without a model; in record mode it
// forwards each request to a real server and saves the answer.
//
// Answers file (JSON Lines), one entry per line:
//   {"match": "SUBSTRING", "content": "...", "status": 200, "delay_s": 0,
//    "retry_after_s": 2, "body": "raw body instead of a completion",
//    "usage": {"prompt_tokens": N, "completion_tokens": M}, "repeat": false,
//    "request_hash": "..."}
// Every field but one of content/body/status is optional. A request is
// answered by the first entry not yet served (or marked repeat) whose
// request_hash equals the request's (sha256 of model, messages, temperature;
// what record mode writes) or, without a request_hash, whose match occurs in
// the request's last user message (no match: any request). status != 200
// answers with that status and an OpenAI-style error body (429 with
// Retry-After when retry_after_s is set); delay_s waits before answering
// (tests of timeouts). No entry left: 503 with an error saying so.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

struct replay_options {
  std::string answers_path;  // read at start; in record mode appended to
  std::string host = "127.0.0.1";
  int port = 0;              // 0: any free port (see replay_server::port())
  std::string record_url;    // non-empty: record mode, forward here
  std::string record_api_key;
  std::vector<std::string> models = {"replay"};  // what GET /v1/models lists; any model name is accepted
};

class replay_server {
 public:
  /// Loads the answers (a clear error for a missing file or a bad line, with
  /// its number) and binds; serving starts on a thread of its own.
  static result<std::unique_ptr<replay_server>> start(const replay_options& options);
  ~replay_server();  // stops and joins
  int port() const;
  std::string base_url() const;  // http://HOST:PORT/v1
  int requests_served() const;  // chat completion requests received, answered or not
  int answer_count() const;      // entries in the answers file (at start; record mode adds none)
  void stop();
  /// Blocks until stop() (or a signal handler calling it).
  void wait();

 private:
  replay_server() = default;
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace cudal1
