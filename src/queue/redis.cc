#include "queue/redis.h"

#include <hiredis/hiredis.h>

#include <sys/time.h>

#include <cstdlib>

namespace cudal1 {

namespace {

redis_value convert(const redisReply* r) {
  redis_value v;
  if (!r) return v;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      v.type = redis_value::kind::string;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      v.type = redis_value::kind::status;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      v.type = redis_value::kind::error;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      v.type = redis_value::kind::integer;
      v.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      v.type = redis_value::kind::array;
      for (size_t i = 0; i < r->elements; ++i) v.items.push_back(convert(r->element[i]));
      break;
    default:
      break;
  }
  return v;
}

timeval to_timeval(double s) {
  timeval tv;
  tv.tv_sec = static_cast<long>(s);
  tv.tv_usec = static_cast<long>((s - static_cast<double>(tv.tv_sec)) * 1e6);
  return tv;
}

}  // namespace

result<redis_address> parse_redis_url(const std::string& url) {
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0) return make_error("--redis " + url + ": not a redis:// URL (redis://HOST[:PORT][/DB])");
  std::string rest = url.substr(scheme.size());
  redis_address a;
  if (auto at = rest.rfind('@'); at != std::string::npos) {
    std::string auth = rest.substr(0, at);
    a.password = auth.find(':') != std::string::npos ? auth.substr(auth.find(':') + 1) : auth;
    rest = rest.substr(at + 1);
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    std::string db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!db.empty()) {
      char* end = nullptr;
      long n = std::strtol(db.c_str(), &end, 10);
      if (*end || n < 0) return make_error("--redis " + url + ": the database must be a number");
      a.db = static_cast<int>(n);
    }
  }
  if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    char* end = nullptr;
    long p = std::strtol(rest.c_str() + colon + 1, &end, 10);
    if (*end || p <= 0 || p > 65535) return make_error("--redis " + url + ": a bad port");
    a.port = static_cast<int>(p);
    rest = rest.substr(0, colon);
  }
  if (!rest.empty()) a.host = rest;
  return a;
}

result<redis_client> redis_client::connect(const std::string& url, double timeout_s) {
  auto address = parse_redis_url(url);
  if (!address) return address.err();
  redis_client c;
  c.address_ = *address;
  c.url_ = url;
  c.timeout_s_ = timeout_s;
  if (auto s = c.open(); !s) return s.err();
  return c;
}

status redis_client::open() {
  if (ctx_) redisFree(ctx_);
  ctx_ = redisConnectWithTimeout(address_.host.c_str(), address_.port, to_timeval(5));
  if (!ctx_ || ctx_->err) {
    std::string why = ctx_ ? ctx_->errstr : "out of memory";
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    return make_error("cannot reach Redis at " + address_.host + ":" + std::to_string(address_.port) + ": " + why);
  }
  redisSetTimeout(ctx_, to_timeval(timeout_s_));
  auto simple = [&](std::vector<std::string> args) -> status {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) argv.push_back(a.c_str()), lens.push_back(a.size());
    auto* r = static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    redis_value v = convert(r);
    if (r) freeReplyObject(r);
    if (!r) return make_error(std::string("Redis: ") + ctx_->errstr);
    if (v.type == redis_value::kind::error) return make_error("Redis " + args[0] + ": " + v.text);
    return ok_status();
  };
  if (!address_.password.empty())
    if (auto s = simple({"AUTH", address_.password}); !s) return s;
  if (address_.db != 0)
    if (auto s = simple({"SELECT", std::to_string(address_.db)}); !s) return s;
  return ok_status();
}

redis_client::redis_client(redis_client&& o) noexcept
    : address_(std::move(o.address_)), url_(std::move(o.url_)), timeout_s_(o.timeout_s_), ctx_(o.ctx_) {
  o.ctx_ = nullptr;
}

redis_client& redis_client::operator=(redis_client&& o) noexcept {
  if (this != &o) {
    if (ctx_) redisFree(ctx_);
    address_ = std::move(o.address_);
    url_ = std::move(o.url_);
    timeout_s_ = o.timeout_s_;
    ctx_ = o.ctx_;
    o.ctx_ = nullptr;
  }
  return *this;
}

redis_client::~redis_client() {
  if (ctx_) redisFree(ctx_);
}

void redis_client::set_timeout(double seconds) {
  timeout_s_ = seconds;
  if (ctx_) redisSetTimeout(ctx_, to_timeval(seconds));
}

result<redis_value> redis_client::command(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) argv.push_back(a.c_str()), lens.push_back(a.size());
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ || ctx_->err) {
      if (auto s = open(); !s) return s.err();
    }
    auto* r = static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (!r) {  // the connection broke (or a blocking read timed out): reopen and send again
      if (ctx_->err == REDIS_ERR_IO && attempt == 0) {
        redisFree(ctx_);
        ctx_ = nullptr;
        continue;
      }
      std::string why = ctx_->errstr;
      redisFree(ctx_);
      ctx_ = nullptr;
      return make_error("Redis " + args[0] + ": " + why);
    }
    redis_value v = convert(r);
    freeReplyObject(r);
    if (v.type == redis_value::kind::error) return make_error("Redis " + args[0] + ": " + v.text);
    return v;
  }
  return make_error("Redis " + args[0] + ": the connection keeps breaking");
}

}  // namespace cudal1
