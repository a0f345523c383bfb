// cudal1: judge native kernels against PyTorch references.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace cudal1 {
namespace {

struct command {
  const char* name;
  const char* summary;
  int (*run)(const args_t&);
};

constexpr command kCommands[] = {
    {"eval", "judge candidates against a task: correctness, speed, verdict", run_eval},
    {"suite", "run task suites: time each reference, judge each task's native solution", run_suite},
    {"bench", "judge many candidates (suites, KernelBench runs, CUDA-L1 JSONL) into the results store", run_bench},
    {"report", "show a stored run: per-level figures, JSON, an HTML page, KernelBench's eval_results.json", run_report},
    {"compare", "set two stored runs (or a run and its published scores) side by side", run_compare},
    {"optimize", "improve tasks' kernels with an LLM: CUDA-L1's contrastive loop over the store", run_optimize},
    {"best", "print a task's best standing kernel from the store, with its judgment", run_best},
    {"history", "show a task's scores per round of the optimizer", run_history},
    {"serve", "judge candidates over HTTP: a reward server for RL trainers (OpenRLHF, slime, KernelGYM, verl, TRL)", run_serve},
    {"submit", "send a kernel to a competition (cudal1 serve --competition) and print its verdict and rank", run_submit},
    {"worker", "one GPU's judge on the Redis queue of cudal1 serve --redis (any host)", run_worker_cmd},
    {"export", "training data for CUDA-L1's three stages from the store (chat JSONL for TRL and verl)", run_export},
    {"llm-replay", "serve recorded LLM answers over the OpenAI API (tests; --record saves a real model's)", run_llm_replay},
    {"audit", "screen candidate sources for the patterns of known reward hacks", run_audit},
    {"audit-task", "find tasks whose checks a trivial output (zeros, a constant, a copy) would pass", run_audit_task},
    {"info", "show the backends, Python, compilers and folders cudal1 would use", run_info},
    {"prepare", "make the precompiled torch header ModelNew load_inline builds use (once per Python)", run_prepare},
};

void print_help() {
  std::printf("usage: cudal1 <command> [options]\n\ncommands:\n");
  for (const auto& c : kCommands) std::printf("  %-11s %s\n", c.name, c.summary);
  std::printf("\n'cudal1 <command> --help' shows a command's options.\n");
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

int usage_error(const std::string& message) {
  std::fprintf(stderr, "cudal1: error: %s\n", message.c_str());
  return 2;
}

}  // namespace cudal1

int main(int argc, char** argv) {
  using namespace cudal1;
  // Workers that die leave closed pipes: writing to one must fail, not end us.
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    print_help();
    return argc < 2 ? 2 : 0;
  }
  std::string name = argv[1];
  args_t args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cudal1: internal error: %s\n", e.what());
      return 3;
    }
  }
  std::string message = "unknown command '" + name + "'";
  for (const auto& c : kCommands)
    if (edit_distance(name, c.name) <= 2) message += "; did you mean '" + std::string(c.name) + "'?";
  return usage_error(message + " (see cudal1 --help)");
}
