// The probes' baselines: the worker's own calls before the candidate loaded
// and after its calls, as the clock checks compare the candidate's calls
// with them (their slack for a like span, their requests' overhead for a
// like wall time, their spread). See judgment_run.h.
#include "judge/judgment_run.h"

#include <algorithm>
#include <cmath>

#include "timing/clock_check.h"
#include "timing/stats.h"

namespace cudal1::judging {
namespace {

// One probe length's samples, their level (median) and where it sits on
// the axis the calls are matched along (a span, a request's wall time).
struct probe_point {
  double at, level;
  std::vector<double> samples;
};

// A probe length's samples shifted down to the level of the same length's
// probes after the candidate's calls, where that is lower. The candidate's
// code can only lengthen those later probes, never lower the bar; the timed
// phase's rhythm left honest calls up to 0.05 ms under the first probes' on
// the 2-core VM, room a shaved window or moved work would take.
void lower_to_later(probe_point& p, double later) {
  if (later >= p.level) return;
  for (double& x : p.samples) x -= p.level - later;
  p.level = later;
}

// The samples for a call at `at`: between the two probe lengths that bracket
// it, the lower one's samples shifted to the level interpolated on a log
// scale (a longer call's overhead and slack are longer); outside, the
// nearest length's. `points` must not be empty.
std::vector<double> interpolate_probes(std::vector<probe_point> points, double at) {
  std::sort(points.begin(), points.end(), [](const probe_point& a, const probe_point& b) { return a.at < b.at; });
  if (at <= points.front().at) return std::move(points.front().samples);
  if (at >= points.back().at) return std::move(points.back().samples);
  size_t k = 1;
  while (points[k].at < at) ++k;
  const probe_point& lo = points[k - 1];
  const probe_point& hi = points[k];
  const double shift = std::log(at / lo.at) / std::log(hi.at / lo.at) * (hi.level - lo.level);
  std::vector<double> out = lo.samples;
  for (double& x : out) x += shift;
  return out;
}

}  // namespace

// The probes' slack (the judge's clock between the marks less the window)
// for calls whose span between the marks is `span_ms`: between the two probe
// lengths whose spans bracket it, the shorter one's samples shifted to the
// median interpolated on a log scale; outside, the nearest length's. Per
// length, the samples of the probes before the candidate loaded, shifted
// down to the median of those after its calls where that is lower: the
// timed phase's rhythm left honest calls' slack up to 0.05 ms under the
// first probes' on the 2-core VM, room a shaved window would take; the
// candidate can only lengthen the later probes, never lower the bar.
std::vector<double> judgment_run::probe_slack_for_span(double span_ms) const {
  std::vector<probe_point> points;
  for (const auto& [ms, series] : probes_) {
    if (series.slack_ms.size() < kMinClockCalls) continue;
    probe_point p{0, summarize_samples(series.slack_ms).median_ms, series.slack_ms};
    if (auto after = probes_after_.find(ms); after != probes_after_.end() && !after->second.slack_ms.empty())
      lower_to_later(p, summarize_samples(after->second.slack_ms).median_ms);
    p.at = ms + p.level;
    points.push_back(std::move(p));
  }
  if (points.empty()) return probe_window_slack_ms_;
  return interpolate_probes(std::move(points), span_ms);
}

// The probes' overhead for calls whose run requests took `wall_ms` by the
// judge's clock. A request's overhead grows with the call's length (on an
// H200: 0.29-0.31 ms at 0.02-2 ms, 0.40-0.45 ms at 20 ms, where no probe runs now): between the two
// probe lengths whose requests bracket it, the lower one's samples shifted
// to the overhead interpolated on a log scale; outside, the nearest. Each
// length's probes with the order of their pair taken out (order_adjusted).
std::vector<double> judgment_run::probes_for_wall(double wall_ms, bool lower_to_later_probes) const {
  std::vector<probe_point> points;
  for (const auto& [ms, series] : probes_) {
    auto [excess, overhead] = series.adjusted();
    probe_point p{0, overhead, std::move(excess)};
    if (auto after = probes_after_.find(ms);
        lower_to_later_probes && after != probes_after_.end() && !after->second.excess_ms.empty())
      lower_to_later(p, after->second.adjusted().second);
    p.at = ms + p.level;
    points.push_back(std::move(p));
  }
  return interpolate_probes(std::move(points), wall_ms);
}

// The probes' own spread, as the candidate's calls should show it: every
// probe of every length timed before the candidate loaded, each series
// (order taken out) about its own median. The requests are the worker's,
// the same for a probe and a call; a candidate's calls spread far wider
// only where their windows are shaped (compare_excess). The probes after
// the calls are left out: the candidate's code can lengthen them at will,
// and with them this bound.
double judgment_run::probe_spread_ms() const {
  std::vector<double> pooled;
  for (const auto& [ms, series] : probes_) {
    if (series.excess_ms.empty()) continue;
    const auto [excess, median] = series.adjusted();
    for (double x : excess) pooled.push_back(x - median);
  }
  return robust_sigma(pooled);
}

std::pair<std::vector<double>, double> judgment_run::probe_series::adjusted() const {
  std::vector<double> excess = order_adjusted(excess_ms, after_reference);
  const double median = summarize_samples(excess).median_ms;
  return {std::move(excess), median};
}

}  // namespace cudal1::judging
