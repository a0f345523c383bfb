#include "optimize/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace cudal1 {

namespace {

// The draws use the generator's raw 64-bit output, not the standard
// distributions, whose algorithms differ between standard libraries: a seed
// gives the same exemplars wherever cudal1 was built.
double uniform01(std::mt19937_64& rng) { return (rng() >> 11) * 0x1.0p-53; }

size_t uniform_index(std::mt19937_64& rng, size_t n) {
  // Rejection from the largest multiple of n below 2^64: no modulo bias.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return x % n;
}

// The reference is by definition 1x against itself, whatever score it was
// stored with.
double score_of(const kernel_entry& e) { return e.format == "reference" ? 1.0 : e.score; }

bool drawable(const kernel_entry& e) {
  if (e.format == "reference") return true;
  return e.verdict == "correct" && std::isfinite(e.score);
}

// The entries a draw may return: correct ones, of the island for island
// sampling. The reference belongs to every island: each island starts from it.
std::vector<size_t> pool_of(const std::vector<kernel_entry>& entries, const sampling_options& options) {
  std::vector<size_t> pool;
  for (size_t i = 0; i < entries.size(); ++i) {
    const kernel_entry& e = entries[i];
    if (!drawable(e)) continue;
    if (options.kind == sampling_kind::island && e.format != "reference" && e.island != options.island) continue;
    pool.push_back(i);
  }
  return pool;
}

long bucket_of(double score, double width) {
  // The slack keeps 0.3 in bucket 3 at width 0.1 (0.3 / 0.1 is 2.9999999999999996);
  // the clamp keeps an absurd score from overflowing the index.
  return static_cast<long>(std::clamp(std::floor(score / width + 1e-9), -1e15, 1e15));
}

// Bucket index -> the pool's entries in it, in index order.
std::map<long, std::vector<size_t>> buckets_of(const std::vector<kernel_entry>& entries,
                                               const std::vector<size_t>& pool, double width) {
  std::map<long, std::vector<size_t>> buckets;
  for (size_t i : pool) buckets[bucket_of(score_of(entries[i]), width)].push_back(i);
  return buckets;
}

// Bucket index -> the mean score of its entries.
std::vector<std::pair<long, double>> bucket_means(const std::vector<kernel_entry>& entries,
                                                  const std::map<long, std::vector<size_t>>& buckets) {
  std::vector<std::pair<long, double>> means;
  for (const auto& [b, members] : buckets) {
    double sum = 0;
    for (size_t i : members) sum += score_of(entries[i]);
    means.emplace_back(b, sum / members.size());
  }
  return means;
}

// p ∝ exp((mean_b - global mean) / tau), normalized over `means`. The global
// mean cancels in the normalization, so shifting by the best bucket's mean
// instead gives the same probabilities and keeps exp() from overflowing (or
// every weight from underflowing) at a small tau. tau <= 0 is the limit:
// everything on the best bucket (shared equally where several tie).
std::vector<std::pair<long, double>> normalize(const std::vector<std::pair<long, double>>& means, double tau) {
  std::vector<std::pair<long, double>> out;
  double best = -std::numeric_limits<double>::infinity();
  for (const auto& m : means) best = std::max(best, m.second);
  double total = 0;
  for (const auto& [b, mean] : means) {
    const double w = tau > 0 ? std::exp((mean - best) / tau) : (mean == best ? 1.0 : 0.0);
    out.emplace_back(b, w);
    total += w;
  }
  for (auto& p : out) p.second /= total;
  return out;
}

// Draws `exemplars` distinct buckets, each by the probabilities renormalized
// over the buckets not yet drawn, and one entry uniformly from each.
std::vector<size_t> draw_buckets(const std::vector<kernel_entry>& entries, const std::vector<size_t>& pool,
                                 const sampling_options& options, std::mt19937_64& rng) {
  const auto buckets = buckets_of(entries, pool, options.bucket_width);
  auto left = bucket_means(entries, buckets);
  std::vector<size_t> picked;
  while (static_cast<int>(picked.size()) < options.exemplars && !left.empty()) {
    const auto probs = normalize(left, options.tau);
    double u = uniform01(rng);
    size_t j = 0;
    // The last bucket of positive probability takes what rounding leaves of u.
    while (j + 1 < probs.size() && (u >= probs[j].second || probs[j].second == 0)) {
      u -= probs[j].second;
      ++j;
    }
    while (probs[j].second == 0) --j;  // trailing zero-probability buckets (tau <= 0)
    const std::vector<size_t>& members = buckets.at(probs[j].first);
    picked.push_back(members[uniform_index(rng, members.size())]);
    left.erase(left.begin() + j);
  }
  return picked;
}

std::vector<size_t> draw_uniform(const std::vector<size_t>& pool, int k, std::mt19937_64& rng) {
  std::vector<size_t> rest = pool;
  std::vector<size_t> picked;
  // A partial Fisher-Yates shuffle.
  for (size_t i = 0; i < rest.size() && static_cast<int>(picked.size()) < k; ++i) {
    std::swap(rest[i], rest[i + uniform_index(rng, rest.size() - i)]);
    picked.push_back(rest[i]);
  }
  return picked;
}

}  // namespace

std::optional<sampling_kind> parse_sampling(const std::string& name) {
  if (name == "bucket") return sampling_kind::bucket;
  if (name == "random") return sampling_kind::random;
  if (name == "island") return sampling_kind::island;
  return std::nullopt;
}

const char* to_string(sampling_kind kind) {
  switch (kind) {
    case sampling_kind::bucket: return "bucket";
    case sampling_kind::random: return "random";
    case sampling_kind::island: return "island";
  }
  return "bucket";
}

std::vector<size_t> sample_exemplars(const std::vector<kernel_entry>& entries, const sampling_options& options,
                                     std::mt19937_64& rng) {
  if (options.exemplars <= 0) return {};
  const std::vector<size_t> pool = pool_of(entries, options);
  std::vector<size_t> picked;
  if (options.kind == sampling_kind::random)
    picked = draw_uniform(pool, options.exemplars, rng);
  else if (options.bucket_width > 0)
    picked = draw_buckets(entries, pool, options, rng);
  std::sort(picked.begin(), picked.end(), [&](size_t a, size_t b) {
    const double sa = score_of(entries[a]), sb = score_of(entries[b]);
    return sa != sb ? sa > sb : a < b;
  });
  return picked;
}

std::vector<std::pair<long, double>> bucket_probabilities(const std::vector<kernel_entry>& entries,
                                                          const sampling_options& options) {
  if (!(options.bucket_width > 0)) return {};
  const std::vector<size_t> pool = pool_of(entries, options);
  return normalize(bucket_means(entries, buckets_of(entries, pool, options.bucket_width)), options.tau);
}

}  // namespace cudal1
