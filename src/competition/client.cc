#include "competition/client.h"

#include <regex>

#include <httplib.h>

#include "base/json_text.h"

namespace cudal1 {

using nlohmann::json;

result<competition_reply> competition_call(const std::string& base_url, const std::string& method, const std::string& path,
                                           const std::string& token, const json& body, double timeout_s) {
  static const std::regex url_form(R"((https?://[^/?#]+)(/[^?#]*)?)");
  std::smatch m;
  if (!std::regex_match(base_url, m, url_form))
    return make_error("--server " + base_url + " is not a URL like http://HOST:PORT");
  std::string prefix = m[2].matched ? m[2].str() : "";
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  httplib::Client http(m[1].str());
  http.set_connection_timeout(10);
  auto whole = static_cast<time_t>(timeout_s);
  http.set_read_timeout(whole, 0);
  http.set_write_timeout(60, 0);
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  httplib::Result res = method == "POST" ? http.Post(prefix + path, headers, json_text(body), "application/json")
                                         : http.Get(prefix + path, headers);
  if (!res) {
    std::string why = res.error() == httplib::Error::Connection ? "cannot connect (is cudal1 serve --competition running there?)"
                      : res.error() == httplib::Error::Read    ? "no reply within " + std::to_string(whole) + " s, or the connection dropped"
                                                               : "HTTP error: " + httplib::to_string(res.error());
    return make_error(base_url + ": " + why);
  }
  competition_reply r;
  r.status = res->status;
  try {
    r.body = json::parse(res->body);
  } catch (const json::parse_error&) {
    return make_error(base_url + " answered HTTP " + std::to_string(res->status) + " with no JSON: is it a cudal1 serve --competition?");
  }
  if (res->has_header("Retry-After")) {
    try {
      r.retry_after_s = std::stoi(res->get_header_value("Retry-After"));
    } catch (const std::exception&) {
    }
  }
  return r;
}

std::string reply_error(const competition_reply& r) {
  if (r.body.is_object() && r.body.contains("error") && r.body["error"].is_object() &&
      r.body["error"].contains("message") && r.body["error"]["message"].is_string())
    return r.body["error"]["message"];
  return "HTTP " + std::to_string(r.status);
}

}  // namespace cudal1
