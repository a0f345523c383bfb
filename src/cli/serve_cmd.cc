// cudal1 serve: the judge behind HTTP, in cudal1's shape and the trainers'.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>

#include "base/fs.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "competition/routes.h"
#include "queue/job_queue.h"
#include "serve/server.h"
#include "store/store.h"

namespace cudal1 {
namespace {

constexpr const char* kServeHelp = R"(usage: cudal1 serve --tasks DIR... [--host H] [--port P] [options]
       cudal1 serve --competition FILE [--competition-store FILE] [--host H] [--port P] [options]

Judges candidates over HTTP: a reward server for RL trainers (OpenRLHF, slime,
KernelGYM's clients, verl and TRL through python/cudal1_reward.py) and for any
program that posts code. Compiles run in parallel; the device times one
judgment at a time; every judgment goes into the store. A request's code may
be a whole LLM answer: its code block is taken as the optimizer takes it, and
an answer without code is scored as such (the reward's floor), not refused.

  --tasks DIR|FILE    the tasks it judges (every *.py of each folder), named
                      "folder/stem" ("level1/softmax") or by a stem no other
                      task has; repeatable (required, but for --competition)
  --host H            the address to listen on (default 127.0.0.1: this
                      machine only; 0.0.0.0 for every interface)
  --port P            the port (default 8000; 0: any free port)
  --port-file FILE    write the port there once listening (scripts use --port 0)
  --token-file FILE   accept only requests with "Authorization: Bearer TOKEN",
                      TOKEN one of the file's lines (GET /health and /metrics
                      stay open)
  --store FILE        the results store (default: $CUDAL1_STORE, else
                      ~/.local/share/cudal1/store.sqlite)
  --reward KIND       the reward when a request names none: cuda_l1 (CUDA-L1's
                      speedup rounded toward 1; default), kevin (0.3 + speedup
                      when correct) or kernelgym (0.7 + 0.3 x speedup); a hack
                      gets -1, below any incorrect kernel (0)
  --queue-limit N     jobs waiting or in progress before new requests get 429
                      with Retry-After (default 256)
  --max-code-bytes N  the largest code a request may send (default 262144; 413)
  --allow-inline-tasks
                      judge a "reference_code" that is none of the --tasks
                      as a task of its own ("inline/HASH"); its reference
                      runs sealed as a candidate does (cudal1 eval
                      --untrusted-task). Without it such a request gets 422
  --max-batch N       the most requests in one batch (default 256; 413)
  --jobs N            compiles at once (default: one per CPU)
  --http-threads N    requests served at once (default 64; a synchronous
                      request holds one until its judgment is done)
  --redis URL         put the jobs on this Redis (redis://HOST[:PORT][/DB]) for
                      `cudal1 worker --redis URL` processes, one per GPU on any
                      host, instead of judging here; give --backend (the
                      workers' device), as this host may have no GPU
  --competition FILE  host a kernel competition instead (docs/competition.md):
                      its tasks, hidden runs, window, ranking rule and entrants
                      come from the file; the leaderboard page (with an editor
                      to submit) is at http://HOST:PORT/, the API under
                      /v1/competition (below); no --tasks (the judging routes
                      then know no task); --backend defaults to the file's
  --competition-store FILE  the competition's submissions (SQLite; default:
                      competitions.sqlite beside the results store); a
                      restarted server keeps its board and judges again what
                      it had not finished
  --redis-prefix P    the queue's key prefix (default cudal1)
  --redis-secret-file FILE  the secret the server and its workers share (its
                      first line, 16 bytes or more; else $CUDAL1_REDIS_SECRET):
                      the server signs jobs and takes only results its workers
                      signed, so write access to Redis alone neither runs code
                      on the workers nor forges a reward

Routes (JSON; errors are {"error": {"message", "status"}}):
  POST /v1/judge        {"task": NAME, "code": TEXT, "format": "cuda"|"cpp"|"modelnew",
                         "options": {"profile", "precision", "baseline", "seed", "trials"},
                         "reward": KIND, "fresh": BOOL, "wait": BOOL}
                        -> {"id", "state", "verdict", "speedup", "reward", "judgment", ...}
                        ("reference_code": SOURCE may name the task instead; the
                        same request judged before is answered from that judgment
                        unless "fresh"; "wait": false answers 202 at once)
  POST /v1/judge/batch  {"requests": [...], "group": BOOL} -> {"results": [...]}
                        ("group": CUDA-L1's group rewards, z-scores clipped to +-1.5)
  GET  /v1/jobs/ID      a job;  GET /v1/tasks: the task names
  POST /v1/openrlhf     OpenRLHF's --remote_rm_url: {"query", "prompts", "labels"}
                        (a label names the task) -> {"rewards", "scores", "extra_logs"}
  POST /v1/slime        slime's --rm-url: {"prompt", "response", "label"} -> {"reward", ...}
  POST /evaluate, POST /evaluate/batch, GET /status/ID, GET /results/ID
                        KernelGYM's API (its reference_code must be one of the tasks)
  GET  /health;  GET /metrics (Prometheus: queue, judgments by verdict, latency)

With --competition (entrants send "Authorization: Bearer TOKEN"; 401 and
nothing stored without a valid one):
  GET  /                the leaderboard page: boards per task and GPU kind, the
                        best time over the competition, the newest submissions
                        (rejected hacks shown as such), an editor to submit;
                        live (Server-Sent Events)
  GET  /submissions/ID  a submission's page
  GET  /v1/competition  the competition: window, state, ranking, tasks (sources)
  GET  /v1/competition/board    the board as JSON;  GET /v1/competition/events: SSE
  POST /v1/competition/submissions  {"task", "code", "format", "wait": BOOL}
                        -> 202 (200 with the verdict when "wait"); 403 outside
                        the window, 404 unknown task, 413 oversize, 429 with
                        Retry-After over the rate limit
  GET  /v1/competition/submissions[/ID]  your submissions; one submission (its
                        code and whole public judgment to its entrant only; the
                        hidden runs only as pass or fail and a class)
  GET  /v1/competition/me       the entrant a token belongs to

Stops on SIGINT or SIGTERM after the judgment in flight. Exit status: 0 when
stopped; 2 for unusable input (no tasks, a port in use, a bad option).
)";

struct serve_args {
  server_options server;
  service_options service;
  std::vector<std::string> task_paths;
  std::string port_file, token_file, store_path;
  std::string competition_file, competition_store;
};

std::string read_args(const args_t& args, serve_args* out, bool* help) {
  option_reader r{args, 0, ""};
  std::string reward, redis_secret_file;
  int max_code = 0;
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    std::string v;
    if (a == "--help" || a == "-h") {
      *help = true;
      return "";
    } else if (flag == "--tasks") {
      ok = r.value(&v);
      out->task_paths.push_back(v);
    } else if (flag == "--host") ok = r.value(&out->server.host);
    else if (flag == "--port") ok = r.integer(&out->server.port, 0, 65535);
    else if (flag == "--port-file") ok = r.value(&out->port_file);
    else if (flag == "--token-file") ok = r.value(&out->token_file);
    else if (flag == "--store") ok = r.value(&out->store_path);
    else if (flag == "--reward") ok = r.value(&reward);
    else if (flag == "--queue-limit") ok = r.integer(&out->service.queue_limit, 1);
    else if (flag == "--max-code-bytes") ok = r.integer(&max_code, 1);
    else if (a == "--allow-inline-tasks") out->server.limits.allow_inline_tasks = true;
    else if (flag == "--max-batch") {
      int n = 0;
      ok = r.integer(&n, 1);
      out->server.max_batch = static_cast<size_t>(n);
    }
    else if (flag == "--jobs") ok = r.integer(&out->service.compile_threads, 1);
    else if (flag == "--http-threads") ok = r.integer(&out->server.http_threads, 1);
    else if (flag == "--redis") ok = r.value(&out->service.redis_url);
    else if (flag == "--redis-prefix") ok = r.value(&out->service.redis_prefix);
    else if (flag == "--redis-secret-file") ok = r.value(&redis_secret_file);
    else if (flag == "--competition") ok = r.value(&out->competition_file);
    else if (flag == "--competition-store") ok = r.value(&out->competition_store);
    else if (read_judge_option(r, out->service.judge, &ok)) {
    } else return "unknown argument " + a + " (see cudal1 serve --help)";
    if (!ok) return r.error;
  }
  if (!out->competition_file.empty() && !out->task_paths.empty())
    return "serve --competition judges the competition's tasks only: leave out --tasks";
  if (!out->competition_store.empty() && out->competition_file.empty()) return "--competition-store needs --competition";
  if (out->task_paths.empty() && out->competition_file.empty())
    return "serve needs --tasks DIR (the tasks it judges) or --competition FILE (see cudal1 serve --help)";
  if (!out->service.redis_url.empty()) {
    auto secret = read_queue_secret(redis_secret_file);
    if (!secret) return secret.message();
    out->service.redis_secret = *secret;
  }
  if (max_code > 0) out->server.limits.max_code_bytes = static_cast<size_t>(max_code);
  if (out->server.limits.allow_inline_tasks) {
    auto dir = make_temp_dir("cudal1-inline-tasks");
    if (!dir) return "--allow-inline-tasks: " + dir.message();
    out->server.limits.inline_dir = *dir;
  }
  if (!reward.empty()) {
    auto kind = parse_reward_kind(reward);
    if (!kind) return "--reward: unknown reward " + reward + " (cuda_l1, kevin or kernelgym)";
    out->server.limits.reward = *kind;
  }
  if (!out->token_file.empty()) {
    auto text = read_file(out->token_file);
    if (!text) return "--token-file: " + text.message();
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty()) out->server.tokens.push_back(line);
    }
    if (out->server.tokens.empty()) return "--token-file " + out->token_file + " holds no token";
  }
  return "";
}

}  // namespace

int run_serve(const args_t& args) {
  serve_args a;
  bool help = false;
  if (std::string problem = read_args(args, &a, &help); !problem.empty()) return usage_error(problem);
  if (help) {
    std::printf("%s", kServeHelp);
    return 0;
  }
  // A competition judges its own tasks; the judging routes then know none.
  task_catalog tasks;
  std::optional<competition> contest;
  judge_options& judge = a.service.judge;
  if (!a.competition_file.empty()) {
    auto c = load_competition(a.competition_file);
    if (!c) return usage_error("serve: " + c.message());
    if (judge.backend != "auto" && judge.backend != c->backend)
      return usage_error("serve: --backend " + judge.backend + ", but the competition runs on " + c->backend);
    judge.backend = c->backend;
    contest.emplace(std::move(*c));
  } else {
    auto loaded = task_catalog::load(a.task_paths);
    if (!loaded) return usage_error("serve: " + loaded.message());
    tasks = std::move(*loaded);
  }
  if (judge.backend == "auto") judge.backend = auto_backend();
  a.service.backend = judge.backend;
  a.server.limits.backend = judge.backend;
  a.service.store_path = a.store_path.empty() ? store::default_path() : a.store_path;
  sigset_t stop_signals = block_stop_signals();

  auto service = judge_service::start(a.service);
  if (!service) return usage_error("serve: " + service.message());
  std::unique_ptr<competition_host> host;
  std::optional<competition_pages> pages;
  std::string private_dir;
  if (contest) {
    auto dir = make_temp_dir("cudal1-competition");  // the judge's copies of the tasks, with the hidden sizes
    if (!dir) return usage_error("serve: " + dir.message());
    private_dir = *dir;
    std::string store_path = a.competition_store.empty()
                                 ? std::filesystem::path(a.service.store_path).parent_path().string() + "/competitions.sqlite"
                                 : a.competition_store;
    auto h = competition_host::start(std::move(*contest), **service, store_path, private_dir);
    if (!h) return usage_error("serve: " + h.message());
    host = std::move(*h);
    auto p = competition_pages::load();
    if (!p) return usage_error("serve: " + p.message());
    pages.emplace(std::move(*p));
    competition_routes_options route_options;
    route_options.max_event_clients = std::max(1, a.server.http_threads / 4);
    a.server.extra_routes = [&](httplib::Server& s) { add_competition_routes(s, *host, *pages, route_options); };
    a.server.extra_metrics = [&] { return host->metrics_text(); };
  }
  auto server = judge_server::start(a.server, **service, tasks);
  if (!server) return usage_error("serve: " + server.message());
  if (!a.port_file.empty()) {
    if (status st = write_file_atomic(a.port_file, std::to_string((*server)->port()) + "\n"); !st)
      return usage_error("--port-file: " + st.message());
  }
  if (host) {
    const competition& c = host->definition();
    std::fprintf(stderr, "cudal1 serve: competition '%s' (%zu tasks, %zu entrants, %s to %s, now %s) on the %s backend at http://%s:%d/\n",
                 c.name.c_str(), c.tasks.size(), c.participants.size(), format_utc_time(c.start_unix).c_str(),
                 format_utc_time(c.end_unix).c_str(), c.state_at(std::time(nullptr)).c_str(), judge.backend.c_str(),
                 a.server.host.c_str(), (*server)->port());
  } else {
    std::fprintf(stderr, "cudal1 serve: %zu tasks on the %s backend at http://%s:%d (store %s%s%s)\n",
                 tasks.tasks().size(), judge.backend.c_str(), a.server.host.c_str(), (*server)->port(),
                 a.service.store_path.c_str(), a.server.tokens.empty() ? "" : "; bearer tokens required",
                 a.service.redis_url.empty() ? "" : ("; jobs on " + a.service.redis_url).c_str());
  }
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "cudal1 serve: stopping (%s) after the judgment in flight\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  // The competition first (its live pages hold HTTP threads until it stops),
  // then the service: its stop wakes the requests waiting on it, which the
  // HTTP server's stop waits for.
  if (host) host->stop();
  (*service)->stop();
  (*server)->stop();
  service_metrics m = (*service)->metrics();
  int64_t judged = 0;
  for (const auto& [v, n] : m.verdicts) judged += n;
  std::fprintf(stderr, "cudal1 serve: stopped after %lld judgments (%lld answered from earlier ones)\n",
               static_cast<long long>(judged), static_cast<long long>(m.cache_hits));
  if (!private_dir.empty()) remove_tree(private_dir);
  return 0;
}

}  // namespace cudal1
