// cudal1 audit-task TASK...: can a task tell a real kernel from a trivial one?
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "judge/judge.h"

namespace cudal1 {
int run_audit_task(const args_t& args) {
  judge_options opt;
  bool as_json = false;
  int seeds = 3;
  std::vector<std::string> tasks;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (a == "--json") as_json = true;
    else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: cudal1 audit-task TASK... [--backend auto|cpu|cuda] [--profile NAME] [--python PATH]\n"
          "                         [--seeds N] [--json]\n\n"
          "Finds tasks that cannot tell a real kernel from a trivial one. The reference runs on N\n"
          "fresh inputs (default 3) and the task is flagged when, under the judge's own checks:\n"
          "  zeros_pass        an all-zero output passes\n"
          "  constant_pass     a constant output passes\n"
          "  input_copy_pass   a copy of an input passes (e.g. ReLU on non-negative inputs)\n"
          "  constant_output   the output is the same for different inputs\n"
          "  small_output      90%% or more of the output is below 1e-2, so zeros pass atol-1e-2 judges\n"
          "  nondeterministic_reference  two runs on the same inputs disagree\n"
          "--backend auto uses the GPU if the machine has one. With --json, one object per task:\n"
          "{\"task\", \"backend\", \"profile\", \"flags\": [{\"class\", \"evidence\"}]}; flags is empty\n"
          "for a sound task. Exit status 0 whatever it finds; 2 for unusable input.\n");
      return 0;
    } else if (a == "--backend") {
      if (!value(&opt.backend)) return usage_error("--backend needs a value");
    } else if (a == "--profile") {
      if (!value(&opt.profile)) return usage_error("--profile needs a value");
    } else if (a == "--python") {
      if (!value(&opt.python)) return usage_error("--python needs a value");
    } else if (a == "--seeds") {
      if (!value(&v)) return usage_error("--seeds needs a value");
      try {
        seeds = std::stoi(v);
      } catch (const std::exception&) {
        seeds = 0;
      }
      if (seeds < 2) return usage_error("--seeds must be a number >= 2");
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a + " (see cudal1 audit-task --help)");
    } else {
      tasks.push_back(a);
    }
  }
  if (tasks.empty()) return usage_error("audit-task needs a TASK (see cudal1 audit-task --help)");
  no_progress progress;
  for (const auto& t : tasks) {
    auto report = audit_task(t, seeds, opt, progress);
    if (!report) return usage_error(report.message());
    if (as_json) {
      std::printf("%s\n", report->dump().c_str());
      continue;
    }
    const auto& flags = (*report)["flags"];
    std::printf("%s: %s (%s)\n", t.c_str(), flags.empty() ? "sound" : "flagged", (*report)["backend"].get<std::string>().c_str());
    for (const auto& f : flags)
      std::printf("  %s: %s\n", f["class"].get<std::string>().c_str(), f["evidence"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace cudal1
