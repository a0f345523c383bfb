// stability_bench: does a correct candidate get the same verdict and the
// same speedup, judgment after judgment?
//
//   stability_bench [--task TASK] [--candidate CAND] [--profiles P1,P2] [--runs N] [--save DIR]
//                   [--also "JUDGE OPTIONS"]... [judge options]
//
// N judgments (default 20) of one correct candidate on each size profile,
// interleaved (run 1 of every profile, then run 2, ...) so that drift hits
// every profile alike. The judge's own settings stand, the speedup re-check
// included: it is part of what is measured. Prints one line per judgment,
// then per profile the rejected count (target 0) and the speedup's spread
// max/min (targets: <= 1.05 where the reference takes ~0.1 ms, <= 1.01 at
// ~0.6 ms). Defaults to the swish example with the CUDA candidate on the
// profiles p100us,p600us where a GPU is, else the CPU candidate on "cpu".
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/fs.h"
#include "base/json_text.h"
#include "base/subprocess.h"
#include "cli/options.h"
#include "judge/judge.h"
#include "report/report.h"

namespace {

using cudal1::judgment;

constexpr const char* kUsage =
    "usage: stability_bench [--task TASK] [--candidate CAND] [--profiles P1,P2] [--runs N] [--save DIR]\n"
    "                       [--also \"JUDGE OPTIONS\"]... [judge options]\n";

constexpr const char* kHelp = R"(
Judges one correct candidate N times on each size profile of its task and
says how stable the outcome is: how many judgments were rejected (target 0)
and the spread max/min of the speedups (targets: <= 1.05 where the reference
takes ~0.1 ms, profile p100us; <= 1.01 at ~0.6 ms, profile p600us). The
profiles are interleaved (run 1 of each, then run 2, ...), so drift hits all
alike. The judge's defaults stand, the speedup re-check included: a re-check
that fails (rejected, unstable_speedup) is an instability this measures.

options:
  --task TASK           KernelBench-format task (default: examples/swish/task.py)
  --candidate CAND      a correct candidate (default: examples/swish/cuda/correct.cu
                        where a GPU is, else examples/swish/cpu/correct.cpp)
  --profiles P1,P2      size profiles (cudal1_profiles in the task), comma-separated;
                        "default" is the task's own sizes (on the CPU backend:
                        "cpu" when the task has it). Default: p100us,p600us on
                        CUDA, cpu on the CPU
  --runs N              judgments per profile (default 20)
  --save DIR            write each judgment's JSON (PROFILE-RUN.json, raw samples
                        included) and summary.json there
  --also "OPTIONS"      side by side in the same run: each profile also judged
                        with these judge options added (split at spaces), as a
                        series named PROFILE+OPTIONS interleaved with the
                        judgments without; repeatable. For example
                        --also "--reference-warm-call on" --also "--baseline cuda_graph"
  --also-replace-every K
                        the same as --also "--reference-replace-every K"
  -h, --help            this help

One line per judgment: profile, run, verdict, speedup (and the re-check's),
the reference's median ms and its IQR as % of the median, the candidate's
median ms, the stopping rule's reason, the seconds it took, and the hacks of
a rejected judgment. Then a table per profile: runs, rejected, other
verdicts, speedup median, min, max, max/min (over every judgment with a
speedup), the median of the reference medians, the target.

The judge options are those of `cudal1 eval`, but for --profile (use --profiles).
)";

// The spread each default profile must stay within (see the header).
const std::map<std::string, double> kMaxOverMinTarget = {{"p100us", 1.05}, {"p600us", 1.01}};

struct figures {
  double median = 0, min = 0, max = 0;
};

figures describe(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// What one profile's judgments came to.
struct profile_series {
  std::string name;     // the profile, and +OPTIONS where options are added
  std::string profile;  // the task's size profile
  cudal1::judge_options opt;  // the options its judgments run with
  int runs = 0, rejected = 0, other = 0;  // other: neither correct nor rejected
  std::vector<double> speedups, reference_ms;
  std::vector<std::string> verdicts;  // in run order
};

std::string describe_hacks(const judgment& j) {
  std::string out;
  for (const auto& h : j.hacks) out += (out.empty() ? "" : "; ") + h.cls + ": " + h.evidence;
  if (out.empty() && j.outcome != cudal1::verdict::correct) out = j.message.substr(0, j.message.find('\n'));
  return out;
}

// One line per judgment, written as it ends.
void print_judgment(const std::string& profile, int run, int runs, const judgment& j, double wall_s) {
  std::printf("  %-8s %2d/%d  %-13s", profile.c_str(), run, runs, to_string(j.outcome));
  if (j.speedup) std::printf("  speedup %.4f", *j.speedup);
  if (j.recheck_speedup) std::printf("  recheck %.4f", *j.recheck_speedup);
  if (j.reference.summary)
    std::printf("  reference %.4f ms (IQR %.2f%%)", j.reference.summary->median_ms, 100 * j.reference.summary->rel_iqr);
  if (j.candidate.summary) std::printf("  candidate %.4f ms", j.candidate.summary->median_ms);
  std::printf("  %s  %.2f s", j.stop_reason.empty() ? "-" : j.stop_reason.c_str(), wall_s);
  // The host over the timed phase: the reference's probe (median) and the
  // time the hypervisor took from the workers' CPUs.
  if (j.host.is_object()) {
    std::vector<double> probe;
    for (const auto& v : j.host.value("reference_probe_us", nlohmann::json::array()))
      if (v.is_number() && v.get<double>() >= 0) probe.push_back(v.get<double>());
    if (!probe.empty()) std::printf("  host %.1f us", describe(probe).median);
    const nlohmann::json cpus = j.host.value("cpus", nlohmann::json::object());
    for (const auto& [cpu, t] : cpus.items())
      std::printf("  cpu%s steal %.2f s", cpu.c_str(), t.value("steal_s", 0.0));
  }
  if (j.outcome != cudal1::verdict::correct) std::printf("  [%s]", describe_hacks(j).c_str());
  std::printf("\n");
  std::fflush(stdout);
}

void add_to(profile_series& s, const judgment& j) {
  ++s.runs;
  s.verdicts.push_back(to_string(j.outcome));
  if (j.outcome == cudal1::verdict::rejected) ++s.rejected;
  else if (j.outcome != cudal1::verdict::correct) ++s.other;
  if (j.speedup) s.speedups.push_back(*j.speedup);
  if (j.reference.summary) s.reference_ms.push_back(j.reference.summary->median_ms);
}

nlohmann::json summary_of(const profile_series& s) {
  figures sp = describe(s.speedups);
  nlohmann::json out = {{"profile", s.name}, {"runs", s.runs}, {"rejected", s.rejected}, {"other_verdicts", s.other},
                        {"speedup_median", sp.median}, {"speedup_min", sp.min}, {"speedup_max", sp.max},
                        {"speedup_max_over_min", sp.min > 0 ? nlohmann::json(sp.max / sp.min) : nlohmann::json()},
                        {"reference_median_ms", describe(s.reference_ms).median}, {"speedups", s.speedups},
                        {"reference_medians_ms", s.reference_ms}, {"verdicts", s.verdicts}};
  auto target = kMaxOverMinTarget.find(s.profile);
  out["target_max_over_min"] = target == kMaxOverMinTarget.end() ? nlohmann::json() : nlohmann::json(target->second);
  return out;
}

void print_table(const std::vector<profile_series>& series) {
  std::printf("\n| profile | runs | rejected | other verdicts | speedup median | min | max | max/min | "
              "reference median ms | target max/min |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& s : series) {
    figures sp = describe(s.speedups);
    auto target = kMaxOverMinTarget.find(s.profile);
    char target_text[32] = "";
    if (target != kMaxOverMinTarget.end()) std::snprintf(target_text, sizeof target_text, "<= %.2f", target->second);
    std::printf("| %s | %d | %d | %d | %.4f | %.4f | %.4f | %.4f | %.4f | %s |\n", s.name.c_str(), s.runs, s.rejected,
                s.other, sp.median, sp.min, sp.max, sp.min > 0 ? sp.max / sp.min : 0.0, describe(s.reference_ms).median,
                target_text);
  }
  std::printf("(rejected: target 0; the speedup figures are over every judgment that has a speedup)\n");
}

struct bench_args {
  std::string task, candidate, profiles, save_dir;
  int runs = 20;
  std::vector<std::string> also;  // --also: each an extra series per profile
  cudal1::judge_options opt;
};

// The judge options `base` with those of `extra` (split at spaces) applied.
bool apply_options(const std::string& extra, cudal1::judge_options& opt, std::string* error) {
  cudal1::args_t words;
  for (size_t at = 0; at < extra.size();) {
    size_t end = extra.find(' ', at);
    if (end == std::string::npos) end = extra.size();
    if (end > at) words.push_back(extra.substr(at, end - at));
    at = end + 1;
  }
  cudal1::option_reader r{words, 0, ""};
  for (; r.i < words.size(); ++r.i) {
    bool ok = true;
    if (!cudal1::read_judge_option(r, opt, &ok)) r.error = "unknown judge option " + words[r.i];
    if (!ok || !r.error.empty()) {
      *error = "--also \"" + extra + "\": " + (r.error.empty() ? "bad value" : r.error);
      return false;
    }
  }
  return true;
}

// Returns -1 to go on, else the exit status.
int parse_args(int argc, char** argv, bench_args& b) {
  cudal1::args_t args(argv + 1, argv + argc);
  cudal1::option_reader r{args, 0, ""};
  for (; r.i < args.size(); ++r.i) {
    const std::string& a = args[r.i];
    std::string flag = a.substr(0, a.find('='));
    bool ok = true;
    if (a == "-h" || a == "--help") return std::printf("%s%s%s", kUsage, kHelp, cudal1::kJudgeOptionsHelp), 0;
    if (flag == "--task") ok = r.value(&b.task);
    else if (flag == "--candidate") ok = r.value(&b.candidate);
    else if (flag == "--profiles") ok = r.value(&b.profiles);
    else if (flag == "--save") ok = r.value(&b.save_dir);
    else if (flag == "--runs") ok = r.integer(&b.runs, 1);
    else if (flag == "--also") {
      std::string extra;
      ok = r.value(&extra);
      if (ok) b.also.push_back(extra);
    } else if (flag == "--also-replace-every") {
      int k = 0;
      ok = r.integer(&k, 1);
      if (ok) b.also.push_back("--reference-replace-every " + std::to_string(k));
    }
    else if (flag == "--profile") {
      r.error = "--profile: name the profiles with --profiles P1,P2";
      ok = false;
    } else if (!cudal1::read_judge_option(r, b.opt, &ok)) {
      r.error = "unknown option " + a;
      ok = false;
    }
    if (!ok) return std::fprintf(stderr, "stability_bench: %s\n%s", r.error.c_str(), kUsage), 2;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudal1;
  bench_args b;
  if (int status = parse_args(argc, argv, b); status >= 0) return status;
  std::string examples = std::filesystem::path(executable_dir() + "/../../examples/swish").lexically_normal();
  if (b.task.empty()) b.task = examples + "/task.py";
  if (b.candidate.empty())
    b.candidate = examples + (auto_backend() == "cuda" ? "/cuda/correct.cu" : "/cpu/correct.cpp");
  auto backend = resolve_backend(b.candidate, b.opt.backend);
  if (!backend) return std::fprintf(stderr, "stability_bench: %s\n", backend.message().c_str()), 2;
  if (b.profiles.empty()) b.profiles = *backend == "cuda" ? "p100us,p600us" : "cpu";
  std::vector<profile_series> series;
  for (const auto& name : split_commas(b.profiles)) {
    series.emplace_back();
    series.back().name = series.back().profile = name;
    series.back().opt = b.opt;
    for (const auto& extra : b.also) {
      profile_series s;
      s.profile = name;
      s.name = name + "+" + extra;
      s.opt = b.opt;
      std::string error;
      if (!apply_options(extra, s.opt, &error)) return std::fprintf(stderr, "stability_bench: %s\n", error.c_str()), 2;
      series.push_back(s);
    }
  }
  if (series.empty()) return std::fprintf(stderr, "stability_bench: --profiles names none\n"), 2;
  if (!b.save_dir.empty())
    if (auto made = make_dirs(b.save_dir); !made)
      return std::fprintf(stderr, "stability_bench: %s\n", made.message().c_str()), 1;
  std::printf("stability_bench: %s / %s, backend %s, profiles %s, %d runs each (judge defaults, re-check on)\n",
              b.task.c_str(), b.candidate.c_str(), backend->c_str(), b.profiles.c_str(), b.runs);

  no_progress quiet;
  nlohmann::json saved = nlohmann::json::array();
  for (int run = 1; run <= b.runs; ++run) {
    for (auto& s : series) {
      judge_options opt = s.opt;
      opt.profile = s.profile == "default" ? "" : s.profile;
      auto t0 = std::chrono::steady_clock::now();
      auto j = judge_candidate(b.task, b.candidate, opt, quiet);
      double wall_s = seconds_since(t0);
      if (!j) return std::fprintf(stderr, "stability_bench: %s: %s\n", s.name.c_str(), j.message().c_str()), 1;
      print_judgment(s.name, run, b.runs, *j, wall_s);
      add_to(s, *j);
      if (!b.save_dir.empty()) {
        std::string file = s.name + "-" + std::to_string(run) + ".json";
        for (char& c : file)
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+') c = '_';
        nlohmann::json saved_j = judgment_to_json(*j);
        saved_j["bench_ended_at"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        (void)write_file_atomic(b.save_dir + "/" + file, json_text(saved_j));
        saved.push_back(file);
      }
    }
  }
  print_table(series);
  if (!b.save_dir.empty()) {
    nlohmann::json summary = {{"task", b.task}, {"candidate", b.candidate}, {"backend", *backend},
                              {"runs", b.runs}, {"judgments", saved}, {"profiles", nlohmann::json::array()}};
    for (const auto& s : series) summary["profiles"].push_back(summary_of(s));
    if (auto w = write_file_atomic(b.save_dir + "/summary.json", json_text(summary, 2) + "\n"); !w)
      return std::fprintf(stderr, "stability_bench: %s\n", w.message().c_str()), 1;
    std::printf("saved: %s (%zu judgments and summary.json)\n", b.save_dir.c_str(), saved.size());
  }
  return 0;
}
