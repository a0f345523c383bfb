// The end of a judgment: the judge's clock against the worker's window
// (timer_tampering, the grey zone, the judge's own clock), the statistics
// and the speed of light. See judgment_run.h.
#include "judge/judgment_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "audit/speed_of_light.h"
#include "base/json_text.h"
#include "timing/clock_check.h"
#include "timing/stats.h"

namespace cudal1::judging {
namespace {

// The calls of a per-call series that were measured (-1: not).
std::vector<double> measured_calls(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (x >= 0) out.push_back(x);
  return out;
}

// What the probes before the candidate loaded allow a candidate's calls on
// one measure: their median, and a tolerance of four of their standard
// deviations, at least floor_ms.
struct probe_bound {
  double median_ms, sigma_ms, tolerance_ms;
};

probe_bound bound_of(const std::vector<double>& probes, double floor_ms) {
  const double sigma = robust_sigma(probes);
  return {summarize_samples(probes).median_ms, sigma, std::max(floor_ms, 4 * sigma)};
}

// How far the candidate's calls' median on one measure sits above `base`
// (the probes' median) beyond what the two medians' noise allows: two
// standard errors of their difference (the candidate's spread counted at
// most kCandidateSpreadCap times the probes', as it is the candidate's to
// widen), at least floor_ms. Work moved to every call shifts the median by
// its length, however small against a single call's spread.
struct median_shift {
  double candidate_median_ms, tolerance_ms, excess_ms;
};

median_shift shift_of(const std::vector<double>& probes, const std::vector<double>& cand, double base_ms, double floor_ms) {
  const double sp = robust_sigma(probes);
  const double sc = std::min(robust_sigma(cand), kCandidateSpreadCap * sp);
  const double se = 1.2533 * std::sqrt(sp * sp / std::max<size_t>(1, probes.size()) + sc * sc / std::max<size_t>(1, cand.size()));
  const double median = summarize_samples(cand).median_ms;
  const double tolerance = std::max(floor_ms, 2 * se);
  return {median, tolerance, std::max(0.0, median - base_ms - tolerance)};
}

}  // namespace

result<bool> judgment_run::finish() {
  worker_reply back = candidate_->request({{"op", "return_params"}}, kRefCallTimeoutS);
  if (back.what != worker_reply::kind::ok) return candidate_failure("returning parameters", back);
  worker_reply chk = reference_->request({{"op", "check_params"}}, kRefCallTimeoutS);
  if (chk.what != worker_reply::kind::ok) return reference_error("checking parameters", chk);
  if (!chk.body["changed_params"].empty()) {
    std::string names = json_text(chk.body["changed_params"]);
    add_check("params_unchanged", false, "the candidate modified parameters " + names);
    add_hack("parameter_modification", "parameters " + names + " differ from the reference's after the calls");
    return fail(verdict::incorrect, "the candidate modified parameters " + names);
  }
  add_check("params_unchanged", true, "parameters bit-identical after " + std::to_string(j_.calls) + " calls");
  int timed = static_cast<int>(j_.candidate.samples_ms.size());
  if (opt_.defenses)
    add_check("timed_outputs_checked", true,
              "all " + std::to_string(j_.calls) + " calls' outputs checked, " + std::to_string(timed) + " of them timed");
  else
    add_check("timed_outputs_checked", false, "defenses off (benchmark): only the trials were checked");
  if (opt_.defenses && !cand_excess_ms_.empty() && !probes_.empty()) {
    auto again = probe_after_calls();
    if (!again || !*again) return again;
  }
  if (!check_judge_clock()) return false;
  // The statistics' pairs are checked again on their own: a window forged
  // only in the pairs that count would otherwise hide in the median of all
  // of them (an attack review: up to ~45% of the calls forged passed it).
  // Where they are a subset, that check alone decides whether the judge's
  // clock times them: the other pairs' requests, timed while the host was
  // slow, can only say that the host was slow (on an H100 host an honest
  // native kernel's 0.033 ms calls were counted at 0.096 ms by the judge's
  // clock for an excess over all pairs that the full-speed pairs did not
  // show, 2026-12-06). Evidence of a forged window in any pair still
  // rejects, above.
  if (keep_pairs_at_full_speed()) {
    pending_judge_clock_ = false;
    if (!check_judge_clock(true)) return false;
  } else if (pending_judge_clock_) {
    use_judge_clock();
  }
  charge_work_outside_window();
  j_.reference.summary = summarize_samples(j_.reference.samples_ms);
  j_.candidate.summary = summarize_samples(j_.candidate.samples_ms);
  j_.outcome = verdict::correct;
  if (j_.candidate.summary->median_ms > 0) j_.speedup = j_.reference.summary->median_ms / j_.candidate.summary->median_ms;
  double error = speedup_error_rel(j_.reference.samples_ms, j_.candidate.samples_ms);
  if (std::isfinite(error)) j_.speedup_error_rel = error;
  j_.reference_order = order_effect(j_.reference.samples_ms, reference_first_);
  return check_speed_of_light();
}

// The worker's window is the candidate's process's clock: it stands only
// where the judge's own clock agrees. Per call, the judge's time for the
// call's three requests less the worker's window (the excess) is a fixed
// overhead, measured before the candidate loaded; time taken from the
// window, or moved into stage or collect, adds to it.
bool judgment_run::check_judge_clock(bool full_speed_pairs) {
  if (!opt_.defenses || cand_excess_ms_.empty() || probes_.empty()) {
    if (!full_speed_pairs) add_check("timer_cross_check", true, "the worker's time never exceeded the judge's wall clock");
    return true;
  }
  // (The summary is not made yet: the worker's median from its samples,
  // its own as reported: in the full-speed pass the judge's clock may have
  // raised them already, and a raised median loosens the tolerance.)
  const std::vector<double> worker_ms =
      judge_clock_used_ && j_.judge_clock.contains("worker_samples_ms")
          ? j_.judge_clock["worker_samples_ms"].get<std::vector<double>>()
          : j_.candidate.samples_ms;
  double median = summarize_samples(worker_ms).median_ms;
  // The probes are chosen by the judge's own time for the calls, never by
  // the window the worker reports: a forged window chose the probe length,
  // and with it the overhead it was compared with (attack review: a
  // ModelNew running its clock at 40% passed at 2.92x).
  double wall = j_.candidate.wall_ms.empty() ? median : summarize_samples(j_.candidate.wall_ms).median_ms;
  const std::vector<double> near = probes_for_wall(wall);
  const double probe_spread = std::max(probe_spread_ms(), robust_sigma(near));
  clock_agreement run = compare_excess(near, cand_excess_ms_, median, kCandidateSpreadCap * probe_spread);
  // Conclusive: the tolerance is at most a quarter of the window, so a
  // window forged to three quarters or less would show. The native worker
  // may lean on an absolute 0.25 ms (a tiny kernel's window is below any
  // request's noise); the Python worker may not: its candidate shares the
  // interpreter with the worker's clock, and its ~1-2 ms requests leave
  // room for a forged window at any size under a millisecond.
  // Too few timed calls for their median to stand for the candidate (a time
  // budget spent early on a loaded machine: in CI an honest ModelNew with one
  // timed call, 1.07 ms over the probes, was rejected): the check cannot
  // tell, and the judge's clock times the calls.
  const bool too_few = cand_excess_ms_.size() < kMinClockCalls;
  bool conclusive = !too_few && run.tolerance_ms <= (modelnew_ ? 0.25 * median : std::max(0.25, 0.25 * median));
  // Up to twice the tolerance is a grey zone, not a verdict: the judge's
  // own clock then times every call (a forger gains nothing there), so an
  // honest candidate a busy request pushed over the line is not rejected
  // (an H200 re-check of an honest load_inline ModelNew: 0.172 ms against
  // 0.143). Beyond it, the worker's window is forged (the corpus: 0.55 and
  // 0.83 ms against ~0.1).
  bool grey = !run.agrees && (too_few || run.missing_ms <= 2 * run.tolerance_ms);
  // A rejection needs the calls beyond the grey zone of the probes taken
  // before the candidate loaded too, which no code of the candidate's can
  // have touched. The bar is the lower of those and the probes after the
  // calls, so that a busy stretch during the first probes leaves a forged
  // window no room to stand; but a host that changed state between the two
  // sets leaves honest calls over the lower one. On an H100 host whose
  // requests took ~0.13 ms longer in a slow state, the first probes ran at
  // 0.49-0.58 ms, those after the calls at 0.37-0.44, and an honest 0.033 ms
  // kernel's re-check, its calls mostly in the slow state, was rejected as
  // timer_tampering, 0.152 ms unaccounted against a 0.0756 tolerance
  // (stability_bench, 2026-12-07). Between the two bars the calls are timed
  // by the judge's clock, as in the grey zone: a forged window gains nothing.
  // (On the CPU a rejection needs the window's span to show it forged, below.)
  double missing_before_probes = -1;
  if (!run.agrees && !grey && j_.backend != "cpu" && !probes_after_.empty()) {
    const clock_agreement before = compare_excess(probes_for_wall(wall, false), cand_excess_ms_, median,
                                                  kCandidateSpreadCap * probe_spread);
    missing_before_probes = before.missing_ms;
    if (before.agrees || before.missing_ms <= 2 * before.tolerance_ms) grey = true;
  }
  // A spread beyond the cap is not the requests' noise: the window does not
  // follow the judge's clock call by call, and whatever its median shows,
  // the judge's own clock times every call (the cap alone left a window
  // shaped that way standing where the probes met a busy machine: with
  // their spread at 0.05 ms the tolerance was 0.21 ms, and the 0.2 ms a
  // cycle of forged windows took passed conclusively in 6 of 12 judgments on
  // the 2-core VM, and once in CI). Honest calls spread 0.4-2.2 times the
  // probes' (H200, native), 0.7-2.8 (ModelNew).
  const bool unvouched = run.spread_capped;
  // The window itself, by the judge's clock between the run request's marks:
  // a worker's window can only be shorter than that span by the marks' own
  // latency, which the probes measured. Where it agrees, the requests' excess
  // over the probes is not time taken from the window (on the 2-core VM an
  // honest OpenMP ModelNew's requests ran 0.1-0.5 ms over the probes', with
  // its window's span and its CPU time outside the window as the probes');
  // whatever the candidate did outside its window in CPU time is charged
  // (charge_work_outside_window). So it is not rejected: every call is
  // timed by the judge's clock instead, where no forger gains.
  //
  // On the CPU, where the span was measured, a rejection needs the span
  // itself to show the window short beyond the grey zone: a window forged
  // by X lengthens the span's slack over the probes' by X, as it does the
  // requests' excess. Time the requests took beyond the probes outside the
  // span is not taken from the window: on the CPU the inputs are staged at
  // the window's mark and the outputs read at its end, so nothing done
  // there reaches the check, its CPU time is charged, and the judge's clock
  // times every call (in CI, under load, an honest native kernel whose
  // requests ran 0.261 ms over the probes', tolerance 0.109, was rejected;
  // on the 2-core VM with one busy loop beside it, honest calls' spans ran
  // 0.04 ms over the probes' while their requests ran 0.25 ms over).
  const json window = window_slack_check(median);
  const bool span_measured = window.value("measured", false);
  const double short_window_ms =
      span_measured ? window["candidate_median_ms"].get<double>() - window["probe_median_ms"].get<double>() : 0.0;
  // A span short by far more than its own noise and by half the window or
  // more (at least 0.2 ms) is a forged window however wide the requests'
  // tolerance is: a window reported at a third of its length
  // (hack_move_start.cpp, short by twice its window) was otherwise counted
  // by the judge's clock, not rejected, in CI. Below that the calls are
  // counted from the span, where a shortened window gains nothing: honest
  // spans ran up to 0.085 ms over the probes' on the loaded 2-core VM (a
  // deliberate 0.06 ms wait included), and a kernel that splits its work
  // over a second thread, beside another judgment and a compile, 0.114 ms
  // over, a quarter of its 0.41 ms window: with a bar of 0.1 ms and a
  // quarter it was rejected (a false-rejection review, 2026-12-07).
  const bool span_forged = span_measured && short_window_ms > std::max(0.2, 4 * window.value("tolerance_ms", 0.0)) &&
                           short_window_ms > 0.5 * median;
  if (!run.agrees && !grey && j_.backend == "cpu" && span_measured && !span_forged &&
      (window.value("agrees", false) || short_window_ms <= 2 * run.tolerance_ms))
    grey = true;
  // And where the requests' excess agrees with the probes' but cannot vouch
  // for the window (its tolerance too wide for the window's length, or the
  // calls' spread beyond the cap: a busy stretch of the host after the
  // probes), the window's own span can: where it follows the probes' call by
  // call, tightly, and the main thread spent no more CPU time outside it
  // than in the probes, the worker's window stands. (On an H100 host in such
  // a stretch the judge's clock counted an honest native kernel's 0.713 ms
  // calls at 0.84 and 1.05 ms, 2026-12-06.)
  const bool window_vouches = window.value("vouches", false) && !too_few;
  // And where the window's span is longer than the worker's window by more
  // than the probes' marks allow, the window is not the span's, whatever
  // the requests show: a worker whose requests do less than the probes'
  // (handlers swapped for leaner ones: an attack review, 2026-12-06) can
  // hide a shortened window in their excess. The judge's clock then times
  // every call (use_judge_clock, from the span). Honest calls' spans agreed
  // in 64 judgments on H100 hosts and in all but one looked at on the 2-core
  // VM (an honest native kernel in a stretch where its requests ran 0.25 ms
  // slow: 0.03 ms over the probes' 0.02 tolerance; counted by the judge's
  // clock, not rejected for it).
  const bool span_disagrees = window.value("measured", false) && !window.value("agrees", true);
  // And where the worker's own time in the marks' pauses (a thread of it
  // running on after a mark: worker_channel::exchange) shifted the calls'
  // median over the probes', the work there is in no window: the judge's
  // clock times every call, counting it (an attack review, 2026-12-06:
  // rows computed until the go came, at 3.4-4.4x against 1.1-2.7x honest).
  bool pauses_disagree = false;
  json pauses = {{"measured", false}};
  if (probe_loud_pause_ms_.size() >= kMinClockCalls && cand_loud_pause_ms_.size() >= kMinClockCalls) {
    const double probe_median = summarize_samples(probe_loud_pause_ms_).median_ms;
    const median_shift shift = shift_of(probe_loud_pause_ms_, cand_loud_pause_ms_, probe_median, 0.02);
    pauses_disagree = shift.excess_ms > 0;
    pauses = {{"measured", true}, {"probe_median_ms", probe_median}, {"candidate_median_ms", shift.candidate_median_ms},
              {"tolerance_ms", shift.tolerance_ms}, {"agrees", !pauses_disagree}};
  }
  const bool window_disagrees = span_disagrees || pauses_disagree;
  // Shown by the calls' slow half alone: their slack's lower quartile within
  // the tolerance of the probes' (window_slack_check), and nothing in the
  // marks' pauses. span_disagreed() lets a second judgment be made there.
  const bool slow_calls_only = span_disagrees && !pauses_disagree && window.value("lower_quartile_agrees", false);
  json figures = {{"overhead_ms", run.overhead_ms}, {"candidate_ms", run.excess_ms}, {"missing_ms", run.missing_ms},
                  {"tolerance_ms", run.tolerance_ms}, {"agrees", run.agrees}, {"conclusive", conclusive},
                  {"grey_zone", grey}, {"judge_wall_ms", wall},
                  {"candidate_spread_ms", run.candidate_spread_ms}, {"probe_spread_ms", probe_spread},
                  {"spread_capped", run.spread_capped}, {"window_slack", window}, {"window_short_ms", span_measured ? json(short_window_ms) : json()}, {"window_vouches", window_vouches},
                  {"window_disagrees", window_disagrees}, {"window_disagrees_in_slow_calls_only", slow_calls_only},
                  {"marks_pauses", pauses}};
  if (missing_before_probes >= 0) figures["missing_before_probes_ms"] = missing_before_probes;
  json probe_figures = json::object(), after_figures = json::object();
  for (const auto& [ms, series] : probes_) probe_figures[fmt_ms(ms)] = series.excess_ms;
  for (const auto& [ms, series] : probes_after_) after_figures[fmt_ms(ms)] = series.excess_ms;
  // The candidate's excess by the order of its pair (the reference's run
  // just before it, or not), beside the probes' by the same: where the
  // order moves a worker's requests, the two should move alike.
  {
    std::vector<double> after, alone;
    for (size_t k = 0; k < cand_excess_ms_.size() && k < reference_first_.size(); ++k)
      (reference_first_[k] ? after : alone).push_back(cand_excess_ms_[k]);
    std::vector<double> probe_after, probe_alone;
    for (const auto& [ms, series] : probes_) {
      const double median = summarize_samples(series.excess_ms).median_ms;  // each length about its own
      for (size_t k = 0; k < series.excess_ms.size() && k < series.after_reference.size(); ++k)
        (series.after_reference[k] ? probe_after : probe_alone).push_back(series.excess_ms[k] - median);
    }
    auto median_or_null = [](const std::vector<double>& v) { return v.empty() ? json() : json(summarize_samples(v).median_ms); };
    figures["by_order"] = {{"candidate_after_reference_ms", median_or_null(after)},
                           {"candidate_alone_ms", median_or_null(alone)},
                           {"probe_after_reference_rel_ms", median_or_null(probe_after)},
                           {"probe_alone_rel_ms", median_or_null(probe_alone)}};
  }
  char capped[240] = "";
  if (run.spread_capped)
    std::snprintf(capped, sizeof capped, "; the calls' spread, %.3g ms, counted at %.3g times the probes' %.3g%s",
                  run.candidate_spread_ms, kCandidateSpreadCap, probe_spread,
                  run.agrees || grey ? ", and beyond it the window does not follow the judge's clock call by call: "
                                       "each call timed by the judge's clock"
                                     : "");
  char buf[640];
  std::snprintf(buf, sizeof buf, "the judge's clock saw %.4g ms per run request beyond the worker's window (the worker's own "
                "call before the candidate loaded: %.4g ms; %.3g ms unaccounted, at most %.3g%s%s)%s",
                run.excess_ms, run.overhead_ms, run.missing_ms, run.tolerance_ms, capped,
                too_few ? ", too few timed calls to tell: each judged by the judge's clock"
                : grey  ? ", up to twice that judged by the judge's clock"
                        : "",
                full_speed_pairs ? " over the pairs timed at the host's full speed" : "");
  if (full_speed_pairs) {
    // Both checks must agree, and both be conclusive, for the judgment's.
    j_.judge_clock["full_speed_pairs"] = {{"run_beyond_window", figures}, {"agrees", run.agrees || grey},
                                          {"conclusive", conclusive && run.agrees && !unvouched && !window_disagrees}};
    j_.judge_clock["agrees"] = j_.judge_clock.value("agrees", true) && (run.agrees || grey);
    j_.judge_clock["conclusive"] = j_.judge_clock.value("conclusive", true) && conclusive && run.agrees && !unvouched && !window_disagrees;
  } else {
    j_.judge_clock = {{"run_beyond_window", figures}, {"probe_run_beyond_window_ms", probe_figures},
                      {"probe_after_calls_ms", after_figures},
                      {"agrees", run.agrees || grey}, {"conclusive", conclusive && run.agrees && !unvouched && !window_disagrees}};
  }
  add_check(full_speed_pairs ? "timer_cross_check_full_speed" : "timer_cross_check", run.agrees || grey, buf);
  if (!run.agrees && !grey) {
    j_.speedup.reset();
    return reject("timer_tampering", std::string("the worker's time is short of the judge's own clock: ") + buf);
  }
  if ((grey || window_disagrees || ((!conclusive || unvouched) && !window_vouches)) && !judge_clock_used_) {
    if (full_speed_pairs) use_judge_clock();
    else pending_judge_clock_ = true;  // finish() decides, once it knows which pairs count
  }
  return true;
}

// Work outside the window, on threads other than the worker's main one. The
// judge split each run request at its window (worker_channel::request_split)
// and read the worker's CPU time, stopped, at both marks and at the end of
// every request: its threads' time before the window, after it, and in the
// call's collect and census requests is outside. The main thread's own there
// (the requests' work, which a host's slow phase stretches alike, 0.17 to
// 0.26 ms on an H100 host) is the judge's clock check's: its requests take
// that long. The others' is work done beside it, where no clock sees it (an
// attack review: a pool thread of the baseline, taken over, finished a
// ModelNew's rows while the worker answered, at 1.14-1.98x against
// 0.50-0.92x done inside). Honest threads spend there only what the stops
// cost them, as in the probes before the candidate loaded. Each call's
// excess beyond the tolerance counts in its time, as if done in the window
// one thread at a time: whatever it was, no gain is left in it, and an
// honest call's noise below the tolerance costs nothing.
// Whether work the worker does outside its window could still reach what
// is checked: on CUDA (kernels run on through the marks), and for a CPU
// ModelNew whose outputs the worker copies after its reply. Otherwise, on
// the CPU, a call's inputs are staged at its window's mark and its outputs
// taken at its end, with the worker stopped.
bool judgment_run::outside_work_reaches_check() const {
  return j_.backend != "cpu" || (modelnew_ && !direct_collect_);
}

void judgment_run::charge_work_outside_window() {
  if (!opt_.defenses || cand_cpu_outside_ms_.empty()) return;
  // Marks at which a thread of the worker kept running through the judge's
  // quiet readings (worker_channel::exchange): the worker's time in their
  // pauses is compared with the probes' in check_judge_clock.
  j_.judge_clock["loud_marks"] = {{"probes", std::accumulate(probe_loud_marks_.begin(), probe_loud_marks_.end(), 0)},
                                  {"probe_calls", probe_loud_marks_.size()},
                                  {"calls", std::accumulate(cand_loud_marks_.begin(), cand_loud_marks_.end(), 0)},
                                  {"timed_calls", cand_loud_marks_.size()}};
  auto others = [](const std::vector<double>& all, const std::vector<double>& main) {
    std::vector<double> out;
    for (size_t i = 0; i < all.size(); ++i)
      out.push_back(i < main.size() && all[i] >= 0 && main[i] >= 0 ? std::max(0.0, all[i] - main[i]) : -1.0);
    return out;
  };
  const std::vector<double> probes = measured_calls(others(probe_cpu_outside_ms_, probe_main_cpu_outside_ms_));
  const std::vector<double> cand = others(cand_cpu_outside_ms_, cand_main_cpu_outside_ms_);
  std::vector<double>& samples = j_.candidate.samples_ms;
  const bool measured = probes.size() >= kMinClockCalls && cand.size() == samples.size() &&
                        std::all_of(cand.begin(), cand.end(), [](double x) { return x >= 0; });
  if (!measured) {
    j_.judge_clock["outside_window_cpu"] = {{"measured", false}};
    add_check("work_outside_window", true, "not measured: the worker's threads' CPU time was not read at every call's ends");
    return;
  }
  const auto [base, sigma, tolerance] = bound_of(probes, kOutsideCpuFloorMs);
  const double median = summarize_samples(cand).median_ms;
  std::vector<double> charged(samples.size(), 0.0);
  int calls = 0;
  double total = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double over = cand[i] - base - tolerance;
    if (over <= 0) continue;
    charged[i] = over;
    samples[i] += over;
    total += over;
    ++calls;
  }
  j_.judge_clock["outside_window_cpu"] = {
      {"measured", true}, {"probe_median_ms", base}, {"probe_sigma_ms", sigma}, {"tolerance_ms", tolerance},
      {"candidate_median_ms", median}, {"calls_charged", calls}, {"charged_ms", charged},
      {"probe_ms", probes}, {"candidate_ms", cand},
      {"main_thread", {{"probe_ms", probe_main_cpu_outside_ms_}, {"candidate_ms", cand_main_cpu_outside_ms_}}},
      {"window_wall_less_window_ms", cand_window_slack_ms_}};
  // Named where most calls, and at least kMinClockCalls, were charged: an
  // honest strided-output ModelNew's one OpenMP thread, parked, spent
  // 0.7-1.3 ms in census requests in some judgments on the 2-core VM (cause
  // not found), and such a slow candidate may have only 2-3 timed calls.
  // And where the median call's charge is beyond the tolerance itself: an
  // honest torch ModelNew beside a concurrent load on the 2-core VM had 20
  // of 38 calls charged a median 0.015 ms against a tolerance of 0.19 ms (the
  // charges stay; the name is for work done there, as in the corpus's
  // attacks: 0.1-1.2 ms per call).
  //
  // And only where work there could reach the check. On the CPU a call's
  // inputs are staged at its window's mark and its outputs taken at its end
  // (a native library's copied, a ModelNew's read where the reference's
  // process may read the worker's memory), with the worker stopped: what its
  // threads do outside the window is charged, but it is not a hack's. On a
  // loaded 2-core VM (two judgments at once) honest ModelNews were named, a
  // parked libgomp thread charged 0.2-0.5 ms a call against the probes'
  // 0.03-0.04 for the judge's own stops and continues: the kernel's stop path
  // cost it that much more in the calls than in the probes, and a sleeping
  // canary process stopped alongside did not follow it (2026-12-06).
  const bool could_reach_check = outside_work_reaches_check();
  const double median_charge = summarize_samples(charged).median_ms;
  j_.judge_clock["outside_window_cpu"]["median_charge_ms"] = median_charge;
  j_.judge_clock["outside_window_cpu"]["could_reach_check"] = could_reach_check;
  if (2 * calls > static_cast<int>(samples.size()) && calls >= static_cast<int>(kMinClockCalls) &&
      median_charge > tolerance && could_reach_check) {
    char evidence[240];
    std::snprintf(evidence, sizeof evidence, "%d of %zu timed calls' threads beside the main one spent more CPU time outside "
                  "the window than the probes' %.3g ms by over %.3g ms (median %.3g ms); charged to their times",
                  calls, samples.size(), base, tolerance, median);
    add_hack("work_outside_window", evidence);
  }
  char buf[420];
  std::snprintf(buf, sizeof buf, "the CPU time of the worker's threads beside its main one outside the window, median %.4g ms "
                "per call against the probes' %.4g ms (tolerance %.3g ms): %d of %zu calls charged the excess, %.4g ms in all%s",
                median, base, tolerance, calls, samples.size(), total,
                could_reach_check ? ""
                                  : "; work there cannot reach the check (inputs staged at the window's mark, outputs "
                                    "taken at its end, the worker stopped)");
  add_check("work_outside_window", true, buf);
}

// The judge's clock between a run request's two marks less the worker's
// window (the slack: the go's wake-up and the end mark's), the candidate's
// calls' against the probes' of a like span (probe_slack_for_span: a longer
// call's slack is longer). It agrees where the candidate's median exceeds
// the probes' by at most two standard errors of the medians' difference (at
// least kSlackFloorMs, kCudaSlackFloorMs on CUDA): a window shaved by a fixed amount shifts the median
// by that amount, however far inside one call's noise it is (an attack
// review, 2026-12-06: a native kernel's 0.1 ms window shaved by 20 us passed
// four of the probes' standard deviations, pooled over every probe length,
// its window standing at 3.2-4.8x against 2.4-2.9x honest). It vouches for
// the worker's window where it also is tight (that tolerance as the
// requests' check's must be to be conclusive), follows the probes call by
// call (the calls' spread at most kCandidateSpreadCap times the probes'), and
// the main thread's CPU time outside the window agrees with the probes' (a
// worker whose main thread works outside its window is the requests' check's
// to time).
json judgment_run::window_slack_check(double window_ms) const {
  std::vector<double> cand, spans;
  for (double x : cand_window_slack_ms_)
    if (std::isfinite(x)) cand.push_back(x);
  for (double x : cand_window_wall_ms_)
    if (x >= 0) spans.push_back(x);
  if (probe_window_slack_ms_.size() < kMinClockCalls || cand.size() < kMinClockCalls || spans.empty())
    return {{"measured", false}};
  const double span = summarize_samples(spans).median_ms;
  const std::vector<double> probes = probe_slack_for_span(span);
  if (probes.size() < kMinClockCalls) return {{"measured", false}};
  const double probe_median = summarize_samples(probes).median_ms;
  const double probe_sigma = robust_sigma(probes);
  const median_shift shift = shift_of(probes, cand, probe_median, j_.backend == "cuda" ? kCudaSlackFloorMs : kSlackFloorMs);
  const double cand_median = shift.candidate_median_ms, tolerance = shift.tolerance_ms;
  const double cand_sigma = robust_sigma(cand);
  const bool agrees = shift.excess_ms <= 0;
  // As the requests' check is conclusive (check_judge_clock).
  const bool tight = tolerance <= (modelnew_ ? 0.25 * window_ms : std::max(0.25, 0.25 * window_ms));
  const bool follows = cand_sigma <= std::max(0.02, kCandidateSpreadCap * probe_sigma);
  const std::vector<double> main_probe = measured_calls(probe_main_cpu_outside_ms_);
  const std::vector<double> main_cand = measured_calls(cand_main_cpu_outside_ms_);
  json main = {{"measured", false}};
  bool main_agrees = false;
  if (main_probe.size() >= kMinClockCalls && main_cand.size() == cand_main_cpu_outside_ms_.size() &&
      main_cand.size() >= kMinClockCalls) {
    const probe_bound b = bound_of(main_probe, 0.02);
    double cm = summarize_samples(main_cand).median_ms, tolerance = b.tolerance_ms;
    // A ModelNew's calls within the medians' noise, not one call's: its
    // candidate shares the worker's interpreter and can wrap the request
    // handlers (through run_main's frame) to run its kernel before the
    // window's mark, on the main thread, which shifts every call's time
    // there by the kernel's (an attack review, 2026-12-06: ~0.1 ms, inside
    // four standard deviations of the probes' 0.12-0.18 on the 2-core VM). A
    // native worker's requests are compiled code its candidate's library
    // does not run in; its calls keep the single call's tolerance (on an
    // H100 host a slow phase moved them 0.17 to 0.26 ms).
    if (modelnew_) {
      const median_shift shift = shift_of(main_probe, main_cand, b.median_ms, 0.02);
      cm = shift.candidate_median_ms;
      tolerance = shift.tolerance_ms;
    }
    main_agrees = cm - b.median_ms <= tolerance;
    main = {{"measured", true}, {"probe_median_ms", b.median_ms}, {"candidate_median_ms", cm}, {"tolerance_ms", tolerance},
            {"agrees", main_agrees}};
  }
  // The lower quartiles too: a window shaved in most calls shifts the calls'
  // lower quartile of slack as it does their median, while a host slow in
  // some of the calls (a slow state of the host, in stretches) shifts only
  // their upper half. On an H100 host an honest 0.714 ms kernel's slack fell
  // in two modes, 0.22-0.26 ms as the probes' (median 0.242) and 0.37-0.49
  // in 19 of its 49 calls: its median sat 0.034 ms over the probes' against
  // a 0.029 tolerance, its lower quartile 0.010 over, and it was counted
  // from the span at 3.21x against 3.72x (2026-12-07).
  std::vector<double> sorted_cand = cand, sorted_probes = probes;
  std::sort(sorted_cand.begin(), sorted_cand.end());
  std::sort(sorted_probes.begin(), sorted_probes.end());
  const double lower_quartile_excess = sorted_quantile(sorted_cand, 0.25) - sorted_quantile(sorted_probes, 0.25);
  return {{"measured", true}, {"span_ms", span}, {"probe_ms", probes}, {"probe_median_ms", probe_median}, {"probe_sigma_ms", probe_sigma},
          {"candidate_median_ms", cand_median}, {"candidate_sigma_ms", cand_sigma}, {"tolerance_ms", tolerance},
          {"agrees", agrees}, {"lower_quartile_excess_ms", lower_quartile_excess},
          {"lower_quartile_agrees", lower_quartile_excess <= tolerance}, {"tight", tight}, {"follows", follows},
          {"main_thread_cpu_outside", main}, {"vouches", agrees && tight && follows && main_agrees}};
}

// Where the check cannot vouch for the worker's window, each call is timed
// by the judge's own clock too, and counts at the larger of the two: a busy
// machine can lower a speedup, a forged clock cannot raise one. The
// worker's own figures are kept beside.
//
// Where the run requests were split at their marks, a call's time is the
// judge's clock between the marks less the least the probes' marks took
// beyond their windows (the go's wake-up and the end mark's write), plus
// whatever the worker's own requests of the call (run, collect, census)
// took outside that span, its own time in the marks' pauses included,
// beyond the probes' median: each call by over four of their standard
// deviations (bound_of), every call at least the shift of the calls' median
// beyond two standard errors (shift_of). Work moved out of the span, in CPU
// time or waiting on the GPU, is in that excess. The requests' work itself
// is not counted: before, the judge's clock counted each call's whole
// requests less the least overhead of any probe, which charged an honest
// ModelNew its handler's work and noise (0.30-0.48x on the 2-core VM) while
// one that swapped the worker's handlers for leaner ones was counted at its
// window (1.20-2.28x for the same kernel; an attack review, 2026-12-06).
// A leaner handler is credited nothing here (a call below the probes'
// outside time counts none), and what it saves bounds what work moved
// outside the span can gain, as it does for the requests' check.
//
// Without the marks, the call's requests less the least overhead a raw probe
// showed (a request never costs less than that; the order-adjusted and
// shifted samples of probes_for_wall are not raw and were negative at
// times, -0.6 and -3.7 ms on the 2-core VM, which counted an honest kernel at
// 0.06x).
void judgment_run::use_judge_clock() {
  judge_clock_used_ = true;
  std::vector<double>& worker = j_.candidate.samples_ms;
  j_.judge_clock["worker_samples_ms"] = worker;
  const size_t n = worker.size();
  const std::vector<double> probe_outside = measured_calls(probe_outside_wall_ms_);
  const bool spans = probe_window_slack_ms_.size() >= kMinClockCalls && probe_outside.size() >= kMinClockCalls &&
                     cand_window_wall_ms_.size() == n && cand_outside_wall_ms_.size() == n &&
                     std::all_of(cand_window_wall_ms_.begin(), cand_window_wall_ms_.end(), [](double x) { return x >= 0; }) &&
                     std::all_of(cand_outside_wall_ms_.begin(), cand_outside_wall_ms_.end(), [](double x) { return x >= 0; });
  int raised = 0;
  char buf[400];
  if (spans) {
    // The span less the probes' median slack for a call of its span: the
    // least of them counted every honest call at its window plus the spread
    // of its marks (0.01-0.03 ms on the 2-core VM, 10-30% of a 0.1 ms
    // kernel). A shaved window gains nothing either way: the span holds the
    // work, whatever the worker reports.
    const double probe_slack =
        std::max(0.0, summarize_samples(probe_slack_for_span(summarize_samples(cand_window_wall_ms_).median_ms)).median_ms);
    const probe_bound outside = bound_of(probe_outside, kOutsideCpuFloorMs);
    // The probes after the calls too, where their median is lower: a busy
    // stretch during the first probes inflated it (an attack review on the
    // 2-core VM: 1.26 ms against 0.72 in a quiet judgment, room for the
    // kernel itself). The candidate can only lengthen those.
    double base = outside.median_ms;
    const std::vector<double> after = measured_calls(probe_after_outside_wall_ms_);
    if (after.size() >= kMinClockCalls) base = std::min(base, summarize_samples(after).median_ms);
    // Each call's outside time beyond the probes' by over their tolerance
    // (four standard deviations), and every call at least the shift of the
    // calls' median over the probes': the same work done before or after
    // every window shifts the median by its length, however far inside one
    // call's noise it is (an attack review, 2026-12-06: a ModelNew that ran
    // its kernel before the window's mark, ~0.1 ms inside a 0.4-1.0 ms
    // tolerance, at 3.4-10.4x against 1.1-2.7x honest).
    const median_shift shift = shift_of(probe_outside, measured_calls(cand_outside_wall_ms_), base, kOutsideCpuFloorMs);
    // Only where work outside the span could reach the check: on the CPU a
    // call's inputs are staged at the window's mark and its outputs taken at
    // its end, with the worker stopped. There the charge only penalised
    // honest calls: the timed phase's rhythm kept their requests 0.12-0.34 ms
    // a call over the probes' outside the span, and an honest kernel whose
    // span disagreed (threads, a sleep, a varying length) was counted 1.1-3.5x
    // its window (an attack review on the 2-core VM, 2026-12-06).
    const bool reaches = outside_work_reaches_check();
    // A single call is charged only beyond the probes' own upper tail too
    // (how far their 90th percentile sits over their median, of those before
    // the candidate loaded, from the same base as the rest: lowered to the
    // probes after the calls where theirs is lower): on an
    // H100 host whose requests ran slow outside the span in about three
    // calls of ten, probes and calls alike (0.35-0.85 ms against a median of
    // 0.18), four robust standard deviations charged 28 of an honest
    // kernel's 91 calls and counted it at 0.35 ms against its 0.19 ms window,
    // 1.97x against 3.65x (2026-12-07). Work moved out of every call is the
    // median shift's to charge; out of fewer than half, it barely moves the
    // median the speedup is taken from.
    std::vector<double> sorted_outside = probe_outside;
    std::sort(sorted_outside.begin(), sorted_outside.end());
    const double per_call_tolerance =
        std::max(outside.tolerance_ms, sorted_quantile(sorted_outside, 0.9) - outside.median_ms);
    std::vector<double> judged(n), charged(n);
    for (size_t i = 0; i < n; ++i) {
      charged[i] = reaches ? std::max(shift.excess_ms, cand_outside_wall_ms_[i] - base - per_call_tolerance) : 0.0;
      judged[i] = cand_window_wall_ms_[i] - probe_slack + charged[i];
      if (judged[i] > worker[i]) worker[i] = judged[i], ++raised;
    }
    j_.judge_clock["judge_clock_times"] = {
        {"route", "window_span"}, {"probe_slack_median_ms", probe_slack}, {"outside_charged", reaches},
        {"probe_outside_median_ms", base}, {"probe_outside_tolerance_ms", per_call_tolerance},
        {"median_shift", {{"candidate_median_ms", shift.candidate_median_ms}, {"tolerance_ms", shift.tolerance_ms},
                          {"charged_ms", shift.excess_ms}}},
        {"probe_outside_ms", probe_outside}, {"probe_after_outside_ms", after}, {"outside_ms", cand_outside_wall_ms_},
        {"window_wall_ms", cand_window_wall_ms_}, {"charged_ms", charged}, {"judged_ms", judged}};
    if (reaches)
      std::snprintf(buf, sizeof buf, "inconclusive clock check: each call counted at the larger of the worker's window and "
                    "the judge's clock between its marks less the probes' median %.3g ms, plus its requests' time outside "
                    "them beyond the probes' %.3g ms (each call by over %.3g ms, every call the median's %.3g ms beyond "
                    "%.3g); %d of %zu calls raised",
                    probe_slack, base, per_call_tolerance, shift.candidate_median_ms - base, shift.tolerance_ms, raised, n);
    else
      std::snprintf(buf, sizeof buf, "inconclusive clock check: each call counted at the larger of the worker's window and "
                    "the judge's clock between its marks less the probes' median %.3g ms (on the CPU nothing outside them "
                    "reaches the check); %d of %zu calls raised",
                    probe_slack, raised, n);
  } else {
    // (check_judge_clock ran only with probes: the least is a probe's.)
    double least = std::numeric_limits<double>::infinity();
    for (const auto* probes : {&probes_, &probes_after_})
      for (const auto& [ms, series] : *probes)
        for (double x : series.excess_ms) least = std::min(least, x);
    least = std::max(0.0, least);
    std::vector<double> judged;
    for (size_t i = 0; i < n && i < j_.candidate.wall_ms.size(); ++i) {
      judged.push_back(j_.candidate.wall_ms[i] - least);
      if (judged.back() > worker[i]) worker[i] = judged.back(), ++raised;
    }
    j_.judge_clock["judge_clock_times"] = {{"route", "request_wall"}, {"least_probe_overhead_ms", least}, {"judged_ms", judged}};
    std::snprintf(buf, sizeof buf, "inconclusive clock check: each call counted at the larger of the worker's window and "
                  "the judge's time for its requests less the least probe overhead (%.4g ms); %d of %zu calls raised",
                  least, raised, n);
  }
  add_check("timer_judge_clock", true, buf);
}

// Where enough pairs were timed at the host's full speed, the statistics are
// taken over them alone; the others' samples (after the clock check, which
// saw every pair) move to host.other_pairs, raw. The host's state says which.
// Returns whether some pairs were left out.
//
// A reference of 1 ms or more is mostly device time, and its statistics are
// taken over every pair (host.state "not_matched"), unless the judge's clock
// over all of them could not vouch for the worker's window: the requests of
// pairs timed while the host was slow are slow too, whatever the candidate
// does, and counting those calls by the judge's clock charged the host's
// state to an honest kernel (on an H100 host, a 0.72 ms CUDA kernel with 46
// of its 79 pairs slow: each call's span 0.035 ms and its requests outside it
// 0.077 ms over the probes', counted at 0.81 ms, 3.28x against 3.72x,
// 2026-12-07). The statistics are then taken over the pairs at full speed,
// and the judge's clock checks those.
bool judgment_run::keep_pairs_at_full_speed() {
  const bool for_clock = !host_match_ && clock_match_ && pending_judge_clock_;
  if (!host_match_ && !for_clock) return false;  // off, or a reference of 1 ms or more whose window stood
  const host_match& m = for_clock ? *clock_match_ : *host_match_;
  const size_t n = j_.reference.samples_ms.size();
  if (!m.usable || m.at_full_speed.size() != n || m.count == static_cast<int>(n)) {
    if (for_clock) return false;
    j_.host["state"] = m.usable && m.at_full_speed.size() == n ? "full_speed" : "slow";
    j_.host["pairs_used"] = n;
    return false;
  }
  if (for_clock) j_.host["matched_for"] = "judge_clock";
  std::vector<bool> other(n);
  for (size_t i = 0; i < n; ++i) other[i] = !m.at_full_speed[i];
  j_.host["other_pairs"] = {{"reference_ms", kept(j_.reference.samples_ms, other)},
                            {"candidate_ms", kept(j_.candidate.samples_ms, other)},
                            {"probe_us", kept(probe_us_, other)}};
  j_.reference.samples_ms = kept(j_.reference.samples_ms, m.at_full_speed);
  j_.candidate.samples_ms = kept(j_.candidate.samples_ms, m.at_full_speed);
  j_.candidate.wall_ms = kept(j_.candidate.wall_ms, m.at_full_speed);
  cand_excess_ms_ = kept(cand_excess_ms_, m.at_full_speed);
  if (cand_cpu_outside_ms_.size() == n) cand_cpu_outside_ms_ = kept(cand_cpu_outside_ms_, m.at_full_speed);
  if (cand_main_cpu_outside_ms_.size() == n) cand_main_cpu_outside_ms_ = kept(cand_main_cpu_outside_ms_, m.at_full_speed);
  if (cand_window_slack_ms_.size() == n) cand_window_slack_ms_ = kept(cand_window_slack_ms_, m.at_full_speed);
  if (cand_window_wall_ms_.size() == n) cand_window_wall_ms_ = kept(cand_window_wall_ms_, m.at_full_speed);
  if (cand_outside_wall_ms_.size() == n) cand_outside_wall_ms_ = kept(cand_outside_wall_ms_, m.at_full_speed);
  if (cand_loud_pause_ms_.size() == n) cand_loud_pause_ms_ = kept(cand_loud_pause_ms_, m.at_full_speed);
  if (j_.judge_clock.is_object() && j_.judge_clock.contains("worker_samples_ms"))
    j_.judge_clock["worker_samples_ms"] = kept(j_.judge_clock["worker_samples_ms"].get<std::vector<double>>(), m.at_full_speed);
  std::vector<bool> first;
  for (size_t i = 0; i < reference_first_.size() && i < n; ++i)
    if (m.at_full_speed[i]) first.push_back(reference_first_[i]);
  reference_first_ = std::move(first);
  j_.host["state"] = "full_speed";
  j_.host["pairs_used"] = m.count;
  return true;
}

// Reports the candidate's fraction of the floor; on CUDA a candidate faster
// than physics allows is rejected. On the CPU the floor is only reported:
// a last-level cache larger than the flush can hold small inputs.
bool judgment_run::check_speed_of_light() {
  double cand = j_.candidate.summary->median_ms;
  j_.speed_of_light = sol_;
  auto floor = add_floor(j_.speed_of_light, cand);
  if (!floor) return true;
  if (j_.backend == "cuda" && faster_than_light(*floor, cand)) {
    add_check("speed_of_light", false, "median " + fmt_ms(cand) + " against a floor of " + fmt_ms(*floor));
    j_.speedup.reset();
    return reject("impossible_speed", "the candidate's median " + fmt_ms(cand) + " is under " +
                                          std::to_string(static_cast<int>(100 * kImpossibleFraction)) +
                                          "% of the device's floor " + fmt_ms(*floor) +
                                          " (bytes over measured bandwidth, FLOPs over measured peak)");
  }
  add_check("speed_of_light", true, "at " + std::to_string(static_cast<int>(100 * *floor / cand)) + "% of the floor " + fmt_ms(*floor));
  return true;
}

}  // namespace cudal1::judging
