// `cudal1 serve`'s HTTP side (cpp-httplib): the routes in one block, bearer
// tokens, JSON errors with their status, and the trainers' request shapes as
// thin adapters over one judge call. Handlers only parse, queue and wait;
// the judge_service judges.
//
// Routes:
//   POST /v1/judge            one request (cudal1's shape)          -> a job
//   POST /v1/judge/batch      {"requests": [...], "group": bool}   -> {"results": [...]}
//   GET  /v1/jobs/ID          a job (asynchronous use: "wait": false)
//   GET  /v1/tasks            the tasks this server judges
//   POST /v1/openrlhf         OpenRLHF's remote reward: {"query", "prompts", "labels"}
//                             -> {"rewards", "scores", "extra_logs"}
//   POST /v1/slime            slime's remote reward: {"prompt", "response", "label"} -> {"reward", ...}
//   POST /evaluate, POST /evaluate/batch, GET /status/ID, GET /results/ID
//                             KernelGYM's API (the reference's code names the task)
//   GET  /health, GET /metrics (Prometheus text)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "serve/requests.h"
#include "serve/service.h"

namespace httplib {
class Server;
}

namespace cudal1 {

struct server_options {
  std::string host = "127.0.0.1";
  int port = 8000;                   // 0: any free port
  std::vector<std::string> tokens;   // accepted bearer tokens; empty: no authentication
  request_limits limits;
  double wait_timeout_s = 3600;      // longest a synchronous request waits for its judgment
  size_t max_batch = 256;            // requests in one batch (a batch route, OpenRLHF's queries); more get 413
  int http_threads = 64;
  /// More routes on the same server (the competition's: src/competition/routes.h),
  /// added after these, and more lines for GET /metrics.
  std::function<void(httplib::Server&)> extra_routes;
  std::function<std::string()> extra_metrics;
};

class judge_server {
 public:
  /// Binds and starts serving on a thread of its own. Errors: the port is in
  /// use, or the host is not an address of this machine.
  static result<std::unique_ptr<judge_server>> start(const server_options& options, judge_service& service,
                                                     const task_catalog& tasks);
  ~judge_server();
  int port() const;
  void stop();
  void wait();  // until stop()

 private:
  judge_server() = default;
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace cudal1
