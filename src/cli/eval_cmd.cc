// cudal1 eval TASK CANDIDATE [CANDIDATE...]: judge candidates against a task.
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/json_text.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "judge/judge.h"
#include "report/report.h"

namespace cudal1 {
namespace {

constexpr const char* kEvalHelp = R"(usage: cudal1 eval TASK CANDIDATE [CANDIDATE...] [options]

Judges native candidates (.cu for the CUDA backend, .cpp for the CPU backend)
against a KernelBench-format task (a Python file with Model, get_inputs and
get_init_inputs). Each candidate runs in a fresh sandboxed process; it must
match the reference on fresh inputs in every call, and is timed against the
reference, interleaved, on the same device.

options:
  --json                    print one JSON object per candidate (one line each)
  -q, --quiet               no progress on stderr
)";

constexpr const char* kEvalExit = R"(
Exit status: 0 when every candidate got a verdict, whatever it was; 2 for
unusable input (a missing file, a task that does not import, no PyTorch).
)";
}  // namespace

int run_eval(const args_t& args) {
  judge_options opt;
  bool as_json = false, quiet = false;
  std::vector<std::string> positional;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::printf("%s%s%s", kEvalHelp, kJudgeOptionsHelp, kEvalExit);
      return 0;
    } else if (a == "--json") as_json = true;
    else if (a == "-q" || a == "--quiet") quiet = true;
    else if (read_judge_option(r, opt, &ok)) {
    } else if (!a.empty() && a[0] == '-') return usage_error("unknown option " + a + " (see cudal1 eval --help)");
    else positional.push_back(a);
    if (!ok) return usage_error(r.error);
  }
  if (opt.backend != "auto" && opt.backend != "cpu" && opt.backend != "cuda")
    return usage_error("--backend must be auto, cpu or cuda, not '" + opt.backend + "'");
  if (positional.size() < 2) return usage_error("eval needs a TASK and at least one CANDIDATE (see cudal1 eval --help)");
  if (opt.stopping.max_samples < opt.stopping.min_samples)
    return usage_error("--max-samples is below --min-samples");

  stderr_progress progress(!quiet && !as_json);
  no_progress silent;
  const std::string& task = positional[0];
  for (size_t c = 1; c < positional.size(); ++c) {
    if (!quiet && !as_json) std::fprintf(stderr, "%s\n", positional[c].c_str());
    auto j = judge_candidate(task, positional[c], opt, as_json ? static_cast<progress_sink&>(silent) : progress);
    if (!j) {
      std::fprintf(stderr, "cudal1: error: %s\n", terminal_safe(j.message()).c_str());
      return 2;
    }
    if (as_json) std::printf("%s\n", json_text(judgment_to_json(*j)).c_str());
    else std::printf("%s", judgment_summary(*j).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace cudal1
