#include "competition/submission.h"

#include "competition/competition.h"

namespace cudal1 {

using nlohmann::json;

namespace {

std::optional<double> number_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  return at->is_number() ? std::optional<double>(at->get<double>()) : std::nullopt;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

std::string utc_of_ms(int64_t ms) { return ms > 0 ? format_utc_time(ms / 1000) : ""; }

// The hidden runs: whether they passed and the class of a failure, nothing more.
json hidden_json(const submission& s) {
  json hidden = {{"verdict", s.hidden_verdict}};
  if (s.part == "hidden") hidden["class"] = s.verdict_class;
  return hidden;
}

// What others see of an entrant's public run: the checks made and passed,
// the hacks caught, the device and profile; not the messages (a compiler's
// quotes the code) nor the kernels' names.
json public_outline(const json& j) {
  json checks = json::array();
  if (j.contains("checks") && j["checks"].is_array())
    for (const auto& c : j["checks"])
      if (c.is_object()) checks.push_back({{"name", c.value("name", "")}, {"pass", c.value("pass", false)}});
  json out = {{"verdict", j.value("verdict", "")}, {"checks", checks}};
  for (const char* key : {"hacks", "device", "profile", "backend", "speedup", "speed_of_light"})
    if (j.contains(key)) out[key] = j[key];
  for (const char* side : {"reference", "candidate"})
    if (j.contains(side) && j[side].is_object() && j[side].contains("median_ms"))
      out[side] = {{"median_ms", j[side]["median_ms"]}};
  return out;
}

}  // namespace

run_outcome outcome_of(const json& judgment) {
  run_outcome o;
  if (!judgment.is_object()) {
    o.error = "the judgment is missing";
    return o;
  }
  o.done = true;
  o.verdict = judgment.value("verdict", "");
  if (judgment.contains("hacks") && judgment["hacks"].is_array())
    for (const auto& h : judgment["hacks"])
      if (h.is_object() && h.contains("class") && h["class"].is_string()) o.hacks.push_back(h["class"]);
  if (o.verdict == "rejected" && o.hacks.empty()) o.hacks.push_back("rejected");
  return o;
}

void take_public_judgment(submission& s, const json& judgment) {
  if (!judgment.is_object()) return;
  json j = judgment;
  // The server's own files: the judge's copy of the task (beside the hidden
  // sizes) and the candidate's scratch path are nobody's business.
  for (const char* key : {"task", "candidate_path", "python"}) j.erase(key);
  s.public_judgment = std::move(j);
  s.time_ms = number_at(judgment, {"candidate", "median_ms"});
  s.reference_ms = number_at(judgment, {"reference", "median_ms"});
  s.speedup = number_at(judgment, {"speedup"});
  s.sol_fraction = number_at(judgment, {"speed_of_light", "fraction"});
  const json* device = judgment.contains("device") ? &judgment["device"] : nullptr;
  s.device = device && device->is_object() ? device->value("name", "") : "";
}

void settle_submission(submission& s, const run_outcome& pub, const std::vector<run_outcome>& hidden) {
  s.standing = false;
  s.part.clear();
  s.verdict_class.clear();
  s.hidden_verdict = "not_run";
  if (!pub.done) {
    s.state = "failed";
    s.error = pub.error;
    return;
  }
  s.state = "done";
  if (pub.verdict != "correct") {
    s.verdict = pub.verdict;
    s.part = "public";
    s.verdict_class = pub.verdict == "rejected" ? joined(pub.hacks) : pub.verdict;
    return;
  }
  const run_outcome* first_failed = nullptr;
  const run_outcome* rejected = nullptr;
  for (const auto& h : hidden) {
    if (!h.done) {
      s.state = "failed";
      s.error = "a hidden run could not be judged (the organizers have the details)";
      s.hidden_verdict = "not_run";
      return;
    }
    if (h.verdict == "rejected" && !rejected) rejected = &h;
    if (h.verdict != "correct" && !first_failed) first_failed = &h;
  }
  if (const run_outcome* f = rejected ? rejected : first_failed) {
    s.verdict = f->verdict;
    s.part = "hidden";
    s.verdict_class = f->verdict == "rejected" ? joined(f->hacks) : f->verdict;
    s.hidden_verdict = "fail";
    return;
  }
  s.verdict = "correct";
  s.verdict_class = "correct";
  s.hidden_verdict = "pass";
  s.standing = true;
}

json submission_summary(const submission& s) {
  return {{"id", s.id},
          {"participant", s.participant},
          {"task", s.task},
          {"format", s.format},
          {"state", s.state},
          {"verdict", s.verdict.empty() ? json() : json(s.verdict)},
          {"class", s.verdict_class.empty() ? json() : json(s.verdict_class)},
          {"part", s.part.empty() ? json() : json(s.part)},
          {"standing", s.standing},
          {"hidden", hidden_json(s)},
          {"device", s.device},
          {"time_ms", opt(s.time_ms)},
          {"speedup", opt(s.speedup)},
          {"submitted_at", utc_of_ms(s.submitted_ms)},
          {"submitted_ms", s.submitted_ms},
          {"judged_at", utc_of_ms(s.judged_ms)}};
}

json submission_view(const submission& s, bool owner) {
  json v = submission_summary(s);
  v["reference_ms"] = opt(s.reference_ms);
  v["sol_fraction"] = opt(s.sol_fraction);
  if (s.state == "failed") v["error"] = s.error;
  v["public"] = owner || s.public_judgment.is_null() ? s.public_judgment : public_outline(s.public_judgment);
  if (owner) v["code"] = s.code;
  return v;
}

}  // namespace cudal1
