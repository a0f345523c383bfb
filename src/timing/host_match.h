// Timed pairs matched by the host's state.
//
// A PyTorch reference's eager forward is partly host work (Python dispatch
// before and between its kernels), so its time follows the speed of the CPU
// it runs on. On the lent GPU machines (KVM guests on shared hosts) that
// speed has two levels: a fixed piece of Python took 19 us or 33-43 us, in
// phases of a fraction of a second to several seconds, on every CPU,
// without steal (bench/results/2026-12-05). Within a judgment the phases mix;
// between judgments the share of slow pairs decides the reference's median,
// and with it the speedup: over 20 judgments each, max/min 1.059 at 0.1 ms
// and 1.035 at 0.6 ms, against 1.014 and 1.009 from the pairs timed at full
// speed only.
//
// The reference worker times that piece of Python after each of its windows
// (its probe). A pair counts as timed at full speed where its probe is within
// `factor` of the full-speed level: the least of the level this machine has
// shown before (kept in the cache) and the level of this judgment's own
// fastest probes. The speedup is then taken over those pairs, where there
// are enough; where there are not, over all of them, and the judgment says
// its host ran slow.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cudal1 {

struct host_match_config {
  double factor = 1.3;  // a probe within this of the full-speed level is at full speed (the levels differ ~1.8x)
  int min_pairs = 30;   // the least pairs at full speed the statistics are taken over
};

struct host_match {
  /// The full-speed level the probes were held to (us); 0 where there was
  /// no probe.
  double level_us = 0;
  /// This judgment's own level (its fastest probes), for the cache; unset
  /// with fewer than 20 probes.
  std::optional<double> own_level_us;
  /// Per pair: timed at full speed.
  std::vector<bool> at_full_speed;
  int count = 0;  // pairs at full speed
  /// Enough pairs at full speed to take the statistics over them alone.
  bool usable = false;
};

/// This judgment's own level: the 5th percentile of its probes (a level a
/// single glitch cannot set), or unset below 20 probes. Negative probes
/// (none reported) are left out.
std::optional<double> own_host_level(std::span<const double> probe_us);

/// The pairs timed at full speed, against the lower of `known_level_us` (the
/// machine's, from the cache) and this judgment's own level.
host_match match_host(std::span<const double> probe_us, std::optional<double> known_level_us,
                      const host_match_config& config = {});

/// The machine's full-speed level from the levels of its recent judgments
/// (oldest first): the second lowest of them (one low outlier cannot set
/// it), or the lowest where there are fewer than three; unset for none.
std::optional<double> known_host_level(std::span<const double> recent_levels_us);

/// `values` with only the entries whose `keep` is true (same length).
std::vector<double> kept(std::span<const double> values, const std::vector<bool>& keep);

}  // namespace cudal1
