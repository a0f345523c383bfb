#include "report/report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "base/json_text.h"

namespace cudal1 {

using json = nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json timing_json(const side_timing& t) {
  if (!t.summary) return nullptr;
  const sample_summary& s = *t.summary;
  json j = {{"median_ms", s.median_ms}, {"mean_ms", s.mean_ms},   {"min_ms", s.min_ms},
            {"max_ms", s.max_ms},       {"p25_ms", s.p25_ms},     {"p75_ms", s.p75_ms},
            {"stdev_ms", s.stdev_ms},   {"rel_iqr", s.rel_iqr},   {"median_ci_rel", s.median_ci_rel},
            {"samples", s.samples},     {"samples_ms", t.samples_ms}};
  if (!t.wall_ms.empty()) j["judge_wall_ms"] = t.wall_ms;
  return j;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string fmt_opt(const std::optional<double>& v) { return v ? fmt("%.3g", *v) : "inf"; }

}  // namespace

json judgment_to_json(const judgment& j) {
  json hacks = json::array();
  for (const auto& h : j.hacks) hacks.push_back({{"class", h.cls}, {"evidence", h.evidence}});
  json checks = json::array();
  for (const auto& c : j.checks) checks.push_back({{"name", c.name}, {"pass", c.pass}, {"reason", c.reason}});
  json requests = json::object();
  for (const auto& [op, ms] : j.requests_ms)
    if (!ms.empty()) requests[op] = {{"median_ms", summarize_samples(ms).median_ms}, {"count", ms.size()}};
  json phases = json::object();
  for (const auto& [name, seconds] : j.phases_s) phases[name] = seconds;
  json error = nullptr;
  if (j.error.measured)
    error = {{"max_abs", optional_number(j.error.max_abs)},
             {"max_rel", optional_number(j.error.max_rel)},
             {"rel_norm", optional_number(j.error.rel_norm)}};
  // Valid UTF-8 throughout: the message, evidence and checks carry text the
  // candidate controls (its output, a compiler's quote of its source), and
  // these strings go on as strings (the store's text columns, a server's
  // replies).
  return valid_utf8({{"verdict", to_string(j.outcome)},
          {"speedup", optional_number(j.speedup)},
          {"recheck_speedup", optional_number(j.recheck_speedup)},
          {"recheck_third_speedup", optional_number(j.recheck_third_speedup)},
          {"rechecks", j.rechecks},
          {"earlier_judgments", j.earlier_judgments},
          {"speedup_error_rel", optional_number(j.speedup_error_rel)},
          {"reference", timing_json(j.reference)},
          {"candidate", timing_json(j.candidate)},
          {"error", error},
          {"checks", checks},
          {"hacks", hacks},
          {"audit", j.audit},
          {"speed_of_light", j.speed_of_light},
          {"precision", j.precision},
          {"kernels", j.kernels},
          {"reference_init_s", j.reference_init_s},
          {"signature", j.signature},
          {"output_check", j.output_check.empty() ? json(nullptr) : json(j.output_check)},
          {"message", j.message},
          {"device", j.device},
          {"backend", j.backend},
          {"baseline", j.baseline},
          {"task", j.task_path},
          {"candidate_path", j.candidate_path},
          {"profile", j.profile.empty() ? json(nullptr) : json(j.profile)},
          {"python", j.python},
          {"torch", j.torch_version},
          {"compile", {{"cached", j.compile_cached}, {"seconds", j.compile_s}}},
          {"calls", j.calls},
          {"trials", j.trials},
          {"stop_reason", j.stop_reason},
          {"seed", j.seed},
          {"cpu", j.cpu >= 0 ? json(j.cpu) : json(nullptr)},
          {"reference_cpu", j.reference_cpu >= 0 ? json(j.reference_cpu) : json(nullptr)},
          {"seconds", j.total_s},
          {"phases_s", phases},
          {"requests_ms", requests}, {"phase_requests", j.phase_requests}, {"judge_clock", j.judge_clock}, {"reference_order", j.reference_order},
          {"reference_placements", j.reference_placements}, {"reference_warm_calls", j.reference_warm_calls},
          {"candidate_warm_calls", j.candidate_warm_calls},
          {"host", j.host},
          {"reference_sandbox", j.reference_sandbox}, {"candidate_start", j.candidate_start}});
}

std::string terminal_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += '^';
      out += static_cast<char>(c ^ 0x40);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string judgment_summary(const judgment& j) {
  std::string name = std::filesystem::path(j.candidate_path).filename().string();
  std::string out = name + ": " + to_string(j.outcome);
  if (j.speedup) out += fmt("  speedup %.3fx", *j.speedup);
  if (j.speedup && j.speedup_error_rel && std::isfinite(*j.speedup_error_rel))
    out += fmt(" (+-%.1f%%)", 100 * *j.speedup_error_rel);
  out += "\n";
  if (j.reference.summary && j.candidate.summary) {
    const auto &r = *j.reference.summary, &c = *j.candidate.summary;
    out += "  reference " + fmt("%.4g ms", r.median_ms) + fmt(" (IQR %.1f%%)", 100 * r.rel_iqr) + ", candidate " +
           fmt("%.4g ms", c.median_ms) + fmt(" (IQR %.1f%%)", 100 * c.rel_iqr) + ", " + std::to_string(c.samples) +
           " timed pairs (" + j.stop_reason + ")\n";
  }
  if (j.speed_of_light.is_object() && j.speed_of_light.contains("fraction"))
    out += "  speed of light: floor " + fmt("%.4g ms", j.speed_of_light["floor_ms"].get<double>()) + ", candidate at " +
           fmt("%.0f%%", 100 * j.speed_of_light["fraction"].get<double>()) + " of it\n";
  if (j.kernels.is_object() && j.kernels.value("available", false)) {
    std::string names;
    for (const auto& k : j.kernels["kernels"]) {
      if (names.size() > 200) {
        names += ", ...";
        break;
      }
      names += (names.empty() ? "" : ", ") + k["name"].get<std::string>().substr(0, 60) + " [" + k["origin"].get<std::string>() + "]";
    }
    out += "  kernels: " + (names.empty() ? std::string("none") : names) + " on " + std::to_string(j.kernels["streams"].get<int>()) +
           (j.kernels["streams"].get<int>() == 1 ? " stream\n" : " streams\n");
  }
  if (j.error.measured)
    out += "  error: max abs " + fmt_opt(j.error.max_abs) + ", max rel " + fmt_opt(j.error.max_rel) + ", rel norm " +
           fmt_opt(j.error.rel_norm) + " over " + std::to_string(j.calls) + " checked calls\n";
  for (const auto& c : j.checks)
    if (!c.pass) out += "  failed check " + c.name + ": " + c.reason + "\n";
  for (const auto& h : j.hacks) out += "  hack " + h.cls + ": " + h.evidence + "\n";
  if (!j.audit.empty()) {
    std::string rules;
    for (const auto& a : j.audit) rules += (rules.empty() ? "" : ", ") + a.value("rule", std::string()) + " (line " + std::to_string(a.value("line", 0)) + ")";
    out += "  audit: " + rules + "\n";
  }
  bool said = false;
  for (const auto& c : j.checks) said |= !c.pass && c.reason.rfind(j.message, 0) == 0;
  for (const auto& h : j.hacks) said |= j.message == h.cls + ": " + h.evidence;
  if (!j.message.empty() && !said) {
    std::string msg = j.message;
    size_t pos = 0;
    while ((pos = msg.find('\n', pos)) != std::string::npos) msg.replace(pos++, 1, "\n    ");
    out += "  " + msg + "\n";
  }
  out += "  " + j.device.value("name", std::string("?")) + " (" + j.backend + ")" + fmt(", %.1f s", j.total_s) +
         (j.compile_cached ? ", compile cached" : "") + "\n";
  return terminal_safe(out);
}

json reference_timing_json(const reference_timing& t) {
  return {{"verdict", "reference"},
          {"task", t.task_path},
          {"backend", t.backend},
          {"profile", t.profile.empty() ? json() : json(t.profile)},
          {"python", t.python},
          {"torch", t.torch_version},
          {"reference", {{"median_ms", t.summary.median_ms}, {"rel_iqr", t.summary.rel_iqr},
                         {"samples", t.summary.samples}, {"samples_ms", t.samples_ms}}},
          {"stop_reason", t.stop_reason},
          {"speed_of_light", t.speed_of_light},
          {"signature", t.signature},
          {"seconds", t.total_s}};
}

}  // namespace cudal1
