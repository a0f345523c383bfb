// cudal1 eval TASK CANDIDATE [CANDIDATE...]: judge candidates against a task.
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
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
  --backend auto|cpu|cuda   where to run (auto: .cu -> cuda, .cpp -> cpu)
  --json                    print one JSON object per candidate (one line each)
  --python PATH             Python with PyTorch for the reference
                            (default: $CUDAL1_PYTHON, else the first of python3,
                            /usr/bin/python3, ... that imports torch)
  --profile NAME            task size profile (cudal1_profiles in the task);
                            the CPU backend uses "cpu" when the task has one
  --trials N                correctness trials before timing (default 5)
  --timeout SECONDS         limit for one call of the candidate (default 10)
  --compile-timeout SECONDS limit for compiling (default 120)
  --time-budget SECONDS     most time spent timing (default 2)
  --min-time SECONDS        least time spent timing (default 1)
  --min-samples N           least timed pairs (default 10)
  --max-samples N           most timed pairs (default 2000)
  --target-ci FRACTION      stop once both medians' 95% CI half-widths are
                            within this fraction (default 0.005)
  --recheck-above X         re-measure a speedup above X in fresh processes before
                            it stands (default 3; 0: never)
  --recheck-tolerance F     reject as unstable if the two speedups differ by more
                            than this fraction (default 0.1)
  --seed N                  reproduce a judgment's inputs (default: random)
  --cache-dir DIR           compile cache (default: $CUDAL1_CACHE_DIR or
                            ~/.cache/cudal1)
  --keep-scratch            keep the judgment's scratch folder (logs)
  --no-ref-server           start the reference's Python afresh (pays torch's
                            import every time) instead of forking it from the
                            reference server, a background Python that keeps
                            torch imported and exits after 10 idle minutes
                            (also: CUDAL1_REF_SERVER=0)
  -q, --quiet               no progress on stderr

Exit status: 0 when every candidate got a verdict, whatever it was; 2 for
unusable input (a missing file, a task that does not import, no PyTorch).
)";

class stderr_progress : public progress_sink {
 public:
  explicit stderr_progress(bool enabled) : enabled_(enabled) {}
  void phase(const std::string& what) override {
    if (enabled_) std::fprintf(stderr, "  .. %s\n", what.c_str());
  }

 private:
  bool enabled_;
};

// Parses "--name value" and "--name=value"; numbers are checked.
struct option_reader {
  const args_t& args;
  size_t i = 0;
  std::string error;

  bool value(std::string* out) {
    const std::string& a = args[i];
    if (auto eq = a.find('='); eq != std::string::npos) {
      *out = a.substr(eq + 1);
      return true;
    }
    if (i + 1 >= args.size()) {
      error = a + " needs a value";
      return false;
    }
    *out = args[++i];
    return true;
  }
  bool number(double* out, double min) {
    std::string v;
    if (!value(&v)) return false;
    try {
      size_t used = 0;
      *out = std::stod(v, &used);
      if (used != v.size() || *out < min) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      error = args[i - (args[i].find('=') == std::string::npos ? 1 : 0)] + ": not a number >= " + std::to_string(min) + ": " + v;
      return false;
    }
    return true;
  }
  bool integer(int* out, int min) {
    double d;
    if (!number(&d, min)) return false;
    *out = static_cast<int>(d);
    return true;
  }
};

}  // namespace

int run_eval(const args_t& args) {
  judge_options opt;
  bool as_json = false, quiet = false;
  std::vector<std::string> positional;
  option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    double d = 0;
    if (a == "--help" || a == "-h") {
      std::printf("%s", kEvalHelp);
      return 0;
    } else if (a == "--json") as_json = true;
    else if (a == "-q" || a == "--quiet") quiet = true;
    else if (a == "--keep-scratch") opt.keep_scratch = true;
    else if (a == "--no-ref-server") opt.reference_server = false;
    else if (flag == "--backend") ok = r.value(&opt.backend);
    else if (flag == "--python") ok = r.value(&opt.python);
    else if (flag == "--profile") ok = r.value(&opt.profile);
    else if (flag == "--cache-dir") ok = r.value(&opt.cache_dir);
    else if (flag == "--trials") ok = r.integer(&opt.trials, 1);
    else if (flag == "--timeout") ok = r.number(&opt.call_timeout_s, 0.1);
    else if (flag == "--compile-timeout") ok = r.number(&opt.compile_timeout_s, 1);
    else if (flag == "--time-budget") ok = r.number(&opt.stopping.max_time_s, 0);
    else if (flag == "--min-time") ok = r.number(&opt.stopping.min_time_s, 0);
    else if (flag == "--min-samples") ok = r.integer(&opt.stopping.min_samples, 1);
    else if (flag == "--max-samples") ok = r.integer(&opt.stopping.max_samples, 1);
    else if (flag == "--target-ci") ok = r.number(&opt.stopping.target_ci_rel, 0);
    else if (flag == "--recheck-above") ok = r.number(&opt.recheck_above, 0);
    else if (flag == "--recheck-tolerance") ok = r.number(&opt.recheck_tolerance, 0);
    else if (flag == "--seed") {
      ok = r.number(&d, 0);
      opt.seed = static_cast<uint64_t>(d);
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
      std::fprintf(stderr, "cudal1: error: %s\n", j.message().c_str());
      return 2;
    }
    if (as_json) std::printf("%s\n", judgment_to_json(*j).dump().c_str());
    else std::printf("%s", judgment_summary(*j).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace cudal1
