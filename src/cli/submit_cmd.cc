// cudal1 submit: an entrant's kernel to a competition server (cudal1 serve
// --competition), waiting for its verdict and rank.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "base/fs.h"
#include "base/json_text.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "competition/client.h"

namespace cudal1 {
namespace {

using nlohmann::json;

constexpr const char* kSubmitHelp = R"(usage: cudal1 submit --server URL --token-file FILE --task TASK FILE [options]

Sends a kernel to a competition (cudal1 serve --competition; docs/competition.md)
and waits for its verdict: the public run's figures, whether the hidden runs
passed (and the class of a failure), and where it ranks.

  --server URL        the competition's server (default: $CUDAL1_SERVER),
                      e.g. http://127.0.0.1:8000
  --token-file FILE   the file holding your entrant token (its first line;
                      default: $CUDAL1_TOKEN_FILE)
  --task TASK         the task it solves (GET URL/v1/competition lists them)
  --format F          cuda, cpp or modelnew (default: by the file's extension:
                      .cu, .cpp/.cc, .py)
  --no-wait           return once the server has taken it (its id and page)
  --timeout S         the longest to wait for the verdict (default 3600)
  --json              print the server's JSON instead

Exit status: 0 when the server took the submission (whatever its verdict);
1 when it refused it (a bad token, outside the competition's window, an
unknown task, oversize code, the rate limit: the server's message is
printed); 2 for unusable input (no such file, no server at the URL).
)";

struct submit_args {
  std::string server, token_file, task, format, file;
  bool wait = true, json = false;
  double timeout_s = 3600;
};

std::string read_args(const args_t& args, submit_args* out, bool* help) {
  option_reader r{args, 0, ""};
  out->server = env_or("CUDAL1_SERVER", "");
  out->token_file = env_or("CUDAL1_TOKEN_FILE", "");
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "--help" || a == "-h") {
      *help = true;
      return "";
    } else if (flag == "--server") ok = r.value(&out->server);
    else if (flag == "--token-file") ok = r.value(&out->token_file);
    else if (flag == "--task") ok = r.value(&out->task);
    else if (flag == "--format") ok = r.value(&out->format);
    else if (flag == "--timeout") ok = r.number(&out->timeout_s, 1);
    else if (a == "--no-wait") out->wait = false;
    else if (a == "--json") out->json = true;
    else if (!a.empty() && a[0] == '-') return "unknown argument " + a + " (see cudal1 submit --help)";
    else if (out->file.empty()) out->file = a;
    else return "one file per submission (" + out->file + " and " + a + ")";
    if (!ok) return r.error;
  }
  if (out->server.empty()) return "submit needs --server URL (or $CUDAL1_SERVER)";
  if (out->token_file.empty()) return "submit needs --token-file FILE (or $CUDAL1_TOKEN_FILE)";
  if (out->task.empty()) return "submit needs --task TASK (GET " + out->server + "/v1/competition lists them)";
  if (out->file.empty()) return "submit needs the FILE to send";
  if (out->format.empty()) {
    std::string ext = std::filesystem::path(out->file).extension().string();
    out->format = ext == ".cu" ? "cuda" : ext == ".cpp" || ext == ".cc" ? "cpp" : ext == ".py" ? "modelnew" : "";
    if (out->format.empty()) return out->file + ": not .cu, .cpp or .py; say --format cuda, cpp or modelnew";
  }
  return "";
}

std::string figure(const json& v, const char* key, int digits, const char* unit) {
  if (!v.contains(key) || !v[key].is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", digits, v[key].get<double>(), unit);
  return buf;
}

// The verdict as an entrant reads it, the public run's figures, the hidden
// runs' verdict, the rank.
void print_submission(const json& s, const std::string& server) {
  std::string state = s.value("state", "");
  std::printf("submission %lld (%s, %s): ", static_cast<long long>(s.value("id", 0)), s.value("participant", "").c_str(),
              s.value("task", "").c_str());
  if (state == "queued" || state == "judging") {
    std::printf("%s; follow it at %s%s\n", state.c_str(), server.c_str(), s.value("url", "").c_str());
    return;
  }
  if (state == "failed") {
    std::printf("not judged: %s\n", s.value("error", "").c_str());
    return;
  }
  std::string verdict = s.value("verdict", "");
  std::string part = s["part"].is_string() ? s["part"].get<std::string>() : "";
  std::string cls = s["class"].is_string() ? s["class"].get<std::string>() : "";
  std::printf("%s", verdict.c_str());
  if (verdict == "rejected") std::printf(" (%s)", cls.c_str());
  if (!part.empty()) std::printf(" on the %s run", part.c_str());
  std::printf("\n");
  const json& pub = s.contains("public") ? s["public"] : json();
  if (s["time_ms"].is_number())
    std::printf("  public run: %s (reference %s, speedup %s), %s of the speed-of-light floor, on %s\n",
                figure(s, "time_ms", 4, " ms").c_str(), figure(s, "reference_ms", 4, " ms").c_str(),
                figure(s, "speedup", 3, "x").c_str(),
                s["sol_fraction"].is_number() ? (figure(json{{"f", 100 * s["sol_fraction"].get<double>()}}, "f", 1, "%")).c_str() : "-",
                s.value("device", "").c_str());
  if (pub.is_object() && pub.contains("hacks"))
    for (const auto& h : pub["hacks"]) std::printf("  hack caught: %s: %s\n", h.value("class", "").c_str(), h.value("evidence", "").c_str());
  if (part == "public" && verdict != "rejected" && pub.is_object() && pub.contains("message")) {
    std::string message = tail_lines(pub.value("message", ""), 12);
    std::istringstream lines(message);
    for (std::string line; std::getline(lines, line);) std::printf("  | %s\n", line.c_str());
  }
  const json& hidden = s.contains("hidden") ? s["hidden"] : json();
  if (hidden.is_object())
    std::printf("  hidden runs: %s%s\n", hidden.value("verdict", "").c_str(),
                hidden.contains("class") ? (" (" + hidden.value("class", "") + ")").c_str() : "");
  const json& st = s.contains("standing_now") ? s["standing_now"] : json();
  if (st.is_object()) {
    if (st.value("this_is_best", false))
      std::printf("  rank %d of %d on %s (%s)\n", st.value("rank", 0), st.value("of", 0), s.value("task", "").c_str(),
                  st.value("gpu", "").c_str());
    else
      std::printf("  your best, submission %lld, is rank %d of %d on %s (%s)\n", static_cast<long long>(st.value("best_id", 0)),
                  st.value("rank", 0), st.value("of", 0), s.value("task", "").c_str(), st.value("gpu", "").c_str());
  } else if (s.value("standing", false)) {
    std::printf("  not ranked (judged on a device this competition does not rank)\n");
  }
  std::printf("  %s%s\n", server.c_str(), s.value("url", "").c_str());
}

}  // namespace

int run_submit(const args_t& args) {
  submit_args a;
  bool help = false;
  if (std::string problem = read_args(args, &a, &help); !problem.empty()) return usage_error(problem);
  if (help) {
    std::printf("%s", kSubmitHelp);
    return 0;
  }
  auto code = read_file(a.file);
  if (!code) return usage_error(a.file + ": " + code.message());
  auto token_text = read_file(a.token_file);
  if (!token_text) return usage_error("--token-file " + a.token_file + ": " + token_text.message());
  std::string token;
  std::istringstream lines(*token_text);
  for (std::string line; std::getline(lines, line) && token.empty();) {
    size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b != std::string::npos) token = line.substr(b, e - b + 1);
  }
  if (token.empty()) return usage_error("--token-file " + a.token_file + " holds no token");
  std::string server = a.server;
  while (!server.empty() && server.back() == '/') server.pop_back();

  json body = {{"task", a.task}, {"code", *code}, {"format", a.format}, {"wait", a.wait}};
  if (!a.json) std::fprintf(stderr, "cudal1 submit: sending %s for %s to %s%s\n", a.file.c_str(), a.task.c_str(),
                            server.c_str(), a.wait ? "; waiting for its verdict" : "");
  auto reply = competition_call(server, "POST", "/v1/competition/submissions", token, body, a.timeout_s + 60);
  if (!reply) return usage_error(reply.message());
  if (reply->status != 200 && reply->status != 202) {
    std::string retry = reply->retry_after_s > 0 ? " (try again in " + std::to_string(reply->retry_after_s) + " s)" : "";
    if (a.json) std::printf("%s\n", json_text(reply->body, 2).c_str());
    std::fprintf(stderr, "cudal1 submit: refused (HTTP %d): %s%s\n", reply->status, reply_error(*reply).c_str(), retry.c_str());
    return 1;
  }
  if (a.json)
    std::printf("%s\n", json_text(reply->body, 2).c_str());
  else
    print_submission(reply->body, server);
  return 0;
}

}  // namespace cudal1
