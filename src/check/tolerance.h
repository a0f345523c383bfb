// Tolerances by dtype, and the decision whether one output passes.
//
// The comparison itself runs in the reference worker, next to the data (it
// may be gigabytes on the GPU); it reports error figures, and this decides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace cudal1 {

/// Per element: |c - r| <= atol_rel * scale + rtol * |r|, where scale is the
/// RMS of the reference output; and over the tensor ||c - r|| / ||r|| <= rel_norm.
struct tolerance {
  double rtol = 0;
  double atol_rel = 0;
  double rel_norm = 0;
};

/// The precision policies a task's fp32 outputs may be computed in: "fp32"
/// (the default), "tf32" (TF32 products allowed) and "bf16".
bool is_precision_policy(const std::string& policy);

/// The tolerance for an output dtype ("f32", "bf16", ...) under a precision
/// policy: f32 outputs get f16's tolerance under "tf32" (TF32 keeps f16's
/// 10 mantissa bits) and bf16's under "bf16". Integer and boolean outputs
/// must match exactly.
tolerance tolerance_for(const std::string& dtype, const std::string& policy = "fp32");

/// The next looser policy than `policy` ("fp32" -> "tf32" -> "bf16"), empty
/// for "bf16": an output that fails its own policy but passes a looser one
/// carries the error of lower-precision arithmetic.
std::string looser_policy(const std::string& policy);

/// {"f32": [rtol, atol_rel, rel_norm], ...}: what the reference worker needs.
nlohmann::json tolerance_table_json(const std::string& policy = "fp32");

/// The f32 tolerance of each policy looser than `policy`:
/// {"bf16": [rtol, atol_rel, rel_norm], ...}, for the reference worker's
/// lower-precision figures of a failing output.
nlohmann::json looser_tolerances_json(const std::string& policy);

/// Error figures of one output in one call, as the reference worker reports them.
struct output_error {
  std::string name;
  std::string dtype;
  int64_t numel = 0;
  int64_t bad = 0;        // elements outside the per-element tolerance
  int64_t unwritten = 0;  // NaN where the reference has a number (outputs are NaN-prefilled); for bool, bytes not 0 or 1
  std::optional<double> max_abs, max_rel, rel_norm;  // empty: infinite or NaN
  double scale = 0;
};

output_error parse_output_error(const nlohmann::json& j, const std::string& name, const std::string& dtype);

/// Whether an output passes, and if not, why (one line).
struct output_verdict {
  bool pass = false;
  std::string reason;
};
output_verdict judge_output(const output_error& e, const tolerance& tol);

/// Why a failing fp32 output looks like lower-precision arithmetic, or ""
/// when it does not. It does when its relative-norm error is within a looser
/// policy's bound, nearly all its elements (99.9%) are within twice that
/// policy's elementwise tolerance (figures["lower_precision"][policy], from
/// the reference worker), and its errors point both ways (35-65% of them
/// away from zero, figures["enlarging"]), as rounding to nearest leaves
/// them. A wrong result leaves elements far off or errs one way (a sum that
/// skips a term); a downgrade that rounds toward zero (TF32 truncation) errs
/// one way too and stays unnamed: the label is withheld when in doubt.
/// `against` names what the output was compared with.
std::string precision_downgrade_evidence(const output_error& e, const nlohmann::json& figures, const std::string& dtype,
                                         const std::string& policy, const std::string& against);

/// An output against the float64 reference: it passes within `tol`, or when
/// its relative norm error is at most twice PyTorch's own (reference_rel_norm,
/// the policy-precision reference against float64), so an ill-conditioned task
/// does not fail a candidate as accurate as PyTorch.
output_verdict judge_precise(const output_error& e, const tolerance& tol, std::optional<double> reference_rel_norm);

}  // namespace cudal1
