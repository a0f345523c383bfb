// cudal1 llm-replay: recorded LLM answers served over the OpenAI API.
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include "base/fs.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "llm/replay.h"

namespace cudal1 {
namespace {

constexpr const char* kReplayHelp = R"(usage: cudal1 llm-replay --answers FILE [--host H] [--port P] [--port-file FILE]
       cudal1 llm-replay --answers FILE --record URL [--api-key-env VAR] [...]

Serves recorded LLM answers over the OpenAI chat-completions API, so that
`cudal1 optimize --llm http://H:P/v1` runs its whole loop without a model
(tests, CI, demonstrations). With --record it forwards each request to a real
OpenAI-compatible server instead and appends the answer to FILE, which a later
replay then serves.

  --answers FILE      the answers, JSON Lines (below); with --record, appended
                      to (created when missing)
  --host H            the address to listen on (default 127.0.0.1)
  --port P            the port (default 0: any free port; the URL is printed)
  --port-file FILE    write the port there once listening (scripts use --port 0)
  --record URL        record mode: forward to this server (e.g.
                      http://127.0.0.1:8000/v1) and save what it answers
  --api-key-env VAR   the environment variable holding --record's API key

Routes: POST /v1/chat/completions (and /chat/completions), GET /v1/models
(lists "replay"; any model name is accepted), GET /health.

Answers file: one JSON object per line,
  {"match": "SUBSTRING", "content": "...", "status": 200, "delay_s": 0,
   "retry_after_s": 2, "body": "raw body instead of a completion",
   "usage": {"prompt_tokens": N, "completion_tokens": M}, "repeat": false,
   "request_hash": "..."}
A request gets the first entry not yet served (or marked "repeat") whose
request_hash is the request's (sha256 of model, messages and temperature, as
--record writes it) or, without one, whose match occurs in the last user
message (no match: any request). A status other than 200 answers with an
OpenAI-style error (content, when given, is its message; Retry-After is sent
when retry_after_s is set); delay_s waits before answering. With no entry
left the answer is HTTP 503. Usage not given is estimated as bytes / 4.

Stops on SIGINT or SIGTERM. Exit status: 0 when stopped; 2 for unusable input
(a missing or malformed answers file, a port in use).
)";

struct replay_args {
  replay_options options;
  std::string port_file, api_key_env;
};

// Fills *out from args; returns an error message or "".
std::string read_args(const args_t& args, replay_args* out, bool* help) {
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      *help = true;
      return "";
    } else if (flag == "--answers") ok = r.value(&out->options.answers_path);
    else if (flag == "--host") ok = r.value(&out->options.host);
    else if (flag == "--port") ok = r.integer(&out->options.port, 0, 65535);
    else if (flag == "--port-file") ok = r.value(&out->port_file);
    else if (flag == "--record") ok = r.value(&out->options.record_url);
    else if (flag == "--api-key-env") ok = r.value(&out->api_key_env);
    else return "unknown argument " + a + " (see cudal1 llm-replay --help)";
    if (!ok) return r.error;
  }
  if (out->options.answers_path.empty()) return "llm-replay needs --answers FILE (see cudal1 llm-replay --help)";
  if (!out->api_key_env.empty()) {
    if (out->options.record_url.empty()) return "--api-key-env goes with --record";
    const char* key = std::getenv(out->api_key_env.c_str());
    if (!key || !*key) return "--api-key-env: the variable " + out->api_key_env + " is not set";
    out->options.record_api_key = key;
  }
  return "";
}

}  // namespace

int run_llm_replay(const args_t& args) {
  replay_args a;
  bool help = false;
  if (std::string problem = read_args(args, &a, &help); !problem.empty()) return usage_error(problem);
  if (help) {
    std::printf("%s", kReplayHelp);
    return 0;
  }
  sigset_t stop_signals = block_stop_signals();

  auto server = replay_server::start(a.options);
  if (!server) return usage_error("llm-replay: " + server.message());
  if (!a.port_file.empty()) {
    if (status st = write_file_atomic(a.port_file, std::to_string((*server)->port()) + "\n"); !st)
      return usage_error("--port-file: " + st.message());
  }
  std::string what = a.options.record_url.empty()
                         ? "serving " + std::to_string((*server)->answer_count()) + " answers"
                         : "recording the answers of " + a.options.record_url;
  std::fprintf(stderr, "llm-replay: %s at %s\n", what.c_str(), (*server)->base_url().c_str());
  int sig = 0;
  sigwait(&stop_signals, &sig);
  (*server)->stop();
  const int served = (*server)->requests_served();
  std::fprintf(stderr, "llm-replay: stopped (%s) after %d request%s\n", sig == SIGINT ? "SIGINT" : "SIGTERM", served,
               served == 1 ? "" : "s");
  return 0;
}

}  // namespace cudal1
