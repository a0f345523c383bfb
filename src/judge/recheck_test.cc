// inconclusive_recheck_clears: when a second judgment's inconclusive clock
// check lifts a first judgment's clock disagreement.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "judge/judge.h"
#include "judge/recheck.h"
#include "base/fs.h"

namespace cudal1 {
namespace {

using nlohmann::json;

json figures(bool agrees, bool grey) {
  return {{"agrees", agrees}, {"grey_zone", grey}, {"missing_ms", agrees ? 0.05 : 0.3}, {"tolerance_ms", 0.2}};
}

json clock(bool agrees, bool grey) {
  return {{"run_beyond_window", figures(agrees, grey)}, {"agrees", agrees || grey}, {"conclusive", false}};
}

TEST(InconclusiveRecheck, ClearsOnlyWhereNothingWasMissing) {
  EXPECT_TRUE(inconclusive_recheck_clears(clock(true, false)));
  // The grey zone counts calls by the judge's clock but found time missing.
  EXPECT_FALSE(inconclusive_recheck_clears(clock(false, true)));
  EXPECT_FALSE(inconclusive_recheck_clears(clock(false, false)));
}

TEST(InconclusiveRecheck, TheFullSpeedPairsMustBeCleanToo) {
  json c = clock(true, false);
  c["full_speed_pairs"] = {{"run_beyond_window", figures(false, true)}, {"agrees", true}, {"conclusive", false}};
  EXPECT_FALSE(inconclusive_recheck_clears(c));
  c["full_speed_pairs"]["run_beyond_window"] = figures(true, false);
  EXPECT_TRUE(inconclusive_recheck_clears(c));
}

TEST(InconclusiveRecheck, MissingFiguresNeverClear) {
  EXPECT_FALSE(inconclusive_recheck_clears(json()));
  EXPECT_FALSE(inconclusive_recheck_clears(json::object()));
  EXPECT_FALSE(inconclusive_recheck_clears({{"run_beyond_window", {{"agrees", true}}}}));  // grey_zone absent
  json c = clock(true, false);
  c["full_speed_pairs"] = json::object();
  EXPECT_FALSE(inconclusive_recheck_clears(c));
}

// The span's disagreement that keeps a judgment from a second one is the
// counted pairs': the full-speed pairs' where the statistics kept those.
TEST(SpanDisagreed, TheCountedPairsDecide) {
  auto with = [](bool all, std::optional<bool> full_speed) {
    json c = {{"run_beyond_window", {{"window_disagrees", all}}}};
    if (full_speed) c["full_speed_pairs"] = {{"run_beyond_window", {{"window_disagrees", *full_speed}}}};
    return c;
  };
  EXPECT_TRUE(span_disagreed(with(true, std::nullopt)));
  EXPECT_FALSE(span_disagreed(with(false, std::nullopt)));
  // The H100 case: over all pairs 0.0252 ms over the probes', over the
  // full-speed pairs, the ones counted, 0.018 against the 0.025 floor.
  EXPECT_FALSE(span_disagreed(with(true, false)));
  EXPECT_TRUE(span_disagreed(with(false, true)));
  EXPECT_TRUE(span_disagreed(with(true, true)));
  EXPECT_FALSE(span_disagreed(json()));
  EXPECT_FALSE(span_disagreed(json::object()));
}

TEST(SpanDisagreed, NotWhereOnlyTheSlowCallsShowIt) {
  auto with = [](bool slow_only_all, std::optional<bool> slow_only_full_speed) {
    json c = {{"run_beyond_window", {{"window_disagrees", true}, {"window_disagrees_in_slow_calls_only", slow_only_all}}}};
    if (slow_only_full_speed)
      c["full_speed_pairs"] = {{"run_beyond_window",
                                {{"window_disagrees", true}, {"window_disagrees_in_slow_calls_only", *slow_only_full_speed}}}};
    return c;
  };
  // The H100 case: the calls' slack in two modes, the lower quartile 0.010
  // ms over the probes' against a 0.029 tolerance, the median 0.034 over.
  EXPECT_FALSE(span_disagreed(with(true, std::nullopt)));
  EXPECT_FALSE(span_disagreed(with(false, true)));
  // A window shaved in most calls: the lower quartile shows it too.
  EXPECT_TRUE(span_disagreed(with(false, std::nullopt)));
  EXPECT_TRUE(span_disagreed(with(true, false)));
}

// A judgment with a speedup, its relative standard error and the
// candidate's own median.
judgment judged(double speedup, double error_rel, double candidate_ms) {
  judgment j;
  j.outcome = verdict::correct;
  j.speedup = speedup;
  j.speedup_error_rel = error_rel;
  sample_summary s{};
  s.median_ms = candidate_ms;
  j.candidate.summary = s;
  return j;
}

TEST(SpeedupRecheck, AgreementFollowsTheMeasuredNoise) {
  judge_options options;  // the least tolerance 10%, at most 30%
  EXPECT_TRUE(speedups_agree(judged(4.0, 0.01, 0.05), judged(4.3, 0.01, 0.05), options));    // 7.5% apart
  EXPECT_FALSE(speedups_agree(judged(4.0, 0.01, 0.05), judged(4.6, 0.01, 0.04), options));  // 15%, noise 10%, own 20%
  EXPECT_TRUE(speedups_agree(judged(4.0, 0.05, 0.05), judged(4.6, 0.05, 0.047), options));   // 15%, noise 28%
  // The reference's time moved, not the candidate's: within three times the least.
  EXPECT_TRUE(speedups_agree(judged(4.0, 0.01, 0.05), judged(5.0, 0.01, 0.0502), options));
  EXPECT_FALSE(speedups_agree(judged(4.0, 0.01, 0.05), judged(5.4, 0.01, 0.0502), options));
}

// One timed pair has no standard error: the widest tolerance, not the least
// (a false-rejection review: 1.297x, then 1.531x in a third judgment, 18%
// apart, was rejected at the least 10%).
TEST(SpeedupRecheck, UnknownNoiseGetsTheWidestTolerance) {
  const double nan = std::nan("");
  EXPECT_DOUBLE_EQ(recheck_agreement(0.1, std::nullopt, 0.01), 0.3);
  EXPECT_DOUBLE_EQ(recheck_agreement(0.1, nan, 0.01), 0.3);
  EXPECT_DOUBLE_EQ(recheck_agreement(0.1, 0.01, 0.01), 0.1);
  judge_options options;
  judgment one_pair = judged(1.297, nan, 209.3), third = judged(1.531, nan, 205.0);
  one_pair.speedup_error_rel.reset();
  third.speedup_error_rel.reset();
  EXPECT_TRUE(speedups_agree(one_pair, third, options));
  EXPECT_FALSE(speedups_agree(one_pair, judged(2.164, nan, 150.0), options));  // 67% apart: still rejected
}

TEST(SpeedupRecheck, AThirdJudgmentDecides) {
  judge_options options;
  // The review's case: 4.19x, then 2.96x with the candidate's own median 37% slower.
  judgment first = judged(4.19, 0.03, 0.0564), second = judged(2.96, 0.03, 0.0774);
  ASSERT_FALSE(speedups_agree(first, second, options));
  judgment third = judged(4.05, 0.03, 0.0570);
  EXPECT_EQ(deciding_judgment({&first, &second}, third, options), &third);  // agrees with the first; the lower stands
  judgment higher = judged(4.30, 0.03, 0.0560);
  EXPECT_EQ(deciding_judgment({&first, &second}, higher, options), &first);
  judgment slow = judged(3.0, 0.03, 0.0770);
  EXPECT_EQ(deciding_judgment({&first, &second}, slow, options), &second);  // agrees with the second
  judgment neither = judged(6.5, 0.03, 0.036);
  EXPECT_EQ(deciding_judgment({&first, &second}, neither, options), nullptr);
  // Agreeing with both: the lowest of the three.
  judgment a = judged(4.0, 0.05, 0.05), b = judged(5.3, 0.05, 0.04), c = judged(4.6, 0.05, 0.045);
  ASSERT_FALSE(speedups_agree(a, b, options));
  EXPECT_EQ(deciding_judgment({&a, &b}, c, options), &a);
}

// A busy stretch can outlast two judgments (an honest CPU swish beside a
// neighbour that loaded the 2-core VM, its first judgment with both medians
// about twice their quiet level): a later judgment that agrees with any
// before it decides; one that agrees with none leaves it to the next.
TEST(SpeedupRecheck, ALaterJudgmentDecides) {
  judge_options options;
  judgment first = judged(0.473, 0.01, 1.16), second = judged(0.30, 0.01, 0.80), third = judged(0.386, 0.01, 0.618);
  ASSERT_FALSE(speedups_agree(first, second, options));
  ASSERT_EQ(deciding_judgment({&first, &second}, third, options), nullptr);
  judgment fourth = judged(0.391, 0.01, 0.612);
  EXPECT_EQ(deciding_judgment({&first, &second, &third}, fourth, options), &third);  // the lower of the two
  judgment erratic = judged(0.62, 0.01, 0.37);
  EXPECT_EQ(deciding_judgment({&first, &second, &third}, erratic, options), nullptr);
}

// recheck_speedup_with() over scripted judgments: the re-measurements the
// judge would make, in order, and how many it asked for.
struct scripted {
  std::vector<judgment> next;
  size_t asked = 0;
  std::function<result<judgment>()> fn() {
    return [this]() -> result<judgment> {
      if (asked >= next.size()) return make_error("no more scripted judgments");
      return next[asked++];
    };
  }
};

judgment vouched(judgment j) {  // its clock check agreed, conclusively
  j.judge_clock = {{"agrees", true}, {"conclusive", true}};
  return j;
}

judgment clock_rejected() {
  judgment j;
  j.outcome = verdict::rejected;
  j.message = "timer_tampering: the worker's time is short of the judge's own clock";
  j.hacks.push_back({"timer_tampering", "0.156 ms unaccounted, at most 0.0558"});
  return j;
}

const check_result* find_check(const judgment& j, const std::string& name) {
  for (const auto& c : j.checks)
    if (c.name == name) return &c;
  return nullptr;
}

// A busy stretch that outlasts three judgments: the fourth decides.
TEST(SpeedupRecheckRun, AFourthJudgmentDecides) {
  judge_options options;
  no_progress quiet;
  scripted s{{judged(0.30, 0.01, 0.80), judged(0.386, 0.01, 0.618), judged(0.391, 0.01, 0.612)}};
  auto out = recheck_speedup_with(judged(0.473, 0.01, 1.16), options, "above 2 times the best seen", quiet, s.fn());
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(s.asked, 3u);
  EXPECT_EQ(out->outcome, verdict::correct);
  EXPECT_DOUBLE_EQ(*out->speedup, 0.386);  // the lower of the two that agree
  EXPECT_EQ(out->rechecks.size(), 3u);
  const check_result* c = find_check(*out, "speedup_recheck");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->pass);
  EXPECT_NE(c->reason.find("in a fourth judgment: it agrees with the third"), std::string::npos) << c->reason;
}

TEST(SpeedupRecheckRun, NoTwoAgreeingIsRejectedAfterTheLast) {
  judge_options options;
  options.recheck_judgments = 4;
  no_progress quiet;
  scripted s{{judged(2.0, 0.01, 0.5), judged(6.0, 0.01, 0.17), judged(9.0, 0.01, 0.11), judged(1.0, 0.01, 1.0)}};
  auto out = recheck_speedup_with(judged(4.0, 0.01, 0.25), options, "above 3x", quiet, s.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(s.asked, 3u);  // four judgments in all
  EXPECT_EQ(out->outcome, verdict::rejected);
  ASSERT_EQ(out->hacks.size(), 1u);
  EXPECT_EQ(out->hacks[0].cls, "unstable_speedup");
  EXPECT_FALSE(out->speedup);
  // CUDA-L1's rule: one re-measurement.
  options.recheck_judgments = 2;
  scripted one{{judged(2.0, 0.01, 0.5)}};
  out = recheck_speedup_with(judged(4.0, 0.01, 0.25), options, "above 3x", quiet, one.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(one.asked, 1u);
  EXPECT_EQ(out->outcome, verdict::rejected);
}

// A re-measurement rejected on its clock alone, after a first whose clock
// vouched for its window: the next judgment decides.
TEST(SpeedupRecheckRun, AClockRejectionAfterAVouchedFirstIsOneAgainstOne) {
  judge_options options;
  no_progress quiet;
  scripted s{{clock_rejected(), judged(3.67, 0.003, 0.1874)}};
  auto out = recheck_speedup_with(vouched(judged(3.68, 0.003, 0.1873)), options, "above 3x", quiet, s.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(s.asked, 2u);
  EXPECT_EQ(out->outcome, verdict::correct);
  EXPECT_DOUBLE_EQ(*out->speedup, 3.67);
  EXPECT_EQ(out->rechecks.size(), 2u);
  const check_result* c = find_check(*out, "speedup_recheck");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->reason.find("then rejected in fresh processes on its clock alone, then 3.670x in a third judgment"),
            std::string::npos) << c->reason;

  // A second such rejection stands.
  scripted twice{{clock_rejected(), clock_rejected()}};
  out = recheck_speedup_with(vouched(judged(3.68, 0.003, 0.1873)), options, "above 3x", quiet, twice.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(twice.asked, 2u);
  EXPECT_EQ(out->outcome, verdict::rejected);
  EXPECT_EQ(out->hacks.back().cls, "timer_tampering");

  // Not where the first's clock did not vouch (it was timed by the judge's
  // clock, or the check could not tell): the rejection stands at once.
  scripted unvouched{{clock_rejected(), judged(3.67, 0.003, 0.1874)}};
  out = recheck_speedup_with(judged(3.68, 0.003, 0.1873), options, "above 3x", quiet, unvouched.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(unvouched.asked, 1u);
  EXPECT_EQ(out->outcome, verdict::rejected);

  // Nor for any other class: a re-measurement that finds a thread left
  // running stands.
  judgment thread = clock_rejected();
  thread.hacks = {{"background_thread", "a thread still running"}};
  scripted other{{thread, judged(3.67, 0.003, 0.1874)}};
  out = recheck_speedup_with(vouched(judged(3.68, 0.003, 0.1873)), options, "above 3x", quiet, other.fn());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(other.asked, 1u);
  EXPECT_EQ(out->outcome, verdict::rejected);
  EXPECT_EQ(out->hacks.back().cls, "background_thread");
}

// A second judgment in place of the first (the clock judged again) found the
// first's build in the cache; how the first built it stays said: for a
// ModelNew too (CI at 73a76f9: a build retried afresh after its fork died,
// then a second judgment, and the retry was no longer said).
TEST(ClockJudgedAgain, TheFirstBuildStaysSaid) {
  for (const char* cached : {"found in the compile cache", "its build found in the cache"}) {
    judgment first, second;
    first.checks = {{"compile", true, "built in 15.0 s (started afresh: the candidate server's fork ended)"},
                    {"correctness", true, "5/5"}};
    second.checks = {{"compile", true, cached}, {"correctness", true, "5/5"}};
    say_first_build(second, first);
    EXPECT_EQ(second.checks[0].reason, std::string(cached) + " (made by the first judgment: built in 15.0 s (started "
                                                             "afresh: the candidate server's fork ended))");
    EXPECT_EQ(second.checks[1].reason, "5/5");
  }
  // A second judgment that built for itself keeps its own reason.
  judgment first, second;
  first.checks = {{"compile", true, "built in 15.0 s"}};
  second.checks = {{"compile", true, "built in 14.0 s"}};
  say_first_build(second, first);
  EXPECT_EQ(second.checks[0].reason, "built in 14.0 s");
}

// Judges running at once (a suite run's workers) each record the best for
// their task: none is lost. Before the lock, each record() read the file,
// added its key and replaced the file, so the last writer dropped the rest.
TEST(BestSpeedups, ConcurrentRecordsAreAllKept) {
  auto dir = make_temp_dir("cudal1-best-test");
  ASSERT_TRUE(dir);
  const std::string path = *dir + "/best-speedups.json";
  constexpr int kProcesses = 6, kKeys = 40;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      best_speedups store(path);
      for (int k = 0; k < kKeys; ++k) store.record("task-" + std::to_string(p) + "-" + std::to_string(k), 1.0 + k);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  best_speedups store(path);
  int kept = 0;
  for (int p = 0; p < kProcesses; ++p)
    for (int k = 0; k < kKeys; ++k)
      if (auto b = store.best("task-" + std::to_string(p) + "-" + std::to_string(k)); b && *b == 1.0 + k) ++kept;
  EXPECT_EQ(kept, kProcesses * kKeys);
  // Only a higher speedup replaces a best.
  store.record("task-0-5", 2.0);
  EXPECT_EQ(store.best("task-0-5"), 6.0);
  store.record("task-0-5", 7.5);
  EXPECT_EQ(store.best("task-0-5"), 7.5);
  remove_tree(*dir);
}

// The lock is exclusive between processes while held, and free once the
// holder is gone.
TEST(FileLock, ExcludesOtherHoldersUntilReleased) {
  auto dir = make_temp_dir("cudal1-lock-test");
  ASSERT_TRUE(dir);
  const std::string path = *dir + "/x.lock";
  {
    file_lock first(path);
    ASSERT_TRUE(first.held());
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(file_lock(path, 0.1).held() ? 1 : 0);  // a separate open file: must wait, then give up
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "a second holder took a held lock";
  }
  EXPECT_TRUE(file_lock(path, 0.1).held());
  remove_tree(*dir);
}

}  // namespace
}  // namespace cudal1
