#include "report/report.h"

#include <gtest/gtest.h>

#include "judge/judge.h"

namespace cudal1 {
namespace {

judgment correct_judgment() {
  judgment j;
  j.outcome = verdict::correct;
  j.reference.samples_ms = {2.0, 2.1, 1.9};
  j.candidate.samples_ms = {0.5, 0.5, 0.6};
  j.reference.summary = summarize_samples(j.reference.samples_ms);
  j.candidate.summary = summarize_samples(j.candidate.samples_ms);
  j.speedup = 4.0;
  j.error.measured = true;
  j.error.max_abs = 1e-6;
  j.error.rel_norm = 1e-7;  // max_rel left infinite
  j.checks.push_back({"correctness", true, "5/5"});
  j.device = {{"name", "Test GPU"}};
  j.backend = "cuda";
  j.candidate_path = "/x/cand.cu";
  return j;
}

TEST(ReportJson, HasTheDocumentedFields) {
  auto j = judgment_to_json(correct_judgment());
  for (const char* key : {"verdict", "speedup", "reference", "candidate", "error", "checks", "message", "device", "backend"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["verdict"], "correct");
  EXPECT_DOUBLE_EQ(j["speedup"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["reference"]["median_ms"].get<double>(), 2.0);
  EXPECT_EQ(j["candidate"]["samples"], 3);
  EXPECT_TRUE(j["error"]["max_rel"].is_null());
  EXPECT_EQ(j["checks"][0]["name"], "correctness");
}

TEST(ReportJson, FailedVerdictHasNullSpeedupAndTimings) {
  judgment j;
  j.outcome = verdict::timeout;
  j.message = "did not finish";
  auto out = judgment_to_json(j);
  EXPECT_EQ(out["verdict"], "timeout");
  EXPECT_TRUE(out["speedup"].is_null());
  EXPECT_TRUE(out["candidate"].is_null());
  EXPECT_TRUE(out["error"].is_null());
}

TEST(ReportSummary, ShowsVerdictSpeedupAndDevice) {
  std::string s = judgment_summary(correct_judgment());
  EXPECT_NE(s.find("cand.cu: correct"), std::string::npos) << s;
  EXPECT_NE(s.find("4.000x"), std::string::npos);
  EXPECT_NE(s.find("Test GPU"), std::string::npos);
}

TEST(Verdict, StableStrings) {
  EXPECT_STREQ(to_string(verdict::compile_error), "compile_error");
  EXPECT_STREQ(to_string(verdict::runtime_error), "runtime_error");
  EXPECT_STREQ(to_string(verdict::rejected), "rejected");
}

TEST(ResolveBackend, FollowsTheExtension) {
  EXPECT_EQ(*resolve_backend("a.cu", "auto"), "cuda");
  EXPECT_EQ(*resolve_backend("a.cpp", "auto"), "cpu");
  EXPECT_EQ(*resolve_backend("a.cpp", "cpu"), "cpu");
  EXPECT_FALSE(resolve_backend("a.cpp", "cuda").ok());
  // A ModelNew runs where it is asked to, by default where the GPU is.
  EXPECT_EQ(*resolve_backend("a.py", "auto"), auto_backend());
  EXPECT_EQ(*resolve_backend("a.py", "cpu"), "cpu");
  EXPECT_FALSE(resolve_backend("a.py", "tpu").ok());
  EXPECT_FALSE(resolve_backend("a.txt", "auto").ok());
  EXPECT_FALSE(resolve_backend("a.cu", "tpu").ok());
}

}  // namespace
}  // namespace cudal1

namespace cudal1 {
namespace {

// A candidate's message reaches the terminal with its escapes shown, not
// obeyed: one that erased lines (ESC[2K, ESC[1A, CR) printed a forged
// "correct" over the real verdict (an attack review, 2026-12-07).
TEST(TerminalSafe, ControlCharactersInCaretNotation) {
  EXPECT_EQ(terminal_safe("a\x1b[2K\rb\x7f\n\tc"), "a^[[2K^Mb^?\n\tc");
  judgment j;
  j.outcome = verdict::runtime_error;
  j.candidate_path = "/x/cand.py";
  j.message = "boom\r\x1b[1Acand.py: correct  speedup 41.70x";
  std::string text = judgment_summary(j);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("boom^M^[[1Acand.py"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudal1
