// A call's tensors: where it goes (arena, shift, sentinels), its inputs
// staged and its outputs taken, by the reference's process, in the pauses at
// its window's marks with the worker stopped; a ModelNew's outputs checked
// for sentinels and collected. See judgment_run.h.
#include "base/json_text.h"
#include "judge/judgment_run.h"

namespace cudal1::judging {


// Where a call goes: its arena and shift, chosen right after prepare, before
// the pair's random order, so the probes and every call meet the same state.
// Each call or probe on the other arena than the one before, with the other
// sentinel pattern. (Until 2026-12-07 the count was the calls plus every
// placement, which grows by two a call: after the probes every call landed on
// one arena with one sentinel, found by an attack review.)
void judgment_run::place_call(call_timing& t) {
  const int call = placements_++;
  t.arena = call % 2;
  t.shift = (rng_() % (layout_.arenas.max_shift / 256)) * 256;
  t.sentinel = call % 2;
}

// The reference's process stages the call there (its inputs in, its
// outputs filled with sentinels), then flushes the caches. Called in the
// run request's pause at the window's mark, with the worker stopped: until
// then the arena holds an older call's inputs, and no code of the worker's
// can compute this call's before its window (an attack review, 2026-12-06:
// a ModelNew whose lean run handler, and a native library whose hook on
// the worker's write(), computed every row from the staged inputs before
// the mark were judged correct at 200-650x; room for it came from the
// worker's own request work, which candidate code can shrink).
bool judgment_run::stage_call(call_timing& t) {
  worker_reply r = reference_->request(
      {{"op", "stage"}, {"arena", t.arena}, {"shift", t.shift}, {"sentinel", t.sentinel}, {"flush", true}}, kRefCallTimeoutS);
  j_.requests_ms["stage"].push_back(r.wall_ms);
  if (r.what == worker_reply::kind::ok) {
    last_staged_arena_ = t.arena;
    last_staged_shift_ = t.shift;
    return true;
  }
  t.err_reply = r;
  t.doing = "staging a call";
  t.reference_failed = true;
  return false;
}

// A native library's outputs, copied by the reference's process at the
// window's end mark, with the worker stopped: the check compares that copy,
// so nothing the worker's process does after its window (candidate code
// hooked into the worker's census, say) can still write them.
bool judgment_run::snapshot_outputs(call_timing& t) {
  worker_reply r = reference_->request({{"op", "snapshot"}, {"arena", t.arena}, {"shift", t.shift}}, kRefCallTimeoutS);
  j_.requests_ms["snapshot"].push_back(r.wall_ms);
  if (r.what == worker_reply::kind::ok) return true;
  t.err_reply = r;
  t.doing = "copying the outputs at the window's end";
  t.reference_failed = true;
  return false;
}

// A CPU ModelNew's outputs at its window's end mark, the worker stopped: the
// sentinel check, then the reference's process reads them at what the mark
// says (collect_from), so no work of the worker's after the mark reaches
// what is checked (before 2026-12-06 they were read after the run reply, and
// a candidate that rewrote the worker's handlers could finish them there).
// What the reads found is kept in t for collect_outputs.
void judgment_run::read_outputs_at_end(call_timing& t, const json& mark) {
  t.end_seen = reference_->request({{"op", "untouched"}, {"arena", t.arena}, {"shift", t.shift}}, kRefCallTimeoutS);
  if (t.end_seen->what != worker_reply::kind::ok) return;
  const json& written = t.end_seen->body.contains("written") ? t.end_seen->body["written"] : json();
  if (written.is_array() && !written.empty()) return;
  if (!mark.contains("outputs")) {
    t.end_problem = mark.contains("output_problem")
                        ? mark["output_problem"]
                        : json::array({"wrong_output", "its outputs were not described at the window's end mark"});
    return;
  }
  t.end_read = reference_->request({{"op", "collect_from"}, {"pid", candidate_->pid()}, {"arena", t.arena},
                                    {"shift", t.shift}, {"outputs", mark["outputs"]}},
                                   kRefCallTimeoutS);
}

// A ModelNew's outputs after its run request, into the call's outputs. No
// work of the worker's after its window may sit in the baseline the probes
// set: candidate code can do any such work instead, a last pass of forward in
// place of a copy (attack reviews, 2026-12-05). First the reference's process
// checks the outputs still hold stage's sentinels: a forward that wrote them
// itself (it finds them through the worker it shares a process with) is
// rejected. Then, on the CPU, the reference's process reads the outputs from
// the stopped worker at what its end mark said (collect_from, in that mark's
// pause: read_outputs_at_end), outside any request of the candidate's;
// where it may not (decided by the first probe, before the candidate loaded)
// and on CUDA, the worker copies them in a
// collect request, and the call's time is all four requests' with the census
// (on the GPU, kernels queued without waiting would run on through the
// sentinel check). The worker's census follows either way, timed with the
// call (census_after): on the direct read the call's time is the run
// request's and the census's.
// False where the call ended (t says how); r.body gets any output problem.
bool judgment_run::collect_outputs(call_timing& t, worker_reply& r, bool probe) {
  const bool at_end = t.end_seen.has_value();
  worker_reply seen = at_end ? *t.end_seen
                             : reference_->request({{"op", "untouched"}, {"arena", t.arena}, {"shift", t.shift}}, kRefCallTimeoutS);
  if (seen.what != worker_reply::kind::ok) {
    t.err_reply = seen;
    t.doing = "checking the outputs' sentinels after the window";
    t.reference_failed = true;
    return false;
  }
  j_.requests_ms["untouched"].push_back(seen.wall_ms);
  if (seen.body.contains("written") && seen.body["written"].is_array() && !seen.body["written"].empty()) {
    reject("output_aliasing", "ModelNew.forward wrote the judge's output buffers " + json_text(seen.body["written"]) +
                                  " itself during the window (they are filled only after it; reaching them takes "
                                  "digging through the worker) (call " + std::to_string(j_.calls + 1) + ")");
    t.run = std::move(r);
    t.ok = true;
    return false;
  }
  if (at_end) {
    // What the end mark said stands, whatever the reply says.
    r.body.erase("output_problem");
    if (!t.end_problem.is_null()) {
      r.body["output_problem"] = t.end_problem;
      return census_after(t, r);
    }
  }
  if (direct_collect_ && j_.backend == "cpu" && !r.body.contains("output_problem")) {
    worker_reply got = at_end && t.end_read ? *t.end_read
                                            : reference_->request({{"op", "collect_from"}, {"pid", candidate_->pid()},
                                                                   {"arena", t.arena}, {"shift", t.shift},
                                                                   {"outputs", r.body.value("outputs", json())}},
                                                                  kRefCallTimeoutS);
    if (got.what != worker_reply::kind::ok) {
      // Every field the read follows is the candidate's (its run reply): a
      // read that fails or hangs is its doing, never the task's.
      if (probe) {
        t.err_reply = got;
        t.doing = "reading the outputs from the worker's memory";
        t.reference_failed = true;
        return false;
      }
      r.body["output_problem"] = {"wrong_output", "its outputs could not be read as its run reply described them (" +
                                                      got.message() + ")"};
      return census_after(t, r);
    }
    j_.requests_ms["collect_from"].push_back(got.wall_ms);
    const bool failed = got.body.contains("unavailable") || got.body.contains("problem");
    if (!(failed && probe)) {
      std::string problem = got.body.value("problem", got.body.value("unavailable", ""));
      if (!problem.empty()) r.body["output_problem"] = {"wrong_output", problem};
      return census_after(t, r);
    }
    // Before the candidate loaded, only this machine or the worker's own code
    // can fail the read: the worker copies the outputs instead.
    direct_collect_ = false;
  }
  worker_reply got = candidate_->request({{"op", "collect"}, {"arena", t.arena}, {"shift", t.shift}}, opt_.call_timeout_s);
  if (got.what != worker_reply::kind::ok) {
    t.err_reply = got;
    t.doing = "collecting ModelNew.forward's outputs";
    return false;
  }
  j_.requests_ms["collect"].push_back(got.wall_ms);
  r.wall_ms += seen.wall_ms + got.wall_ms;
  t.own_wall_ms += got.wall_ms;
  add_cpu_outside(t, got);
  if (got.body.contains("output_problem")) r.body["output_problem"] = got.body["output_problem"];
  return census_after(t, r);
}

// A request of the call's other than its run: all of its CPU time is outside
// the window.
void judgment_run::add_cpu_outside(call_timing& t, const worker_reply& r) {
  t.cpu_outside_ms = t.cpu_outside_ms >= 0 && r.cpu_ms >= 0 ? t.cpu_outside_ms + r.cpu_ms : -1;
  t.main_cpu_outside_ms = t.main_cpu_outside_ms >= 0 && r.main_cpu_ms >= 0 ? t.main_cpu_outside_ms + r.main_cpu_ms : -1;
}

}  // namespace cudal1::judging
