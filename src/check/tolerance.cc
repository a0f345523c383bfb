#include "check/tolerance.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace cudal1 {

// fp32: a legal fp32 algorithm (another summation order, fused multiply-add)
// lands near 1e-6 in relative norm; TF32 near 3e-4 and bf16 near 1e-2, so
// 1e-4 tells them apart. fp16/bf16: about two units in the last place.
bool is_precision_policy(const std::string& policy) {
  return policy == "fp32" || policy == "tf32" || policy == "bf16";
}

std::string looser_policy(const std::string& policy) {
  if (policy == "fp32") return "tf32";
  if (policy == "tf32") return "bf16";
  return "";
}

tolerance tolerance_for(const std::string& dtype, const std::string& policy) {
  if (dtype == "f64") return {1e-7, 1e-7, 1e-7};
  if (dtype == "f32" && policy == "tf32") return tolerance_for("f16");
  if (dtype == "f32" && policy == "bf16") return tolerance_for("bf16");
  if (dtype == "f32") return {1e-4, 1e-4, 1e-4};
  if (dtype == "f16") return {4e-3, 4e-3, 2e-3};
  if (dtype == "bf16") return {1.6e-2, 1.6e-2, 1e-2};
  return {0, 0, 0};
}

nlohmann::json tolerance_table_json(const std::string& policy) {
  nlohmann::json j;
  for (const char* d : {"f32", "f16", "bf16", "f64", "i32", "i64", "bool", "u8", "i8"}) {
    tolerance t = tolerance_for(d, policy);
    j[d] = {t.rtol, t.atol_rel, t.rel_norm};
  }
  return j;
}

nlohmann::json looser_tolerances_json(const std::string& policy) {
  nlohmann::json t = nlohmann::json::object();
  for (std::string p = looser_policy(policy); !p.empty(); p = looser_policy(p)) {
    tolerance tol = tolerance_for("f32", p);
    t[p] = {tol.rtol, tol.atol_rel, tol.rel_norm};
  }
  return t;
}

output_error parse_output_error(const nlohmann::json& j, const std::string& name, const std::string& dtype) {
  auto opt = [&](const char* key) -> std::optional<double> {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    return j[key].get<double>();
  };
  output_error e;
  e.name = name;
  e.dtype = dtype;
  e.numel = j.value("numel", int64_t{0});
  e.bad = j.value("bad", int64_t{0});
  e.unwritten = j.value("unwritten", int64_t{0});
  e.max_abs = opt("max_abs");
  e.max_rel = opt("max_rel");
  e.rel_norm = opt("rel_norm");
  e.scale = j.value("scale", 0.0);
  return e;
}

output_verdict judge_output(const output_error& e, const tolerance& tol) {
  char buf[256];
  if (e.unwritten > 0) {
    // A bool output's unwritten elements are bytes other than 0 and 1 (the
    // fill the judge left there, or bytes no bool has), not NaN.
    std::snprintf(buf, sizeof buf, "%s: %lld of %lld elements not written (%s)", e.name.c_str(),
                  static_cast<long long>(e.unwritten), static_cast<long long>(e.numel),
                  e.dtype == "bool" ? "a byte other than 0 or 1: the judge's fill, or no bool" : "still NaN");
    return {false, buf};
  }
  if (e.bad > 0) {
    std::snprintf(buf, sizeof buf, "%s: %lld of %lld elements outside tolerance (rtol %.1e, atol %.1e x scale %.3g); max abs error %.3g",
                  e.name.c_str(), static_cast<long long>(e.bad), static_cast<long long>(e.numel), tol.rtol,
                  tol.atol_rel, e.scale, e.max_abs.value_or(INFINITY));
    return {false, buf};
  }
  if (!e.rel_norm || *e.rel_norm > tol.rel_norm) {
    std::snprintf(buf, sizeof buf, "%s: relative norm error %.3g exceeds %.1e", e.name.c_str(),
                  e.rel_norm.value_or(INFINITY), tol.rel_norm);
    return {false, buf};
  }
  return {true, ""};
}

output_verdict judge_precise(const output_error& e, const tolerance& tol, std::optional<double> reference_rel_norm) {
  output_verdict v = judge_output(e, tol);
  if (v.pass || e.unwritten > 0 || !e.rel_norm || !reference_rel_norm) return v;
  if (*e.rel_norm <= 2 * *reference_rel_norm) return {true, ""};
  char buf[200];
  std::snprintf(buf, sizeof buf, "; PyTorch's own error is %.3g", *reference_rel_norm);
  v.reason += buf;
  return v;
}

std::string precision_downgrade_evidence(const output_error& e, const nlohmann::json& figures, const std::string& dtype,
                                         const std::string& policy, const std::string& against) {
  if (dtype != "f32" || e.unwritten > 0 || !e.rel_norm || !figures.contains("lower_precision")) return "";
  double enlarging = figures.value("enlarging", 1.0);
  if (enlarging < 0.35 || enlarging > 0.65) return "";
  for (std::string p = looser_policy(policy); !p.empty(); p = looser_policy(p)) {
    double within = figures["lower_precision"].value(p, 0.0);
    if (*e.rel_norm > tolerance_for(dtype, p).rel_norm || within < 0.999) continue;
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  " is off %s by a relative norm of %.3g: outside the %s tolerance, inside %s's, with %.2f%% of its "
                  "elements within twice %s's elementwise tolerance and its errors pointing both ways (%.0f%% away "
                  "from zero), as rounding leaves them",
                  against.c_str(), *e.rel_norm, policy.c_str(), p.c_str(), 100 * within, p.c_str(), 100 * enlarging);
    return e.name + buf;
  }
  return "";
}

}  // namespace cudal1
