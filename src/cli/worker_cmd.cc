// cudal1 worker: one GPU's judge on the Redis queue that `cudal1 serve --redis` fills.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cli/commands.h"
#include "cli/options.h"
#include "queue/job_queue.h"
#include "queue/worker.h"

namespace cudal1 {
namespace {

constexpr const char* kWorkerHelp = R"(usage: cudal1 worker --redis URL [--device N] [options] [judge options]

Judges the jobs that `cudal1 serve --redis URL` puts on a Redis stream: one
worker per GPU, on any host that reaches the Redis server (the job carries the
task and the code; nothing else is shared). It takes one job at a time, so
each device times one judgment at a time, keeps the job claimed while it
judges, and writes the result under the job's content hash. A job whose
worker died is taken over by another after --reclaim-after seconds and judged
again; a job that already has a result is acknowledged without judging.

  --redis URL          redis://HOST[:PORT][/DB] (required)
  --prefix P           the queue's key prefix (default cudal1; the server's --redis-prefix)
  --redis-secret-file FILE  the secret shared with the server (first line; else
                       $CUDAL1_REDIS_SECRET): a job without the server's
                       signature is dropped, never run
  --device N           the GPU this worker judges on (CUDA_VISIBLE_DEVICES=N; with
                       --cpu auto, both workers are pinned to CPU (last - N))
  --name NAME          this worker's name in the consumer group (default HOST-PID)
  --reclaim-after S    seconds a job may go without a keep-alive before another
                       worker takes it over (default 60; keep-alives every S/3)
  --max-deliveries N   a job delivered more often ends failed (default 3)
  --max-jobs N         stop after N jobs (default: run until SIGINT or SIGTERM)

Stops on SIGINT or SIGTERM after the judgment in flight. Exit status: 0 when
stopped; 2 for unusable input (a bad option, Redis unreachable at start).
)";

}  // namespace

int run_worker_cmd(const args_t& args) {
  worker_options o;
  option_reader r{args, 0, ""};
  int device = -1;
  std::string redis_secret_file;
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s", kWorkerHelp);
      return 0;
    } else if (flag == "--redis") ok = r.value(&o.redis_url);
    else if (flag == "--prefix") ok = r.value(&o.prefix);
    else if (flag == "--redis-secret-file") ok = r.value(&redis_secret_file);
    else if (flag == "--device") ok = r.integer(&device, 0);
    else if (flag == "--name") ok = r.value(&o.consumer);
    else if (flag == "--reclaim-after") ok = r.number(&o.reclaim_after_s, 1);
    else if (flag == "--max-deliveries") ok = r.integer(&o.max_deliveries, 1);
    else if (flag == "--max-jobs") ok = r.integer(&o.max_jobs, 1);
    else if (read_judge_option(r, o.judge, &ok)) {
    } else return usage_error("unknown argument " + a + " (see cudal1 worker --help)");
    if (!ok) return usage_error(r.error);
  }
  if (o.redis_url.empty()) return usage_error("worker needs --redis URL (see cudal1 worker --help)");
  auto secret = read_queue_secret(redis_secret_file);
  if (!secret) return usage_error(secret.message());
  o.secret = *secret;
  if (device >= 0) {
    setenv("CUDA_VISIBLE_DEVICES", std::to_string(device).c_str(), 1);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (o.judge.cpu == "auto" && cpus > device) o.judge.cpu = std::to_string(cpus - 1 - device);
  }
  if (o.judge.backend == "auto") o.judge.backend = auto_backend();
  sigset_t stop_signals = block_stop_signals();
  static std::atomic<bool> stop{false};
  std::thread([stop_signals]() mutable {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::fprintf(stderr, "cudal1 worker: stopping after the judgment in flight\n");
    stop = true;
  }).detach();
  auto n = run_worker(o, &stop);
  if (!n) return usage_error("worker: " + n.message());
  std::fprintf(stderr, "cudal1 worker: stopped after %d jobs\n", *n);
  return 0;
}

}  // namespace cudal1
