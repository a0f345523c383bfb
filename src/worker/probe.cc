#include "worker/probe.h"

#include "base/fs.h"
#include "worker/channel.h"

namespace cudal1 {

result<nlohmann::json> probe_device(const std::string& backend) {
  std::string worker = executable_dir() + "/cudal1-worker";
  if (!is_executable(worker)) return make_error("cudal1-worker not found beside cudal1 (" + worker + ")");
  auto scratch = make_temp_dir("cudal1-probe");
  if (!scratch) return scratch.err();
  worker_spawn spawn;
  spawn.argv = {worker, "--backend", backend};
  spawn.log_path = *scratch + "/worker.log";
  auto ch = worker_channel::start(spawn);
  if (!ch) {
    remove_tree(*scratch);
    return ch.err();
  }
  worker_reply hello = ch->receive(120);
  ch->stop();
  remove_tree(*scratch);
  if (hello.what != worker_reply::kind::ok)
    return make_error(hello.what == worker_reply::kind::failed ? hello.message() : "worker " + hello.exit.describe());
  return hello.body["device"];
}

}  // namespace cudal1
