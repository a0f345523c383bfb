// judge_bench: what one judgment costs, and how repeatable its speedup is.
//
//   judge_bench [TASK CANDIDATE] [--cold N] [--warm N] [--defense-runs N] [--save DIR]
//
// Cold: each judgment with an empty compile cache. Warm: the same candidate
// with the cache filled. Prints seconds per judgment (median, min, max) and
// the speedup of each warm judgment with their spread (max/min), then what
// the defenses cost, with and without them, alternating: judgments under the
// judge's stopping rule (target: at most 25% more time per judgment) and
// judgments of a fixed 100 timed pairs (the cost per timed pair). Defaults to
// the swish example with the CUDA candidate where a GPU is, else the CPU one.
#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/subprocess.h"
#include "judge/judge.h"
#include "report/report.h"

namespace {

struct figures {
  double median, min, max;
};

figures describe(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

// Judgments alternating with the defenses on and off, so that drift hits
// both alike. Off: one input set, no timed-output checks, no kernel census,
// no float64 trials, no sandbox; the L2 flush and the timing stay.
struct defense_series {
  std::vector<double> wall_s[2], pairs[2], pair_ms[2];  // [0]: defenses on, [1]: off
  // Each phase's seconds, in the order the judgments reported them.
  std::vector<std::pair<std::string, std::vector<double>>> phases[2];
};

std::optional<defense_series> with_and_without_defenses(const std::string& task, const std::string& candidate,
                                                        cudal1::judge_options opt, int runs, const char* label,
                                                        const std::string& save_as = "") {
  using namespace cudal1;
  no_progress quiet;
  defense_series out;
  for (int i = 0; i < runs; ++i) {
    for (int off = 0; off < 2; ++off) {
      opt.defenses = !off;
      auto t0 = std::chrono::steady_clock::now();
      auto j = judge_candidate(task, candidate, opt, quiet);
      double wall_s = seconds_since(t0);
      if (!j || j->outcome != verdict::correct) {
        std::fprintf(stderr, "judge_bench: judgment (%s, defenses %s) failed\n", label, off ? "off" : "on");
        return std::nullopt;
      }
      double timing_s = 0;
      for (const auto& [name, s] : j->phases_s)
        if (name == "timing") timing_s = s;
      int pairs = j->candidate.summary->samples;
      for (const auto& [name, s] : j->phases_s) {
        auto& into = out.phases[off];
        auto at = std::find_if(into.begin(), into.end(), [&](const auto& p) { return p.first == name; });
        if (at == into.end()) at = into.insert(into.end(), {name, {}});
        at->second.push_back(s);
      }
      if (!save_as.empty())
        (void)write_file_atomic(save_as + (off ? "-off-" : "-on-") + std::to_string(i + 1) + ".json", json_text(judgment_to_json(*j)));
      out.wall_s[off].push_back(wall_s);
      out.pairs[off].push_back(pairs);
      out.pair_ms[off].push_back(1e3 * timing_s / pairs);
      // Where the judge's clock counted the calls, or a second judgment
      // replaced the first: what an outlier's time or speedup came from.
      const bool judge_clock = j->judge_clock.is_object() && j->judge_clock.contains("judge_clock_times");
      std::printf("  %s, defenses %-3s %d: %.2f s, %d pairs (%s), %.2f ms per timed pair, speedup %.3f%s%s\n", label,
                  off ? "off" : "on", i + 1, wall_s, pairs, j->stop_reason.c_str(), 1e3 * timing_s / pairs, *j->speedup,
                  judge_clock ? ", counted by the judge's clock" : "",
                  j->earlier_judgments.empty() ? "" : ", judged twice");
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudal1;
  std::string examples = executable_dir() + "/../../examples/swish";
  std::string task = examples + "/task.py", candidate;
  int cold = 3, warm = 5, defense_runs = 3;
  std::string save_dir;  // --save DIR: each warm, fixed-pairs and stopping-rule judgment's JSON, raw samples included
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--cold" && i + 1 < argc) cold = std::stoi(argv[++i]);
    else if (a == "--warm" && i + 1 < argc) warm = std::stoi(argv[++i]);
    else if (a == "--save" && i + 1 < argc) save_dir = argv[++i];
    else if (a == "--defense-runs" && i + 1 < argc) defense_runs = std::stoi(argv[++i]);
    else if (a == "--help" || a == "-h") {
      std::printf("usage: judge_bench [TASK CANDIDATE] [--cold N] [--warm N] [--defense-runs N] [--save DIR]\n");
      return 0;
    } else positional.push_back(a);
  }
  if (positional.size() == 2) {
    task = positional[0];
    candidate = positional[1];
  } else if (!positional.empty()) {
    std::fprintf(stderr, "judge_bench: give both TASK and CANDIDATE, or neither\n");
    return 2;
  }
  if (candidate.empty()) {
    candidate = examples + (auto_backend() == "cuda" ? "/cuda/correct.cu" : "/cpu/correct.cpp");
  }
  no_progress quiet;
  judge_options opt;
  // One plain judgment is what is measured here; a speedup above 3x would
  // otherwise be judged a second time in fresh processes (about twice the time).
  opt.recheck_above = 0;
  std::printf("judge_bench: %s / %s (speedup re-check off)\n", task.c_str(), candidate.c_str());

  std::vector<double> cold_s, cold_compile_s;
  for (int i = 0; i < cold; ++i) {
    auto dir = make_temp_dir("cudal1-bench-cache");
    if (!dir) return std::fprintf(stderr, "%s\n", dir.message().c_str()), 1;
    opt.cache_dir = *dir;
    auto t0 = std::chrono::steady_clock::now();
    auto j = judge_candidate(task, candidate, opt, quiet);
    double wall_s = seconds_since(t0);
    remove_tree(*dir);
    if (!j) return std::fprintf(stderr, "judge_bench: %s\n", j.message().c_str()), 1;
    if (j->outcome != verdict::correct)
      return std::fprintf(stderr, "judge_bench: verdict %s: %s\n", to_string(j->outcome), j->message.c_str()), 1;
    cold_s.push_back(wall_s);
    cold_compile_s.push_back(j->compile_s);
    double reference_s = 0;
    for (const auto& [name, seconds] : j->phases_s)
      if (name == "start" || name == "reference") reference_s += seconds;
    std::printf("  cold %d: %.2f s (compile %.2f s, start+reference %.2f s), speedup %.3f\n", i + 1, wall_s,
                j->compile_s, reference_s, *j->speedup);
  }

  auto dir = make_temp_dir("cudal1-bench-cache");
  if (!dir) return 1;
  opt.cache_dir = *dir;
  { auto fill = judge_candidate(task, candidate, opt, quiet); if (!fill) return 1; }
  std::vector<double> warm_s, speedups;
  std::vector<std::pair<std::string, std::vector<double>>> phases;
  for (int i = 0; i < warm; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto j = judge_candidate(task, candidate, opt, quiet);
    double wall_s = seconds_since(t0);
    if (!j || j->outcome != verdict::correct) return std::fprintf(stderr, "judge_bench: warm judgment failed\n"), 1;
    warm_s.push_back(wall_s);
    if (!save_dir.empty())
      (void)write_file_atomic(save_dir + "/warm-" + std::to_string(i + 1) + ".json", json_text(judgment_to_json(*j)));
    if (i == 0) {
      std::printf("  per-call requests (median ms, judge's clock):");
      for (const auto& [op, ms] : j->requests_ms) std::printf(" %s %.2f", op.c_str(), summarize_samples(ms).median_ms);
      std::printf("\n  reference init (s): %s\n", json_text(j->reference_init_s).c_str());
    }
    for (size_t p = 0; p < j->phases_s.size(); ++p) {
      if (phases.size() <= p) phases.push_back({j->phases_s[p].first, {}});
      phases[p].second.push_back(j->phases_s[p].second);
    }
    speedups.push_back(*j->speedup);
    std::printf("  warm %d: %.2f s, reference %.4f ms, candidate %.4f ms, speedup %.3f (%d pairs, %s)\n", i + 1,
                wall_s, j->reference.summary->median_ms, j->candidate.summary->median_ms, *j->speedup,
                j->candidate.summary->samples, j->stop_reason.c_str());
  }
  // The same warm judgments without the reference server: each starts Python
  // and imports torch afresh.
  std::vector<double> no_server_s;
  opt.reference_server = false;
  for (int i = 0; i < std::min(warm, 2); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto j = judge_candidate(task, candidate, opt, quiet);
    if (!j || j->outcome != verdict::correct)
      return std::fprintf(stderr, "judge_bench: judgment without the reference server failed: %s\n",
                          j ? j->message.c_str() : j.message().c_str()), 1;
    no_server_s.push_back(seconds_since(t0));
    std::printf("  warm, no reference server %d: %.2f s, speedup %.3f\n", i + 1, no_server_s.back(), *j->speedup);
  }
  // What the defenses cost: judgments of a fixed 100 timed pairs (the cost
  // per timed pair), then judgments under the judge's own stopping rule (at
  // least 1 s of timing, both medians' 95% CI within +-0.5%, at most 2 s):
  // what a judgment costs a user.
  judge_options fixed = opt;
  fixed.reference_server = true;
  fixed.stopping.min_samples = fixed.stopping.max_samples = 100;
  fixed.stopping.min_time_s = 0;
  fixed.stopping.max_time_s = 60;
  fixed.stopping.target_ci_rel = 0;
  judge_options adaptive = opt;
  adaptive.reference_server = true;
  std::optional<defense_series> fixed_runs, adaptive_runs;
  if (defense_runs > 0) {
    fixed_runs = with_and_without_defenses(task, candidate, fixed, defense_runs, "100 pairs",
                                           save_dir.empty() ? "" : save_dir + "/fixed");
    if (!fixed_runs) return 1;
    adaptive_runs = with_and_without_defenses(task, candidate, adaptive, defense_runs, "stopping rule",
                                              save_dir.empty() ? "" : save_dir + "/stopping");
    if (!adaptive_runs) return 1;
  }
  remove_tree(*dir);

  std::printf("\n| measure | median | min | max | target |\n|---|---|---|---|---|\n");
  if (!cold_s.empty()) {
    figures c = describe(cold_s), cc = describe(cold_compile_s);
    std::printf("| seconds per judgment, cold cache (n=%d) | %.2f | %.2f | %.2f | <= 15 |\n", cold, c.median, c.min, c.max);
    std::printf("| of which compile, cold | %.2f | %.2f | %.2f | |\n", cc.median, cc.min, cc.max);
  }
  if (!warm_s.empty()) {
    figures w = describe(warm_s), s = describe(speedups);
    std::printf("| seconds per judgment, warm cache (n=%d) | %.2f | %.2f | %.2f | <= 5 |\n", warm, w.median, w.min, w.max);
    std::printf("| speedup (n=%d) | %.3f | %.3f | %.3f | |\n", warm, s.median, s.min, s.max);
    std::printf("| speedup spread max/min | %.4f | | | <= 1.03 |\n", s.max / s.min);
    if (!no_server_s.empty()) {
      figures n = describe(no_server_s);
      std::printf("| seconds per judgment, warm cache, no reference server (n=%zu) | %.2f | %.2f | %.2f | |\n",
                  no_server_s.size(), n.median, n.min, n.max);
    }
    if (fixed_runs && adaptive_runs) {
      const defense_series& a = *adaptive_runs;
      const defense_series& f = *fixed_runs;
      figures ao = describe(a.wall_s[0]), af = describe(a.wall_s[1]);
      figures fo = describe(f.wall_s[0]), ff = describe(f.wall_s[1]);
      std::printf("| seconds per judgment, stopping rule, defenses on (n=%d) | %.2f | %.2f | %.2f | |\n", defense_runs,
                  ao.median, ao.min, ao.max);
      std::printf("| seconds per judgment, stopping rule, defenses off (n=%d) | %.2f | %.2f | %.2f | |\n", defense_runs,
                  af.median, af.min, af.max);
      std::printf("| timed pairs, stopping rule, defenses on / off | %.0f / %.0f | | | |\n", describe(a.pairs[0]).median,
                  describe(a.pairs[1]).median);
      std::printf("| defense cost per judgment, stopping rule (medians) | %+.1f%% | | | <= +25%% |\n",
                  100 * (ao.median / af.median - 1));
      std::printf("| seconds per judgment of 100 timed pairs, defenses on (n=%d) | %.2f | %.2f | %.2f | |\n", defense_runs,
                  fo.median, fo.min, fo.max);
      std::printf("| seconds per judgment of 100 timed pairs, defenses off (n=%d) | %.2f | %.2f | %.2f | |\n", defense_runs,
                  ff.median, ff.min, ff.max);
      std::printf("| defense cost per judgment of 100 timed pairs (medians) | %+.1f%% | | | |\n",
                  100 * (fo.median / ff.median - 1));
      std::printf("| ms per timed pair, defenses on / off | %.2f / %.2f | | | |\n", describe(f.pair_ms[0]).median,
                  describe(f.pair_ms[1]).median);
      // Where the stopping rule's judgments differ: each phase's median, on / off.
      for (const auto& [name, on_s] : a.phases[0]) {
        const auto& off = a.phases[1];
        auto at = std::find_if(off.begin(), off.end(), [&](const auto& p) { return p.first == name; });
        double off_s = at == off.end() ? 0.0 : describe(at->second).median;
        std::printf("| stopping rule, phase %s (s), defenses on / off | %.3f / %.3f | | | |\n", name.c_str(),
                    describe(on_s).median, off_s);
      }
    }
    for (const auto& [name, values] : phases) {
      figures f = describe(values);
      std::printf("| warm phase: %s (s) | %.3f | %.3f | %.3f | |\n", name.c_str(), f.median, f.min, f.max);
    }
  }
  return 0;
}
