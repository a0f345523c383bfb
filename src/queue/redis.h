// A Redis connection (hiredis, linked statically so that cudal1 runs where
// the library is not installed): commands as argument lists, replies as
// values, one reconnect on a broken connection.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

struct redisContext;

namespace cudal1 {

struct redis_value {
  enum class kind { nil, string, integer, array, status, error };
  kind type = kind::nil;
  std::string text;  // string, status, error
  long long integer = 0;
  std::vector<redis_value> items;  // array
  bool is_nil() const { return type == kind::nil; }
};

struct redis_address {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;
  int db = 0;
};

/// redis://[:PASSWORD@]HOST[:PORT][/DB]; errors name what is wrong.
result<redis_address> parse_redis_url(const std::string& url);

class redis_client {
 public:
  /// Connects (AUTH and SELECT as the URL says). Errors: a bad URL, no
  /// server there, a refused password.
  static result<redis_client> connect(const std::string& url, double timeout_s = 5);
  redis_client(redis_client&&) noexcept;
  redis_client& operator=(redis_client&&) noexcept;
  ~redis_client();

  /// One command; a Redis error reply is an error. A broken connection is
  /// reopened once and the command sent again (commands here are idempotent
  /// or reclaimed by the queue's rules).
  result<redis_value> command(const std::vector<std::string>& args);
  /// The read timeout for blocking commands (XREADGROUP BLOCK): seconds.
  void set_timeout(double seconds);
  const std::string& url() const { return url_; }

 private:
  redis_client() = default;
  status open();
  redis_address address_;
  std::string url_;
  double timeout_s_ = 5;
  redisContext* ctx_ = nullptr;
};

}  // namespace cudal1
