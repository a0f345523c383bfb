// The entrant's side of a competition server (`cudal1 submit`): one JSON
// request to its API with the entrant's bearer token. The HTTP library stays
// in client.cc.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace cudal1 {

struct competition_reply {
  int status = 0;
  nlohmann::json body;  // the reply's JSON (an error is {"error": {"message", "status"}})
  int retry_after_s = 0;
};

/// `method` ("GET" or "POST") `path` on the server at `base_url`
/// (http[s]://HOST[:PORT][/PREFIX]), with "Authorization: Bearer token"
/// when `token` is not empty and `body` as JSON when not null. Errors: a URL
/// that is not http(s), no connection (the reason), no reply within
/// `timeout_s`, a reply that is not JSON.
result<competition_reply> competition_call(const std::string& base_url, const std::string& method, const std::string& path,
                                           const std::string& token, const nlohmann::json& body, double timeout_s);

/// The message of an error reply, or "HTTP status" when it has none.
std::string reply_error(const competition_reply& r);

}  // namespace cudal1
