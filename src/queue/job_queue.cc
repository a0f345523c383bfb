#include "queue/job_queue.h"

#include <cmath>

namespace cudal1 {

using nlohmann::json;

namespace {

std::string ms(double seconds) { return std::to_string(static_cast<long long>(std::llround(seconds * 1000))); }

constexpr const char* kResultTtlS = "604800";  // a week

}  // namespace

result<job_queue> job_queue::open(const std::string& url, const std::string& prefix) {
  auto c = redis_client::connect(url);
  if (!c) return c.err();
  job_queue q(std::move(*c), prefix);
  auto made = q.redis_.command({"XGROUP", "CREATE", q.stream(), q.group(), "0", "MKSTREAM"});
  if (!made && made.message().find("BUSYGROUP") == std::string::npos) return made.err();
  return q;
}

result<std::string> job_queue::enqueue(const std::string& key, const json& job) {
  // The stream is trimmed to the newest ~100k entries; pending ones are kept
  // by the group even when trimmed from the stream's head? No: XADD MAXLEN
  // trims entries, so the limit is far above any queue this server allows.
  auto id = redis_.command({"XADD", stream(), "MAXLEN", "~", "100000", "*", "key", key, "job", job.dump()});
  if (!id) return id.err();
  return id->text;
}

result<std::optional<json>> job_queue::result_of(const std::string& key) {
  auto v = redis_.command({"GET", prefix_ + ":result:" + key});
  if (!v) return v.err();
  if (v->is_nil()) return std::optional<json>();
  json j = json::parse(v->text, nullptr, false);
  if (j.is_discarded()) return make_error("the result of " + key + " in Redis is not JSON");
  return std::optional<json>(std::move(j));
}

// An entry: [id, [field, value, ...]].
std::optional<queued_job> job_queue::parse_entry(const redis_value& entry) {
  if (entry.type != redis_value::kind::array || entry.items.size() < 2) return std::nullopt;
  queued_job q;
  q.entry_id = entry.items[0].text;
  const auto& fields = entry.items[1].items;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    if (fields[i].text == "key") q.key = fields[i + 1].text;
    if (fields[i].text == "job") q.job = json::parse(fields[i + 1].text, nullptr, false);
  }
  if (q.entry_id.empty()) return std::nullopt;
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
  auto set = redis_.command({"SET", prefix_ + ":result:" + job.key, result.dump(), "NX", "EX", kResultTtlS});
  if (!set) return set.err();
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
