#include "check/tolerance.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace cudal1 {
namespace {

output_error figures(int64_t bad, int64_t unwritten, std::optional<double> rel_norm) {
  output_error e;
  e.name = "out0";
  e.dtype = "f32";
  e.numel = 1000;
  e.bad = bad;
  e.unwritten = unwritten;
  e.max_abs = 1e-6;
  e.max_rel = 1e-6;
  e.rel_norm = rel_norm;
  e.scale = 1.0;
  return e;
}

TEST(Tolerance, ByDtype) {
  EXPECT_DOUBLE_EQ(tolerance_for("f32").rtol, 1e-4);
  EXPECT_LT(tolerance_for("f64").rtol, tolerance_for("f32").rtol);
  EXPECT_LT(tolerance_for("f32").rtol, tolerance_for("f16").rtol);
  EXPECT_LT(tolerance_for("f16").rtol, tolerance_for("bf16").rtol);
  EXPECT_EQ(tolerance_for("i64").rtol, 0);
  EXPECT_EQ(tolerance_for("bool").atol_rel, 0);
}

TEST(Tolerance, TableCoversEveryAbiDtype) {
  auto t = tolerance_table_json();
  for (const char* d : {"f32", "f16", "bf16", "f64", "i32", "i64", "bool", "u8", "i8"}) {
    ASSERT_TRUE(t.contains(d)) << d;
    EXPECT_EQ(t[d].size(), 3u);
  }
}

TEST(JudgeOutput, PassesWithinTolerance) {
  EXPECT_TRUE(judge_output(figures(0, 0, 1e-7), tolerance_for("f32")).pass);
}

TEST(JudgeOutput, UnwrittenElementsFailFirst) {
  auto v = judge_output(figures(5, 5, 1e-7), tolerance_for("f32"));
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("not written (still NaN)"), std::string::npos);
  // A bool output's are bytes other than 0 and 1, not NaN.
  output_error b = figures(0, 7, 0.0);
  b.dtype = "bool";
  v = judge_output(b, tolerance_for("bool"));
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("7 of 1000 elements not written (a byte other than 0 or 1"), std::string::npos) << v.reason;
}

TEST(JudgeOutput, ElementsOutsideToleranceFail) {
  auto v = judge_output(figures(1, 0, 1e-7), tolerance_for("f32"));
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("outside tolerance"), std::string::npos);
}

TEST(JudgeOutput, ZerosFailOnRelativeNorm) {
  // An all-zero output of a task with small outputs: every element may sit
  // inside the per-element tolerance, but the relative norm error is 1.
  auto v = judge_output(figures(0, 0, 1.0), tolerance_for("f32"));
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("relative norm"), std::string::npos);
}

TEST(JudgeOutput, Tf32LevelErrorFailsAnFp32Task) {
  EXPECT_FALSE(judge_output(figures(0, 0, 3e-4), tolerance_for("f32")).pass);
}

TEST(JudgeOutput, InfiniteNormFails) { EXPECT_FALSE(judge_output(figures(0, 0, std::nullopt), tolerance_for("f32")).pass); }

TEST(Tolerance, PolicyLoosensOnlyFp32Outputs) {
  EXPECT_DOUBLE_EQ(tolerance_for("f32", "tf32").rel_norm, tolerance_for("f16").rel_norm);
  EXPECT_DOUBLE_EQ(tolerance_for("f32", "bf16").rel_norm, tolerance_for("bf16").rel_norm);
  EXPECT_DOUBLE_EQ(tolerance_for("f64", "bf16").rel_norm, tolerance_for("f64").rel_norm);
  EXPECT_EQ(tolerance_for("i32", "bf16").rtol, 0);
  EXPECT_EQ(looser_policy("fp32"), "tf32");
  EXPECT_EQ(looser_policy("tf32"), "bf16");
  EXPECT_EQ(looser_policy("bf16"), "");
  EXPECT_TRUE(is_precision_policy("tf32"));
  EXPECT_FALSE(is_precision_policy("fp16"));
  EXPECT_EQ(tolerance_table_json("bf16")["f32"][2].get<double>(), tolerance_for("bf16").rel_norm);
}

TEST(JudgePrecise, WithinToleranceOfFloat64Passes) {
  EXPECT_TRUE(judge_precise(figures(0, 0, 1e-6), tolerance_for("f32"), 1e-7).pass);
}

TEST(JudgePrecise, AsAccurateAsPyTorchPassesAnIllConditionedTask) {
  // Outside the tolerance, but PyTorch itself is off float64 by 3e-4.
  EXPECT_TRUE(judge_precise(figures(5, 0, 5e-4), tolerance_for("f32"), 3e-4).pass);
  output_verdict v = judge_precise(figures(5, 0, 7e-4), tolerance_for("f32"), 3e-4);
  EXPECT_FALSE(v.pass);
  EXPECT_NE(v.reason.find("PyTorch's own error"), std::string::npos) << v.reason;
}

TEST(JudgePrecise, LowerPrecisionFailsWhenPyTorchIsAccurate) {
  EXPECT_FALSE(judge_precise(figures(100, 0, 2e-3), tolerance_for("f32"), 1e-7).pass);
  EXPECT_FALSE(judge_precise(figures(0, 1, 1e-9), tolerance_for("f32"), 1e-3).pass);  // unwritten never passes
  EXPECT_FALSE(judge_precise(figures(100, 0, 2e-3), tolerance_for("f32"), std::nullopt).pass);
}

nlohmann::json lower(double tf32_within, double bf16_within, double enlarging) {
  return {{"lower_precision", {{"tf32", tf32_within}, {"bf16", bf16_within}}}, {"enlarging", enlarging}};
}

TEST(PrecisionDowngrade, RoundingLikeErrorIsNamedWithTheLooserPolicy) {
  std::string why = precision_downgrade_evidence(figures(100, 0, 3e-3), lower(0.2, 1.0, 0.5), "f32", "fp32", "the reference");
  EXPECT_NE(why.find("out0 is off the reference"), std::string::npos) << why;
  EXPECT_NE(why.find("inside bf16's"), std::string::npos) << why;
  // Small enough for TF32's bound and nearly all within its elementwise tolerance.
  EXPECT_NE(precision_downgrade_evidence(figures(100, 0, 1e-3), lower(0.9995, 1.0, 0.48), "f32", "fp32", "x").find("tf32"),
            std::string::npos);
}

TEST(PrecisionDowngrade, WrongResultsAreNotNamed) {
  // Errs one way (a skipped term), though small and within tolerance elementwise.
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 3e-3), lower(1.0, 1.0, 0.99), "f32", "fp32", "x"), "");
  // A few elements far off.
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 3e-3), lower(0.99, 0.99, 0.5), "f32", "fp32", "x"), "");
  // Off by more than any looser bound; unwritten; not fp32; no figures; bf16 has nothing looser.
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 0.5), lower(1.0, 1.0, 0.5), "f32", "fp32", "x"), "");
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 3, 3e-3), lower(1.0, 1.0, 0.5), "f32", "fp32", "x"), "");
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 3e-3), lower(1.0, 1.0, 0.5), "f16", "fp32", "x"), "");
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 3e-3), nlohmann::json::object(), "f32", "fp32", "x"), "");
  EXPECT_EQ(precision_downgrade_evidence(figures(100, 0, 3e-3), lower(1.0, 1.0, 0.5), "f32", "bf16", "x"), "");
}

TEST(PrecisionDowngrade, LooserTolerancesFollowThePolicy) {
  nlohmann::json t = looser_tolerances_json("fp32");
  EXPECT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t["bf16"][2].get<double>(), tolerance_for("bf16").rel_norm);
  EXPECT_EQ(looser_tolerances_json("tf32").size(), 1u);
  EXPECT_TRUE(looser_tolerances_json("bf16").empty());
}

TEST(ParseOutputError, NullMeansInfinite) {
  auto j = nlohmann::json::parse(R"({"numel": 4, "bad": 1, "unwritten": 0, "max_abs": null, "max_rel": 2.0, "rel_norm": null, "scale": 0.5})");
  output_error e = parse_output_error(j, "out0", "f32");
  EXPECT_EQ(e.numel, 4);
  EXPECT_EQ(e.bad, 1);
  EXPECT_FALSE(e.max_abs.has_value());
  EXPECT_DOUBLE_EQ(*e.max_rel, 2.0);
  EXPECT_DOUBLE_EQ(e.scale, 0.5);
}

}  // namespace
}  // namespace cudal1
