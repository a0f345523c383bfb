// The judgment's calls: load (the worker set up, the clock probes before
// the candidate loads), one call of the candidate as the judge times it,
// the trials and the timed pairs (measure). The call's tensors are in
// judge_outputs.cc, the censuses in judge_census.cc. See judgment_run.h.
#include "judge/judgment_run.h"

#include <signal.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

#include "base/elf.h"
#include "base/json_text.h"
#include "timing/host_match.h"
#include "timing/stats.h"
#include "timing/stopping.h"
#include "worker/census.h"

namespace cudal1::judging {
namespace {

// One CPU's counters from /proc/stat, in seconds.
struct cpu_times {
  bool valid = false;
  double busy_s = 0, idle_s = 0, steal_s = 0;
};

cpu_times read_cpu_times(int cpu) {
  cpu_times t;
  std::ifstream in("/proc/stat");
  const std::string name = "cpu" + std::to_string(cpu);
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string label;
    fields >> label;
    if (label != name) continue;
    // user nice system idle iowait irq softirq steal (guest time is in user)
    double v[8] = {};
    for (double& x : v) fields >> x;
    if (!fields || hz <= 0) return t;
    t.valid = true;
    t.busy_s = (v[0] + v[1] + v[2] + v[5] + v[6]) / hz;
    t.idle_s = (v[3] + v[4]) / hz;
    t.steal_s = v[7] / hz;
    return t;
  }
  return t;
}

}  // namespace

bool judgment_run::load() {
  // Nothing of an earlier judgment may still be ending from here on: the
  // probes below and every timed call after them are measured against a
  // machine without it (a candidate whose teardown is slow, a huge
  // allocation, would otherwise inflate its own re-check's probes).
  if (!worker_channel::await_retired())
    add_check("earlier_workers_ended", false,
              "a worker of an earlier judgment was still ending after 30 s; this judgment's probes ran beside it");
  json load_cmd = {{"op", "load"}, {"layout", layout_to_json(layout_)}};
  if (modelnew_) load_cmd["init_inputs"] = init_inputs_;
  // A native CPU library built with OpenMP links libgomp (the compiler
  // links it only where the code uses it): the worker starts its pool before
  // the thread baseline. Read from the file the worker will load, before any
  // candidate code runs. Not on CUDA (nvcc builds without OpenMP): a thread
  // of the baseline there could launch device work outside the window,
  // which no CPU clock counts.
  bool openmp = false;
  if (!modelnew_ && j_.backend == "cpu") {
    auto needed = elf_needed_libraries(library_);
    openmp = needed && std::find(needed->begin(), needed->end(), "libgomp.so.1") != needed->end();
    if (openmp) load_cmd["openmp"] = true;
  }
  worker_reply r = candidate_->request(load_cmd, opt_.call_timeout_s + 30);
  if (r.what != worker_reply::kind::ok) return candidate_failure("preparing the worker", r);
  record_sandbox(r.body["sandbox"]);
  if (openmp) add_check("openmp_pool", true, r.body.value("openmp", "the worker did not say"));
  // From here (the probes included, so they pay what the candidate's calls
  // pay) the worker is stopped whenever it is not answering: what the
  // candidate leaves behind cannot run while the reference stages, runs
  // and checks (an attack review: a ModelNew that hooked the worker's reply
  // flush computed the next call's output from the shared exchange between
  // requests, on the worker's own main thread, at 2-3x an honest speedup).
  if (opt_.defenses) candidate_->freeze_between_requests();
  // Before any candidate code exists in the worker: what its requests cost
  // around a call that does nothing, on the judge's own clock.
  // The judge's wake-up after a call grows with the call's length (a
  // longer sleep, a deeper idle state: +0.1 ms after a 2 ms CPU call here),
  // so the probes last from 0.02 to 2 ms and a candidate is compared with
  // those nearest its own length.
  for (int i = -kWarmupProbes; i < kOverheadProbes; ++i) {
    double probe_ms = kProbeMs[(i + kWarmupProbes) % std::size(kProbeMs)];
    // Half the probes of each length come right after a run of the
    // reference, as half the timed calls do (their order is random): on
    // a CPU the two workers share, the reference's run leaves the
    // worker's caches cold, and a Python worker's ~1 ms of requests then
    // costs 0.1-0.3 ms more (on an H200, honest ModelNew candidates sat
    // that far above probes that never followed the reference, and were
    // rejected as timer_tampering or timed by the judge's clock). The kept
    // rounds (one probe of each length) go after, alone, alone, after, ...
    // so a drift over the probes weighs on both orders alike.
    const int round = (i + kWarmupProbes) / static_cast<int>(std::size(kProbeMs)) - 1;  // -1: the warm-up round
    const bool after_reference = round >= 0 && (round % 4 == 0 || round % 4 == 3);
    call_timing probe;
    time_probe(probe, probe_ms, after_reference);
    if (probe.reference_failed) {
      pending_error_ = reference_error(probe.doing, probe.err_reply);
      return false;
    }
    if (!probe) return candidate_failure("timing the worker's requests", probe.err_reply);
    if (i < 0) continue;
    probes_[probe_ms].excess_ms.push_back(probe.excess_ms);
    probes_[probe_ms].after_reference.push_back(after_reference);
    probe_cpu_outside_ms_.push_back(probe.cpu_outside_ms);
    probe_main_cpu_outside_ms_.push_back(probe.main_cpu_outside_ms);
    if (probe.window_wall_ms >= 0) {
      probe_window_slack_ms_.push_back(probe.window_wall_ms - probe.run.body.value("ms", 0.0));
      probes_[probe_ms].slack_ms.push_back(probe_window_slack_ms_.back());
      probe_outside_wall_ms_.push_back(probe.own_wall_ms - probe.window_wall_ms);
    }
    probe_loud_marks_.push_back(probe.loud_marks);
    probe_loud_pause_ms_.push_back(probe.loud_pause_ms);
  }
  // The judge's own thread census, from outside the worker: its baseline
  // now, before any of the candidate's code exists there (a census inside
  // the worker runs in the candidate's address space, which can blind it).
  outside_baseline_ = list_threads(worker_proc());
  outside_census_ = !outside_baseline_.empty();
  candidate_code_ran_ = true;
  r = candidate_->request({{"op", "open"}, {"library", modelnew_ ? "./candidate.py" : "./candidate.so"}}, opt_.call_timeout_s + 30);
  if (r.what == worker_reply::kind::ok && outside_census_) {
    json started = outside_new_threads();
    if (!started.empty())
      return !reject("background_thread", "threads the candidate started when its library loaded, still running "
                                          "(the judge's census from outside the worker): " + json_text(started));
  }
  candidate_opened_ = true;
  if (r.what == worker_reply::kind::ok) {
    add_check("entry_point", true, modelnew_ ? "ModelNew built with the task's init inputs and the reference's parameters"
                                             : "cudal1_forward found");
    return true;
  }
  if (r.what == worker_reply::kind::failed && (r.failure_kind() == "missing_entry" || r.failure_kind() == "load_error")) {
    add_check("entry_point", false, r.message());
    return fail(verdict::compile_error, r.message());
  }
  return candidate_failure("loading the candidate", r);
}

// The sandbox check: every layer in force, or which is not and why.
void judgment_run::record_sandbox(const json& sb) {
  auto layer = [&](const char* name) { return sb.value(name, std::string("?")); };
  std::string network = layer("network"), files = layer("filesystem"), user = layer("user"), procs = layer("processes"),
              pidns = layer("pid_namespace");
  process_filter_ = procs.rfind("threads only", 0) == 0;
  bool all = network.rfind("isolated", 0) == 0 && files.rfind("reads and writes only", 0) == 0 &&
             user.rfind("uid", 0) == 0 && process_filter_ && pidns.rfind("own", 0) == 0 && sandbox_mounted_;
  add_check("sandbox", all, "network " + network + "; filesystem " + files + "; user " + user + "; processes " + procs +
                                "; PID namespace " + pidns + "; disk " + sandbox_disk_ +
                                (sb.contains("contexts") ? "; CUDA contexts " + layer("contexts") : ""));
}

// The timed run, its inputs staged at its window's mark (and its outputs
// copied at the end mark for a native library), the census's verdict. t.ok
// once done (or judged).
void judgment_run::run_call(call_timing& t, bool census, double probe_ms) {
  json run_cmd = {{"op", "run"}, {"arena", t.arena}, {"shift", t.shift}, {"census", census}};
  if (probe_ms > 0) run_cmd["probe_ms"] = probe_ms;
  bool staged = false;
  auto at_mark = [&](const char* mark, const json& body) {
    if (t.reference_failed) return;
    if (std::string_view(mark) == "window") staged = stage_call(t);
    else if (!staged) return;
    else if (!modelnew_) snapshot_outputs(t);
    else if (direct_collect_ && j_.backend == "cpu") read_outputs_at_end(t, body);
  };
  worker_reply r = candidate_->request_split(run_cmd, opt_.call_timeout_s, at_mark);
  if (t.reference_failed) return;
  if (!staged) {
    // A reply before the window's mark: the worker never reached its window.
    t.err_reply = r;
    if (r.what == worker_reply::kind::ok) {
      t.err_reply.what = worker_reply::kind::failed;
      t.err_reply.body = {{"ok", false}, {"kind", "protocol"}, {"message", "a run reply without the window's mark"}};
    }
    t.doing = modelnew_ ? "calling ModelNew.forward" : "calling cudal1_forward";
    return;
  }
  if (r.what != worker_reply::kind::ok) {
    t.err_reply = r;
    t.doing = modelnew_ ? "calling ModelNew.forward" : "calling cudal1_forward";
    return;
  }
  j_.requests_ms["run"].push_back(r.wall_ms);
  // The worker's own time in the marks' pauses is outside the window too.
  t.own_wall_ms = r.wall_ms + r.loud_pause_ms;
  t.loud_marks = r.loud_marks;
  t.loud_pause_ms = r.loud_pause_ms;
  t.cpu_outside_ms = r.cpu_outside_ms;
  t.main_cpu_outside_ms = r.main_cpu_outside_ms;
  t.window_wall_ms = r.window_wall_ms;
  if (modelnew_ && !collect_outputs(t, r, probe_ms > 0 && !candidate_opened_)) return;
  t.excess_ms = r.wall_ms - r.body.value("ms", 0.0);
  t.run = std::move(r);
  run_census_verdict(t.run.body);
  t.ok = true;
}

// The candidate's untimed warm call, right before a timed one, wherever the
// reference's timed runs have theirs (--reference-warm-call): its code and
// host state are then as warm as the reference's, as in back-to-back trials.
// Without it a ModelNew that is the reference's own forward scored
// 0.54-0.69x on the 2-core VM, 0.68-1.05x with the reference's warm call off
// (a false-rejection review, 2026-12-07). It runs on the last staged call's
// inputs, in their arena, unsplit: the timed call's inputs are staged only
// at its window's mark, after this, so nothing done here can compute them,
// and the arena's outputs were checked already (or are a probe's). Its
// outputs are not read; the census after the timed call sees any thread it
// left. The probes get one of their own before each (probe_ms > 0), so the
// judge's clock never holds warm calls to cold probes. False, with t's
// error set, where the worker failed it.
bool judgment_run::warm_candidate(call_timing& t, double probe_ms) {
  if (!reference_warm_ || !candidate_warm_on() || last_staged_arena_ < 0) return true;
  json cmd = {{"op", "run"}, {"arena", last_staged_arena_}, {"shift", last_staged_shift_}, {"census", false}};
  if (probe_ms > 0) cmd["probe_ms"] = probe_ms;
  worker_reply r = candidate_->request(cmd, opt_.call_timeout_s);
  j_.requests_ms[probe_ms > 0 ? "warm_probe" : "warm_run"].push_back(r.wall_ms);
  if (r.what != worker_reply::kind::ok) {
    t.err_reply = r;
    t.doing = probe_ms > 0 ? "an untimed warm probe"
              : modelnew_  ? "calling ModelNew.forward (an untimed warm call)"
                           : "calling cudal1_forward (an untimed warm call)";
    return false;
  }
  if (probe_ms <= 0) ++j_.candidate_warm_calls;
  return true;
}

// --candidate-warm-call: auto is on for the CPU backend only, until it is
// measured on a GPU and reviewed there (a kernel it leaves running is not
// stopped between requests, as the worker's threads are).
bool judgment_run::candidate_warm_on() const {
  return opt_.candidate_warm_call == "on" || (opt_.candidate_warm_call == "auto" && j_.backend == "cpu");
}

// One probe, a call of the worker's own working probe_ms: fresh inputs first,
// as a timed call has them, so the machine has the timed phase's rhythm
// (between a call's requests the judge and the workers otherwise idle longer,
// and wake up slower, than they will); staged; after a run of the reference
// where asked. A failure of the reference's sets t.reference_failed.
void judgment_run::time_probe(call_timing& t, double probe_ms, bool after_reference) {
  worker_reply prep = reference_->request({{"op", "prepare"}, {"seed", rng_() >> 12}}, kRefCallTimeoutS);
  if (prep.what != worker_reply::kind::ok) {
    t.err_reply = prep;
    t.doing = "generating inputs";
    t.reference_failed = true;
    return;
  }
  place_call(t);
  if (after_reference) {
    worker_reply ran = reference_->request({{"op", "run"}}, kRefCallTimeoutS);
    if (ran.what != worker_reply::kind::ok) {
      t.err_reply = ran;
      t.doing = "running the reference";
      t.reference_failed = true;
      return;
    }
    reference_warm_ = ran.body.value("warm_call", false);
  }
  // Warm as the candidate's timed calls will be: the judge's clock holds
  // those calls' requests to the probes', and a warm call makes the worker's
  // own request work quicker too, room a shortened window could take if the
  // probes ran cold.
  if (!warm_candidate(t, probe_ms)) return;
  run_call(t, false, probe_ms);
}

// The probes again, after the timed calls: kPostProbes of each length, half
// of them right after a run of the reference as before. Their overhead may
// only lower the bar (probes_for_wall takes the lower median per length).
result<bool> judgment_run::probe_after_calls() {
  for (int i = 0; i < kPostProbes * static_cast<int>(std::size(kProbeMs)); ++i) {
    const double probe_ms = kProbeMs[i % std::size(kProbeMs)];
    const bool after_reference = (i / static_cast<int>(std::size(kProbeMs))) % 2 == 0;
    call_timing probe;
    time_probe(probe, probe_ms, after_reference);
    if (probe.reference_failed) return reference_error(probe.doing, probe.err_reply);
    if (!probe) return candidate_failure("timing the worker's requests after the calls", probe.err_reply);
    if (ended_) return false;
    // A probe's work lasts probe_ms by the judge's request: a window reported
    // shorter is a clock the candidate bent (a spin on the CPU is exact; a
    // GPU's spin kernel counts cycles at 1.98 GHz, so only under half there).
    const double reported = probe.run.body.value("ms", 0.0);
    const double floor_ms = j_.backend == "cpu" ? 0.95 * probe_ms - 0.005 : 0.5 * probe_ms;
    if (reported < floor_ms) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "the worker reported %.4g ms for a probe of its own that works %.4g ms, after the "
                    "candidate loaded: its clock is bent", reported, probe_ms);
      return reject("timer_tampering", buf);
    }
    probes_after_[probe_ms].excess_ms.push_back(probe.excess_ms);
    if (probe.window_wall_ms >= 0) {
      probe_after_outside_wall_ms_.push_back(probe.own_wall_ms - probe.window_wall_ms);
      probes_after_[probe_ms].slack_ms.push_back(probe.window_wall_ms - reported);
    }
    probes_after_[probe_ms].after_reference.push_back(after_reference);
  }
  return true;
}

// A failed request to the candidate worker becomes the verdict.
bool judgment_run::candidate_failure(const std::string& doing, const worker_reply& r) {
  switch (r.what) {
    case worker_reply::kind::timeout:
      return fail(verdict::timeout, doing + " did not finish within " + fmt_s(opt_.call_timeout_s) + "; the worker was killed");
    case worker_reply::kind::died:
      // The sandbox's process filter traps forbidden calls; one made with
      // every signal blocked (posix_spawn, system()) ends the process.
      if (process_filter_ && r.exit.signaled && r.exit.signal == SIGSYS)
        return reject("background_process", "the candidate's process was stopped by SIGSYS while " + doing +
                                                ": it tried to start a process, which the sandbox forbids");
      return fail(verdict::runtime_error, "the candidate's process ended while " + doing + " (" + r.exit.describe() + ")" +
                                              log_suffix());
    default:
      if (r.failure_kind() == "protocol")
        return reject("protocol_tampering", "while " + doing + ", " + r.message());
      // A thread that ran on through the judge's stops (worker_channel::freeze)
      // does work in no clock, where the outputs are taken.
      if (r.failure_kind() == "stop_evaded")
        return reject("timer_tampering", "while " + doing + ", " + r.message());
      if (r.failure_kind() == "internal")
        return fail(verdict::runtime_error, "worker error while " + doing + ": " + r.message() + log_suffix());
      return fail(verdict::runtime_error, r.message() + log_suffix());
  }
}

std::string judgment_run::log_suffix() {
  std::string tail = candidate_->log_tail(10);
  return tail.empty() ? "" : "\ncandidate output:\n" + tail;
}

// One call: fresh inputs (judge's seed), the reference and the candidate in
// random order, then every output checked. Returns false once a verdict is
// reached; errors are the reference's.
result<bool> judgment_run::call_once(double* ref_ms, double* cand_ms, double* cand_wall_ms) {
  const bool defended = opt_.defenses || j_.calls < opt_.trials;
  if (defended || j_.calls == 0) {
    worker_reply prep = reference_->request({{"op", "prepare"}, {"seed", rng_() >> 12}}, kRefCallTimeoutS);
    if (prep.what != worker_reply::kind::ok) return reference_error("generating inputs", prep);
    j_.requests_ms["prepare"].push_back(prep.wall_ms);
  }
  call_timing t;
  place_call(t);
  bool candidate_first = rng_() & 1;
  if (timing_) reference_first_.push_back(!candidate_first);
  for (int side = 0; side < 2; ++side) {
    if ((side == 0) == candidate_first) {
      // The trials also take the kernel census (untimed figures, so its cost
      // never reaches a measurement).
      bool census = opt_.defenses && j_.calls < opt_.trials;
      if (timing_ && !warm_candidate(t)) return candidate_failure(t.doing, t.err_reply);
      run_call(t, census);
      if (t.reference_failed) return reference_error(t.doing, t.err_reply);
      if (!t) return candidate_failure(t.doing, t.err_reply);
      if (ended_) return false;
      const json& body = t.run.body;
      if (census) {
        if (body.contains("kernels")) census_launches_.insert(census_launches_.end(), body["kernels"].begin(), body["kernels"].end());
        else census_note_ = body.value("census", "not reported by the worker");
      }
      *cand_ms = body.value("ms", 0.0);
      *cand_wall_ms = t.run.wall_ms;
      if (timing_) {
        cand_excess_ms_.push_back(t.excess_ms);
        cand_cpu_outside_ms_.push_back(t.cpu_outside_ms);
        cand_main_cpu_outside_ms_.push_back(t.main_cpu_outside_ms);
        cand_window_slack_ms_.push_back(t.window_wall_ms >= 0 ? t.window_wall_ms - *cand_ms : std::nan(""));
        cand_window_wall_ms_.push_back(t.window_wall_ms);
        cand_outside_wall_ms_.push_back(t.window_wall_ms >= 0 ? t.own_wall_ms - t.window_wall_ms : -1.0);
        cand_loud_marks_.push_back(t.loud_marks);
        cand_loud_pause_ms_.push_back(t.loud_pause_ms);
      }
    } else {
      worker_reply run = reference_->request({{"op", "run"}}, kRefCallTimeoutS);
      if (run.what != worker_reply::kind::ok) return reference_error("running the reference", run);
      *ref_ms = run.body.value("ms", 0.0);
      j_.requests_ms["reference_run"].push_back(run.wall_ms);
      j_.reference_placements = std::max(j_.reference_placements, run.body.value("placement", 0) + 1);
      reference_warm_ = run.body.value("warm_call", false);
      if (reference_warm_) ++j_.reference_warm_calls;
      reference_probe_us_ = run.body.value("host_us", -1.0);
      reference_probe_before_us_ = run.body.value("host_us_before", -1.0);
    }
  }
  ++j_.calls;
  if (!defended) return true;
  // The correctness trials are also held to the float64 reference.
  worker_reply chk =
      reference_->request({{"op", "check"}, {"arena", t.arena}, {"shift", t.shift}, {"precise", opt_.defenses && j_.calls <= opt_.trials}},
                          kRefCallTimeoutS);
  if (chk.what != worker_reply::kind::ok) return reference_error("checking outputs", chk);
  j_.requests_ms["check"].push_back(chk.wall_ms);
  return check_call(chk.body, *cand_ms, *cand_wall_ms);
}

bool judgment_run::check_call(const json& body, double cand_ms, double cand_wall_ms) {
  for (size_t i = 0; i < layout_.outputs.size() && i < body["outputs"].size(); ++i) {
    const auto& slot = layout_.outputs[i];
    output_error e = parse_output_error(body["outputs"][i], slot.name, slot.dtype);
    merge_error(e);
    const tolerance tol = tolerance_for(slot.dtype, opt_.precision);
    output_verdict v = judge_output(e, tol);
    if (!v.pass) {
      bool unwritten = e.unwritten > 0;
      add_check(unwritten ? "outputs_written" : "correctness", false, v.reason + " (call " + std::to_string(j_.calls) + ")");
      label_precision_downgrade(e, body["outputs"][i], slot.dtype, "the reference");
      if (body["outputs"][i].contains("replays_call"))
        add_hack("replay", slot.name + " of call " + std::to_string(j_.calls) + " matches the reference output of call " +
                               std::to_string(body["outputs"][i]["replays_call"].get<int>()) +
                               ", whose inputs were different");
      return fail(verdict::incorrect, v.reason);
    }
    if (!body["outputs"][i].contains("precise")) continue;
    const json& pj = body["outputs"][i]["precise"];
    output_error p = parse_output_error(pj, slot.name, slot.dtype);
    std::optional<double> torch_err;
    if (pj.contains("reference_rel_norm") && pj["reference_rel_norm"].is_number()) torch_err = pj["reference_rel_norm"].get<double>();
    if (torch_err) {
      double& worst = precise_torch_err_[slot.name];
      worst = std::max(worst, *torch_err);
    }
    output_verdict pv = judge_precise(p, tol, torch_err);
    if (!pv.pass) {
      std::string reason = "against the float64 reference, " + pv.reason;
      add_check("precise_reference", false, reason + " (call " + std::to_string(j_.calls) + ")");
      label_precision_downgrade(p, pj, slot.dtype, "the float64 reference");
      return fail(verdict::incorrect, reason);
    }
  }
  if (!body["changed_inputs"].empty()) {
    std::string names = json_text(body["changed_inputs"]);
    add_check("inputs_unchanged", false, "the candidate modified its inputs " + names);
    add_hack("input_modification", "inputs " + names + " differ from the pristine copy after call " + std::to_string(j_.calls));
    return fail(verdict::incorrect, "the candidate modified its inputs " + names);
  }
  // The worker's window cannot be longer than the judge's own clock around
  // the same request (0.05 ms slack for clock granularity).
  if (cand_ms > cand_wall_ms + 0.05) {
    add_check("timer_cross_check", false, "reported " + fmt_ms(cand_ms) + " inside a " + fmt_ms(cand_wall_ms) + " request");
    return reject("timer_tampering", "the worker reported " + fmt_ms(cand_ms) + " for a call the judge saw take " +
                                         fmt_ms(cand_wall_ms));
  }
  return true;
}

// A failing output that carries the error of lower-precision arithmetic
// is named (the verdict is incorrect either way).
void judgment_run::label_precision_downgrade(const output_error& e, const json& figures, const std::string& dtype,
                                             const std::string& against) {
  std::string evidence = precision_downgrade_evidence(e, figures, dtype, opt_.precision, against);
  if (!evidence.empty()) add_hack("precision_downgrade", evidence + " (call " + std::to_string(j_.calls) + ")");
}

void judgment_run::merge_error(const output_error& e) {
  auto worst = [](std::optional<double>& into, const std::optional<double>& v, bool first) {
    if (!v) into.reset();
    else if (first || (into && *v > *into)) into = v;
  };
  bool first = !j_.error.measured;
  worst(j_.error.max_abs, e.max_abs, first);
  worst(j_.error.max_rel, e.max_rel, first);
  worst(j_.error.rel_norm, e.rel_norm, first);
  j_.error.measured = true;
}

result<bool> judgment_run::measure() {
  progress_.phase("checking " + std::to_string(opt_.trials) + " trials");
  double ref_ms = 0, cand_ms = 0, cand_wall = 0;
  for (int t = 0; t < opt_.trials; ++t) {
    auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
    if (!ok || !*ok) return ok;
    ++j_.trials;
  }
  end_phase("trials");
  add_check("correctness", true, std::to_string(opt_.trials) + "/" + std::to_string(opt_.trials) +
                                     " trials with fresh inputs within tolerance");
  add_check("outputs_written", true, "every output element written in every call (NaN-prefilled)");
  if (!precise_torch_err_.empty()) {
    double worst = 0;
    for (const auto& [name, err] : precise_torch_err_) worst = std::max(worst, err);
    j_.precision["reference_rel_norm"] = worst;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%d trials within tolerance of the float64 reference (PyTorch's own output, policy %s, is off it by %.2g)",
                  opt_.trials, opt_.precision.c_str(), worst);
    add_check("precise_reference", true, buf);
  }
  add_check("inputs_unchanged", true, "inputs bit-identical after every call");
  if (auto s = take_census(); !s) return s.err();
  if (j_.outcome == verdict::rejected) return false;
  progress_.phase("timing");
  auto warm_start = std::chrono::steady_clock::now();
  for (int w = 0; warming_up(w, warm_start); ++w) {
    auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
    if (!ok || !*ok) return ok;
  }
  end_phase("warmup");
  auto measure_start = std::chrono::steady_clock::now();
  timing_ = true;
  std::vector<int> cpus;
  for (int c : {j_.cpu, j_.reference_cpu})
    if (c >= 0 && std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
  std::vector<cpu_times> cpus_before;
  for (int c : cpus) cpus_before.push_back(read_cpu_times(c));
  // Matched by the host's state (timing/host_match.h), where the reference
  // is short enough (under 1 ms) for its Python dispatch to weigh: the
  // stopping rule runs over the pairs timed at full speed once there are
  // enough of them; until then the timing may run up to host_wait_s past
  // its budget to find them.
  const bool matching = host_matching();
  const std::optional<double> known_level = matching ? known_host_level_here() : std::nullopt;
  for (;;) {
    auto ok = call_once(&ref_ms, &cand_ms, &cand_wall);
    if (!ok || !*ok) return ok;
    probe_us_.push_back(reference_probe_us_);
    if (reference_probe_before_us_ >= 0) probe_before_us_.push_back(reference_probe_before_us_);
    j_.reference.samples_ms.push_back(ref_ms);
    j_.candidate.samples_ms.push_back(cand_ms);
    j_.candidate.wall_ms.push_back(cand_wall);
    const double elapsed = seconds_since(measure_start);
    stop_reason reason = should_stop(opt_.stopping, j_.reference.samples_ms, j_.candidate.samples_ms, elapsed);
    if (matching && reason != stop_reason::max_samples &&
        summarize_samples(j_.reference.samples_ms).median_ms < kHostSensitiveMs) {
      host_match m = match_host(probe_us_, known_level);
      if (m.level_us <= 0) {
        // The reference reports no probe: nothing to match, nothing to wait for.
      } else if (m.usable) {
        reason = should_stop(opt_.stopping, kept(j_.reference.samples_ms, m.at_full_speed),
                             kept(j_.candidate.samples_ms, m.at_full_speed), elapsed);
      } else if (reason != stop_reason::none && elapsed < opt_.stopping.max_time_s + opt_.host_wait_s) {
        reason = stop_reason::none;  // waiting for the host's full speed
      }
    }
    if (reason != stop_reason::none) {
      j_.stop_reason = to_string(reason);
      break;
    }
  }
  end_phase("timing");
  json per_cpu = json::object();
  for (size_t i = 0; i < cpus.size(); ++i) {
    cpu_times after = read_cpu_times(cpus[i]);
    if (!after.valid || !cpus_before[i].valid) continue;
    per_cpu[std::to_string(cpus[i])] = {{"busy_s", after.busy_s - cpus_before[i].busy_s},
                                        {"idle_s", after.idle_s - cpus_before[i].idle_s},
                                        {"steal_s", after.steal_s - cpus_before[i].steal_s}};
  }
  j_.host = {{"reference_probe_us", probe_us_}, {"cpus", per_cpu}};
  if (opt_.host_probe == "both") {
    // reference_probe_us holds the slower of the two probes per pair.
    j_.host["probe"] = "both";
    j_.host["reference_probe_before_us"] = probe_before_us_;
  }
  if (matching) {
    host_match m = match_host(probe_us_, known_level);
    j_.host["level_us"] = m.level_us;
    j_.host["known_level_us"] = known_level ? json(*known_level) : json();
    j_.host["pairs_at_full_speed"] = m.count;
    // A reference of 1 ms or more is mostly device time: its pairs are all
    // used, whatever the host's state (the stopping rule ran over all of
    // them), and its level is not kept.
    if (m.level_us > 0 && summarize_samples(j_.reference.samples_ms).median_ms < kHostSensitiveMs) {
      // Written for a correct final verdict only (judge_candidate()).
      if (m.own_level_us) j_.cache_updates["host_level"] = {{"key", host_level_key()}, {"us", *m.own_level_us}};
      host_match_ = std::move(m);
    } else {
      j_.host["state"] = "not_matched";
      // Its pairs at full speed are still known: the judge's clock may need
      // them (keep_pairs_at_full_speed).
      if (m.level_us > 0 && m.usable) clock_match_ = std::move(m);
    }
  }
  return true;
}

// Never for an untrusted task: its reference's process runs the task's code,
// which can report any probe (an attack review set it to 0.01 us, and every
// later judgment on the machine waited and used every pair).
bool judgment_run::host_matching() const {
  if (!untrusted_box_.empty()) return false;
  return opt_.host_match == "on" || (opt_.host_match == "auto" && j_.backend == "cuda");
}

// What this machine's Python, CPU model and host name have shown as the
// host's full-speed level for this task and size profile (host-levels.json
// in the cache folder): the probe runs after the reference's window, so its
// level depends on what the window left in the caches (an attack review:
// 15.3 us after a tiny reference, 20.6 us after a 4 MB one).
std::string judgment_run::host_level_key() const {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 1);
      model.erase(0, model.find_first_not_of(" \t"));
      break;
    }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return j_.python + "|" + model + "|" + host + "|" + j_.task_path + "|" + opt_.profile +
         (opt_.host_probe == "after" ? "" : "|probe=" + opt_.host_probe);
}

std::optional<double> judgment_run::known_host_level_here() const {
  json known = cached_object(cache_dir() + "/host-levels.json");
  const std::string key = host_level_key();
  if (!known.contains(key) || !known[key].is_array()) return std::nullopt;
  std::vector<double> levels;
  for (const auto& v : known[key])
    if (v.is_number()) levels.push_back(v.get<double>());
  return known_host_level(levels);
}

}  // namespace cudal1::judging
