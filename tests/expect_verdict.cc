// expect_verdict: runs `cudal1 eval ... --json` and checks each candidate's
// verdict against the first line of its source ("// expect: VERDICT", or
// "# expect: VERDICT" in a Python candidate) and, where its second line says
// "// expect-hack: CLASS" ("# expect-hack: CLASS"), that the judgment
// reports a hack of that class (and none where it says nothing, but a
// class that one of its first five lines allows: "expect-hack-allowed: CLASS").
//
// A clock forger (expect-hack: timer_tampering) may instead be judged
// `correct` where the judge's clock check could not tell (a busy machine:
// the probes' noise exceeds the grey zone), but only with nothing gained:
// every call then counts at the judge's own clock, so the judgment must
// carry the `timer_judge_clock` check and a median at least twice the
// window the worker reported (each corpus forger reports a third or less),
// or R times where the third line says "// expect-forged-ratio: R".
// An attack whose trick depends on the scheduler may also be judged correct
// at its honest level, below X where a line says "// expect-correct-below: X".
//
//   expect_verdict CUDAL1 [--expect-exit N] [--expect-stderr TEXT] [--expect-check NAME]
//                  [--expect-outside-charge] -- TASK CAND... [eval flags]
//
// With --expect-exit, checks the exit status and that the output contains
// TEXT instead (for unusable input). Prints what cudal1 printed either way.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/subprocess.h"

namespace {

// The value of a tag line ("// NAME: value" or "# NAME: value"), or empty.
std::string tag_value(const std::string& line, const std::string& name) {
  for (const std::string prefix : {"// ", "# "}) {
    std::string tag = prefix + name + ": ";
    if (line.rfind(tag, 0) == 0) return line.substr(tag.size());
  }
  return "";
}

std::string expected_verdict(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return tag_value(line, "expect");
}

// The hack class a candidate must be caught with ("// expect-hack: CLASS" on
// its second line), or empty.
std::string expected_hack(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  return tag_value(line, "expect-hack");
}

// The hack classes a candidate may be reported with beside its verdict,
// though it need not be ("// expect-hack-allowed: CLASS" or "# ..." among
// its first five lines), or empty.
std::string allowed_hack(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < 5 && std::getline(in, line); ++i)
    if (std::string v = tag_value(line, "expect-hack-allowed"); !v.empty()) return v;
  return "";
}

// The ratio of a forger's true window to the one it reports, at least
// ("// expect-forged-ratio: R" on the third line; 2 where it says nothing).
double forged_ratio(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < 3; ++i) std::getline(in, line);
  std::string v = tag_value(line, "expect-forged-ratio");
  return v.empty() ? 2.0 : std::stod(v);
}

// An attack whose trick depends on the scheduler may find no opening in a
// judgment and do its honest work: a correct verdict below this speedup
// ("// expect-correct-below: X" among the first five lines) is its honest
// level, nothing gained; 0 where the file says nothing.
double correct_below(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < 5 && std::getline(in, line); ++i)
    if (std::string v = tag_value(line, "expect-correct-below"); !v.empty()) return std::stod(v);
  return 0;
}

// A forged window the judge's clock overruled: the judgment was timed by the
// judge's clock (the `timer_judge_clock` check) and its median is at least
// `ratio` times the median the worker reported.
bool neutralized(const nlohmann::json& j, double ratio, std::string& why) {
  bool judge_clock = false;
  for (const auto& c : j["checks"]) judge_clock |= c.value("name", "") == "timer_judge_clock" && c.value("pass", false);
  if (!judge_clock) {
    why = "correct without the judge's clock timing the calls: the forged window stood";
    return false;
  }
  const auto& worker = j["judge_clock"]["worker_samples_ms"];
  std::vector<double> w;
  for (const auto& x : worker) w.push_back(x.get<double>());
  if (w.empty()) {
    why = "no worker samples kept beside the judge's clock";
    return false;
  }
  std::sort(w.begin(), w.end());
  double worker_median = w.size() % 2 ? w[w.size() / 2] : (w[w.size() / 2 - 1] + w[w.size() / 2]) / 2;
  double judged = j["candidate"].value("median_ms", 0.0);
  char buf[200];
  std::snprintf(buf, sizeof buf, "judged median %.4g ms against the worker's forged %.4g ms (%.2fx)", judged, worker_median,
                judged / worker_median);
  why = buf;
  return judged >= ratio * worker_median;
}

// A judgment judged again in fresh processes keeps the other judgment's
// figures: a second that replaced the first keeps the first's in
// `earlier_judgments`, a first that stood keeps the second's in `rechecks`;
// and nothing is kept in `earlier_judgments` without such a check.
bool kept_figures(const nlohmann::json& j, std::string& why) {
  int replaced = 0, stood = 0;
  for (const auto& c : j["checks"]) {
    const std::string name = c.value("name", ""), reason = c.value("reason", "");
    if (name == "reference_lost_again" || (name == "timer_cross_check_again" && reason.find("stands") != std::string::npos &&
                                           reason.rfind("judged again in fresh processes", 0) == 0))
      ++stood;
    else if (name == "reference_lost_once" || name == "timer_cross_check_again")
      ++replaced;
  }
  const auto earlier = j.value("earlier_judgments", nlohmann::json::array());
  const auto rechecks = j.value("rechecks", nlohmann::json::array());
  auto figures = [](const nlohmann::json& list) {
    return std::all_of(list.begin(), list.end(),
                       [](const nlohmann::json& x) { return x.contains("verdict") && x.value("seconds", 0.0) > 0; });
  };
  char buf[200];
  std::snprintf(buf, sizeof buf, "%d judgment(s) replaced, %zu in earlier_judgments; %d second(s) that did not stand, %zu in rechecks",
                replaced, earlier.size(), stood, rechecks.size());
  why = buf;
  return static_cast<int>(earlier.size()) == replaced && rechecks.size() >= static_cast<size_t>(stood) &&
         figures(earlier) && figures(rechecks);
}

bool is_candidate(const std::string& arg) {
  for (const char* ext : {".cu", ".cpp", ".py"})
    if (arg.size() > 4 && arg.compare(arg.size() - std::string(ext).size(), std::string::npos, ext) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: expect_verdict CUDAL1 [--expect-exit N] [--expect-stderr TEXT] [--expect-check NAME] [--expect-outside-charge] -- TASK CAND... [flags]\n");
    return 2;
  }
  std::vector<std::string> cmd = {argv[1], "eval", "--json"};
  int expect_exit = 0;
  std::string expect_text, override_verdict, override_hack, expect_check;
  bool expect_charged = false;
  int i = 2;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    std::string a = argv[i];
    if (a == "--expect-exit" && i + 1 < argc) expect_exit = std::stoi(argv[++i]);
    else if (a == "--expect-stderr" && i + 1 < argc) expect_text = argv[++i];
    else if (a == "--expect-verdict" && i + 1 < argc) override_verdict = argv[++i];  // instead of the files' lines
    else if (a == "--expect-hack" && i + 1 < argc) override_hack = argv[++i];
    else if (a == "--expect-check" && i + 1 < argc) expect_check = argv[++i];  // a check of this name must be there
    else if (a == "--expect-outside-charge") expect_charged = true;  // most timed calls charged work outside the window
  }
  std::vector<std::string> expected, expected_hacks, allowed_hacks;
  std::vector<double> ratios, below;
  for (++i; i < argc; ++i) {
    cmd.push_back(argv[i]);
    // The task comes right after "--", so the arg before it starts with "--"
    // as a flag's does: a .py task is never taken for a candidate.
    if (is_candidate(argv[i]) && std::string(argv[i - 1]).rfind("--", 0) != 0) {
      expected.push_back(override_verdict.empty() ? expected_verdict(argv[i]) : override_verdict);
      expected_hacks.push_back(override_verdict.empty() ? expected_hack(argv[i]) : override_hack);
      allowed_hacks.push_back(override_verdict.empty() ? allowed_hack(argv[i]) : "");
      ratios.push_back(forged_ratio(argv[i]));
      below.push_back(override_verdict.empty() ? correct_below(argv[i]) : 0);
    }
  }
  auto run = cudal1::run_command(cmd, 280);
  if (!run) {
    std::fprintf(stderr, "cannot run cudal1: %s\n", run.message().c_str());
    return 1;
  }
  std::printf("%s\n", run->output.c_str());
  if (run->timed_out || !run->exit.exited) {
    std::printf("FAIL: cudal1 did not finish normally (%s)\n", run->exit.describe().c_str());
    return 1;
  }
  if (run->exit.code != expect_exit) {
    std::printf("FAIL: exit status %d, expected %d\n", run->exit.code, expect_exit);
    return 1;
  }
  if (expect_exit != 0) {
    if (run->output.find(expect_text) == std::string::npos) {
      std::printf("FAIL: output does not mention '%s'\n", expect_text.c_str());
      return 1;
    }
    int lines = 0;
    for (char c : run->output) lines += c == '\n';
    if (lines > 3) {
      std::printf("FAIL: an input error should be a short message, got %d lines\n", lines);
      return 1;
    }
    std::printf("PASS: exit %d with '%s'\n", expect_exit, expect_text.c_str());
    return 0;
  }
  std::istringstream out(run->output);
  size_t seen = 0;
  int failures = 0;
  for (std::string line; std::getline(out, line);) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || seen >= expected.size()) continue;
    std::string got = j.value("verdict", "?");
    std::string want_hack = expected_hacks[seen], may_hack = allowed_hacks[seen];
    const double ratio = ratios[seen], honest_below = below[seen];
    std::string want = expected[seen++];
    bool ok = got == want;
    if (!ok && honest_below > 0 && got == "correct" && j.contains("speedup") && j["speedup"].is_number() &&
        j["hacks"].empty()) {
      const double speedup = j["speedup"].get<double>();
      std::printf("%s: correct at %.3fx, its honest level below %.3gx (the attack found no opening)\n",
                  speedup < honest_below ? "PASS" : "FAIL", speedup, honest_below);
      if (speedup < honest_below) continue;
    }
    if (!ok && want == "rejected" && want_hack == "timer_tampering" && got == "correct") {
      std::string why;
      ok = neutralized(j, ratio, why);
      std::printf("%s: %s\n", ok ? "PASS (neutralized, not rejected)" : "FAIL", why.c_str());
      if (ok) {
        std::printf("PASS: correct at the judge's clock (expected rejected or neutralized)\n");
        continue;
      }
    }
    if (ok && !want_hack.empty()) {
      bool caught = false;
      for (const auto& h : j["hacks"]) caught |= h.value("class", "") == want_hack;
      if (!caught) std::printf("FAIL: no hack of class %s reported\n", want_hack.c_str());
      ok = caught;
    }
    const bool only_allowed = !may_hack.empty() && std::all_of(j["hacks"].begin(), j["hacks"].end(), [&](const auto& h) {
      return h.value("class", "") == may_hack;
    });
    if (ok && want_hack.empty() && !j["hacks"].empty() && !only_allowed) {
      std::printf("FAIL: hacks reported where none was expected: %s\n", j["hacks"].dump().c_str());
      ok = false;
    }
    if (ok && got == "correct") {
      ok = j["speedup"].is_number() && j["speedup"].get<double>() > 0 && j["candidate"]["samples"].get<int>() > 0;
      if (!ok) std::printf("FAIL: a correct verdict must carry a speedup and samples\n");
    }
    if (ok && !expect_check.empty()) {
      bool present = false;
      for (const auto& c : j["checks"]) present |= c.value("name", "") == expect_check;
      if (!present) std::printf("FAIL: no check named %s\n", expect_check.c_str());
      ok = present;
    }
    if (ok && expect_charged) {
      const auto& o = j["judge_clock"].value("outside_window_cpu", nlohmann::json::object());
      const int charged = o.value("calls_charged", 0), timed = j["candidate"].value("samples", 0);
      ok = o.value("measured", false) && 2 * charged > timed;
      std::printf("%s: %d of %d timed calls charged work outside the window\n", ok ? "PASS" : "FAIL", charged, timed);
    }
    if (std::string why; ok && !kept_figures(j, why)) {
      std::printf("FAIL: the figures of a judgment judged again: %s\n", why.c_str());
      ok = false;
    }
    if (ok && got != "correct" && got != "incorrect" && j.value("message", "").empty()) {
      std::printf("FAIL: verdict %s must come with a message\n", got.c_str());
      ok = false;
    }
    std::printf("%s: %s (expected %s)\n", ok ? "PASS" : "FAIL", got.c_str(), want.c_str());
    failures += !ok;
  }
  if (seen != expected.size()) {
    std::printf("FAIL: %zu verdicts for %zu candidates\n", seen, expected.size());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
