// What a call leaves behind: the worker's census after a ModelNew's call,
// the judge's own census of the worker's threads from outside it, their
// verdicts, and the kernels of the trials. See judgment_run.h.
#include "judge/judgment_run.h"

#include <string_view>

#include "audit/kernel_origin.h"
#include "base/json_text.h"
#include "worker/census.h"

namespace cudal1::judging {

// The worker's own census of the call (threads, processes, attempts the seal
// recorded, the persisting L2), a request of its own after the outputs are
// taken, its findings into r.body. Timed with the call on every path: the
// candidate's code runs in the worker's process and can do work in any of
// its requests, and what the checks read afterwards lies in the exchange the
// worker maps (an attack review, 2026-12-06: a forward that returned an empty
// tensor and a census handler, swapped in through the worker's frame, that
// wrote silu(x) * scale into the exchange after collect_from, judged correct
// at 1.6-2.6x against 0.64-0.90x honest while the census was untimed on the
// CPU's direct read: modelnew_hack_census_rewrite.py). On the GPU, kernels
// queued without waiting would otherwise run on through it too.
bool judgment_run::census_after(call_timing& t, worker_reply& r) {
  worker_reply c = candidate_->request({{"op", "census"}}, opt_.call_timeout_s);
  if (c.what != worker_reply::kind::ok) {
    t.err_reply = c;
    t.doing = "taking the worker's census after ModelNew.forward";
    return false;
  }
  j_.requests_ms["census"].push_back(c.wall_ms);
  r.wall_ms += c.wall_ms;
  t.own_wall_ms += c.wall_ms;
  add_cpu_outside(t, c);
  for (const char* key : {"new_threads", "own_contexts", "own_contexts_lost", "child_processes", "process_attempts", "escape_attempts", "deferred_work", "cache_tampering"})
    if (c.body.contains(key)) r.body[key] = c.body[key];
  return true;
}

// Threads of the worker not in the judge's baseline that are still running
// (not exiting: a thread the call joined may be listed for a moment), as
// "name (tid)", and its child processes, as "process PID".
json judgment_run::outside_new_threads() const {
  std::string proc = worker_proc();
  json out = new_threads(outside_baseline_, proc);
  for (const auto& pid : child_processes(proc)) out.push_back("process " + pid);
  return out;
}

// What the census after a call found, as a verdict: true once rejected.
bool judgment_run::run_census_verdict(const json& body) {
  if (ended_) return true;
  std::string call = " (call " + std::to_string(j_.calls + 1) + ")";
  if (outside_census_) {
    json started = outside_new_threads();
    if (!started.empty())
      return !reject("background_thread", "threads or processes the candidate started, still running after "
                                          "cudal1_forward returned (the judge's census from outside the worker): " +
                                              json_text(started) + call);
  }
  if (!body.value("new_threads", json::array()).empty())
    return !reject("background_thread", "threads the candidate started (not in the baseline taken before its library loaded) "
                                        "still running after cudal1_forward returned: " + json_text(body["new_threads"]) + call);
  if (!body.value("own_contexts", json::array()).empty())
    return !reject("private_context", "the candidate created a CUDA context of its own (" + json_text(body["own_contexts"]) +
                                          "): the window's device synchronization waits for the worker's context only, "
                                          "so work queued there runs on outside the window, beside the reference" + call);
  if (std::string lost = body.value("own_contexts_lost", ""); !lost.empty())
    return !reject("private_context", "the watch on CUDA contexts, set before the candidate's code loaded, was undone "
                                          "during the call (" + lost + ")" + call);
  if (!body.value("process_attempts", json::array()).empty())
    return !reject("background_process", "the call tried to start a process (" + json_text(body["process_attempts"]) +
                                            "), which the sandbox denies" + call);
  if (!body.value("escape_attempts", json::array()).empty())
    return !reject("sandbox_escape", "the call tried to leave the sandbox's bounds (" + json_text(body["escape_attempts"]) +
                                         "), which the sandbox denies" + call);
  if (!body.value("child_processes", json::array()).empty())
    return !reject("background_process", "processes started by the call still running: " + json_text(body["child_processes"]) + call);
  if (std::string deferred = body.value("deferred_work", ""); !deferred.empty())
    return !reject("deferred_work", "work set up to run after the call returned: " + deferred + call);
  if (std::string cache = body.value("cache_tampering", ""); !cache.empty())
    return !reject("cache_game", "the call left " + cache + call);
  // A ModelNew's outputs: a lazy or subclassed tensor is a hack; a wrong
  // count, dtype or shape is a wrong answer.
  if (body.contains("output_problem") && body["output_problem"].is_array() && body["output_problem"].size() == 2) {
    std::string cls = body["output_problem"][0], what = body["output_problem"][1];
    if (cls == "lazy_output") return !reject("lazy_output", what + call);
    add_check("correctness", false, what + call);
    return !fail(verdict::incorrect, what);
  }
  return false;
}

// The kernels of the trials: whose they were, on how many streams.
status judgment_run::take_census() {
  if (!opt_.defenses) {
    j_.kernels = {{"available", false}, {"reason", "defenses off (benchmark)"}};
    return ok_status();
  }
  if (!census_note_.empty()) {
    j_.kernels = {{"available", false}, {"reason", census_note_}};
    if (opt_.require_custom_kernel)
      return make_error("--require-custom-kernel needs the kernel census, which is " + census_note_);
    return ok_status();
  }
  auto lib = read_file(library_);
  j_.kernels = summarize_census(census_launches_, lib ? std::string_view(*lib) : std::string_view());
  bool custom = j_.kernels["custom_kernel"].get<bool>();
  std::string listing = census_listing(j_.kernels);
  if (opt_.require_custom_kernel) {
    add_check("custom_kernel", custom, custom ? "launched a kernel of its own: " + listing : "only " + listing);
    if (!custom) reject("no_custom_kernel", "the trials launched " + listing + ", none of them the candidate's own");
  }
  return ok_status();
}

}  // namespace cudal1::judging
