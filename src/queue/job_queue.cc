#include "queue/job_queue.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/fs.h"
#include "base/json_text.h"

namespace cudal1 {

using nlohmann::json;

namespace {

std::string ms(double seconds) { return std::to_string(static_cast<long long>(std::llround(seconds * 1000))); }

constexpr const char* kResultTtlS = "604800";  // a week

}  // namespace

result<std::string> read_queue_secret(const std::string& file) {
  std::string secret;
  if (!file.empty()) {
    auto text = read_file(file);
    if (!text) return make_error("--redis-secret-file: " + text.message());
    secret = text->substr(0, text->find('\n'));
  } else if (const char* env = std::getenv("CUDAL1_REDIS_SECRET")) {
    secret = env;
  }
  if (secret.empty())
    return make_error("--redis needs a shared secret, the same for the server and its workers: --redis-secret-file FILE "
                      "or $CUDAL1_REDIS_SECRET (jobs and results are signed with it)");
  if (secret.size() < 16) return make_error("the Redis secret is shorter than 16 bytes");
  return secret;
}

std::string job_queue::sign(const std::string& key, const std::string& text) const {
  std::string data = key + '\n' + text;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  std::string hex;
  char b[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, "%02x", mac[i]);
    hex += b;
  }
  return hex;
}

namespace {
bool same_mac(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}
}  // namespace

result<job_queue> job_queue::open(const std::string& url, const std::string& secret, const std::string& prefix) {
  if (secret.empty()) return make_error("the Redis queue needs a shared secret");
  auto c = redis_client::connect(url);
  if (!c) return c.err();
  job_queue q(std::move(*c), secret, prefix);
  auto made = q.redis_.command({"XGROUP", "CREATE", q.stream(), q.group(), "0", "MKSTREAM"});
  if (!made && made.message().find("BUSYGROUP") == std::string::npos) return made.err();
  return q;
}

result<std::string> job_queue::enqueue(const std::string& key, const json& job) {
  // The stream is trimmed to its newest ~100k entries (XADD MAXLEN drops the
  // oldest, judged or not): far above any queue a server allows (--queue-limit).
  std::string text = json_text(job);
  auto id = redis_.command(
      {"XADD", stream(), "MAXLEN", "~", "100000", "*", "key", key, "job", text, "sig", sign(key, text)});
  if (!id) return id.err();
  return id->text;
}

// A stored result is {"result": TEXT, "sig": HMAC(key, TEXT)}.
std::optional<json> job_queue::verified_result(const std::string& key, const std::string& stored) const {
  json wrapper = json::parse(stored, nullptr, false);
  if (!wrapper.is_object() || !wrapper.contains("result") || !wrapper["result"].is_string() || !wrapper.contains("sig") ||
      !wrapper["sig"].is_string())
    return std::nullopt;
  const std::string text = wrapper["result"].get<std::string>();
  if (!same_mac(wrapper["sig"].get<std::string>(), sign(key, text))) return std::nullopt;
  json r = json::parse(text, nullptr, false);
  if (r.is_discarded()) return std::nullopt;
  return r;
}

result<std::optional<json>> job_queue::result_of(const std::string& key) {
  auto v = redis_.command({"GET", prefix_ + ":result:" + key});
  if (!v) return v.err();
  if (v->is_nil()) return std::optional<json>();
  return verified_result(key, v->text);  // a forged or damaged value counts as no result
}

// An entry: [id, [field, value, ...]].
std::optional<queued_job> job_queue::parse_entry(const redis_value& entry) {
  if (entry.type != redis_value::kind::array || entry.items.size() < 2) return std::nullopt;
  queued_job q;
  q.entry_id = entry.items[0].text;
  const auto& fields = entry.items[1].items;
  std::string text, sig;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    if (fields[i].text == "key") q.key = fields[i + 1].text;
    if (fields[i].text == "job") text = fields[i + 1].text;
    if (fields[i].text == "sig") sig = fields[i + 1].text;
  }
  if (q.entry_id.empty()) return std::nullopt;
  if (!same_mac(sig, sign(q.key, text))) {
    // Not the server's: acknowledged so that no worker takes it again, never run.
    std::fprintf(stderr, "cudal1 queue: dropped job %s: its signature is not the server's (is the secret the same?)\n",
                 q.entry_id.c_str());
    (void)redis_.command({"XACK", stream(), group(), q.entry_id});
    return std::nullopt;
  }
  q.job = json::parse(text, nullptr, false);
  return q;
}

result<std::optional<queued_job>> job_queue::next(const std::string& consumer, double block_s, double reclaim_after_s) {
  // A job another worker left behind comes first.
  auto claimed = redis_.command({"XAUTOCLAIM", stream(), group(), consumer, ms(reclaim_after_s), "0-0", "COUNT", "1"});
  if (!claimed) return claimed.err();
  std::optional<queued_job> job;
  if (claimed->items.size() >= 2 && !claimed->items[1].items.empty()) job = parse_entry(claimed->items[1].items[0]);
  if (!job) {
    redis_.set_timeout(block_s + 5);
    auto read = redis_.command({"XREADGROUP", "GROUP", group(), consumer, "COUNT", "1", "BLOCK", ms(block_s), "STREAMS",
                                stream(), ">"});
    redis_.set_timeout(5);
    if (!read) return read.err();
    if (read->is_nil() || read->items.empty() || read->items[0].items.size() < 2 || read->items[0].items[1].items.empty())
      return std::optional<queued_job>();
    job = parse_entry(read->items[0].items[1].items[0]);
  }
  if (!job) return std::optional<queued_job>();
  // How often it was delivered: [[id, consumer, idle, deliveries]].
  auto p = redis_.command({"XPENDING", stream(), group(), job->entry_id, job->entry_id, "1"});
  if (p && !p->items.empty() && p->items[0].items.size() >= 4) job->deliveries = static_cast<int>(p->items[0].items[3].integer);
  return job;
}

status job_queue::keep_alive(const std::string& consumer, const std::string& entry_id) {
  auto r = redis_.command({"XCLAIM", stream(), group(), consumer, "0", entry_id, "JUSTID"});
  if (!r) return r.err();
  return ok_status();
}

status job_queue::finish(const queued_job& job, const json& result) {
  // The first result written stands (a reclaimed job judged twice keeps one).
  // A failure (cudal1 could not judge) is kept ten minutes, long enough for
  // the server to collect it, not a week of answering the same request.
  const char* ttl = result.value("state", "") == "done" ? kResultTtlS : "600";
  const std::string key = prefix_ + ":result:" + job.key;
  auto existing = redis_.command({"GET", key});
  if (!existing) return existing.err();
  if (existing->is_nil() || !verified_result(job.key, existing->text)) {  // a forged value is replaced
    std::string text = json_text(result);
    json wrapper = {{"result", text}, {"sig", sign(job.key, text)}};
    auto set = redis_.command({"SET", key, json_text(wrapper), "EX", ttl});
    if (!set) return set.err();
  }
  auto ack = redis_.command({"XACK", stream(), group(), job.entry_id});
  if (!ack) return ack.err();
  return ok_status();
}

result<long long> job_queue::pending() {
  auto p = redis_.command({"XPENDING", stream(), group()});
  if (!p) return p.err();
  return p->items.empty() ? 0 : p->items[0].integer;
}

}  // namespace cudal1
