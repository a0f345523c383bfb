#include "worker/channel.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/fs.h"

namespace cudal1 {

using json = nlohmann::json;

result<worker_channel> worker_channel::start(const worker_spawn& spawn) {
  auto p = child_process::spawn(spawn);
  if (!p) return p.err();
  return worker_channel(std::move(*p), spawn.log_path);
}

worker_channel worker_channel::adopt(child_process process, std::string log_path) {
  return worker_channel(std::move(process), std::move(log_path));
}

worker_reply worker_channel::receive(double timeout_s) {
  worker_reply r;
  auto start = std::chrono::steady_clock::now();
  if (!alive_) {
    r.what = worker_reply::kind::died;
    r.exit = process_.kill_and_wait();
    return r;
  }
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_s));
  std::string line;
  auto st = process_.read_line(deadline, &line);
  r.wall_ms = seconds_since(start) * 1e3;
  if (st == child_process::read_status::timeout) {
    r.what = worker_reply::kind::timeout;
    r.exit = process_.kill_and_wait();
    alive_ = false;
    return r;
  }
  if (st == child_process::read_status::closed) {
    r.what = worker_reply::kind::died;
    r.exit = process_.wait_or_kill(5.0);
    alive_ = false;
    return r;
  }
  r.body = json::parse(line, nullptr, false);
  if (r.body.is_discarded() || !r.body.is_object()) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "malformed reply from worker: " + line.substr(0, 200)}};
    return r;
  }
  r.what = r.body.value("ok", false) ? worker_reply::kind::ok : worker_reply::kind::failed;
  return r;
}

status worker_channel::send(const json& cmd) {
  if (!alive_) return make_error("worker has ended");
  return process_.send_line(cmd.dump());
}

worker_reply worker_channel::request(const json& cmd, double timeout_s) {
  auto start = std::chrono::steady_clock::now();
  // Every request carries a fresh id that its reply must echo: a line that
  // something else in the worker's process wrote is not taken for a reply.
  json tagged = cmd;
  uint64_t id = next_id_() >> 11;  // 53 bits: exact in any JSON reader
  tagged["id"] = id;
  // A failed write means the worker is gone: receive() then reports how it ended.
  (void)send(tagged);
  worker_reply r = receive(timeout_s);
  r.wall_ms = seconds_since(start) * 1e3;
  if ((r.what == worker_reply::kind::ok || r.what == worker_reply::kind::failed) && r.body.value("kind", "") != "protocol" &&
      (!r.body.contains("id") || !r.body["id"].is_number_unsigned() || r.body["id"].get<uint64_t>() != id)) {
    std::string line = r.body.dump();
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "a reply without the request's id: " + line.substr(0, 200)}};
  }
  return r;
}

void worker_channel::stop() {
  if (alive_) {
    if (process_.send_line(json{{"op", "quit"}}.dump())) {
      std::string line;
      process_.read_line(std::chrono::steady_clock::now() + std::chrono::seconds(5), &line);
    }
    process_.wait_or_kill(5.0);
    alive_ = false;
  } else {
    process_.kill_and_wait();
  }
}

void worker_channel::kill() {
  process_.kill_and_wait();
  alive_ = false;
}

std::string worker_channel::log_tail(int lines) const {
  // The end of the log only, each line cut short: a candidate may print
  // hundreds of megabytes, on one line.
  constexpr std::streamoff kTailBytes = 8192;
  constexpr size_t kLineChars = 240;
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  std::istringstream split(tail_lines(text, lines));
  for (std::string line; std::getline(split, line);)
    out += (line.size() > kLineChars ? line.substr(0, kLineChars) + "... (cut)" : line) + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace cudal1
