// The LLM client: OpenAI-compatible chat completions over HTTP(S) (libcurl),
// as vLLM, SGLang, llama.cpp's server, ollama and hosted APIs serve them.
//
// Timeouts, retries with exponential backoff on 429 and 5xx (a Retry-After
// header is honoured), token accounting from the answer's `usage`, and clear
// errors for what a user can fix: a bad URL, a refused key, a model the
// server does not have.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

struct chat_message {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct chat_request {
  std::string model;
  std::vector<chat_message> messages;
  double temperature = 0.7;
  int max_tokens = 8192;
};

struct token_usage {
  int64_t prompt_tokens = 0, completion_tokens = 0, total_tokens = 0;
};

struct chat_response {
  std::string content;        // choices[0].message.content
  std::string finish_reason;  // "stop", "length", ...
  std::string model;          // as the server names it
  token_usage usage;
  int attempts = 1;           // requests sent (1 + retries)
  double seconds = 0;         // wall time, retries and waits included
};

/// Why a request failed, for the caller to decide (the optimizer records a
/// failed request and goes on for transient kinds; it stops for the others).
enum class llm_error_kind {
  bad_url,          // unparsable URL, unknown host, connection refused
  unauthorized,     // 401/403: the key is missing or refused
  model_not_found,  // 404 naming the model, or a model not in /v1/models
  bad_request,      // other 4xx: the server rejected the request (message kept)
  rate_limited,     // 429 after every retry
  server_error,     // 5xx after every retry
  timeout,          // no complete answer within the timeout, after every retry
  malformed,        // 200 with a body that is not a chat completion
  cancelled,        // options.cancelled() said so
};
const char* to_string(llm_error_kind kind);

struct llm_failure {
  llm_error_kind kind;
  std::string message;  // one line for the user: what happened and what to do
  int http_status = 0;
  int attempts = 0;
  double seconds = 0;
};

struct llm_options {
  std::string base_url;        // e.g. http://127.0.0.1:8000/v1 (".../v1" may be omitted)
  std::string api_key;         // sent as "Authorization: Bearer ..." when not empty
  double timeout_s = 600;      // one request, whole
  double connect_timeout_s = 10;
  int max_retries = 4;         // on 429, 5xx, timeouts and dropped connections
  double backoff_initial_s = 1;
  double backoff_max_s = 60;   // also caps a Retry-After
  /// Polled during a request and its backoff waits: true abandons the
  /// request at once (a failure of kind `cancelled`).
  std::function<bool()> cancelled;
};

class llm_client {
 public:
  explicit llm_client(llm_options options);
  const llm_options& options() const { return options_; }
  /// POST {base}/chat/completions. Either the answer or why not.
  std::variant<chat_response, llm_failure> chat(const chat_request& request) const;
  /// GET {base}/models: the model ids the server lists.
  std::variant<std::vector<std::string>, llm_failure> models() const;

 private:
  llm_options options_;
};

}  // namespace cudal1
