// Exemplar sampling for the contrastive prompt, as CUDA-L1 describes it:
// correct kernels bucketed by score, a bucket drawn with probability
// proportional to exp((bucket mean - global mean) / tau), two distinct
// buckets, one kernel from each; random and island sampling for ablations.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cudal1 {

/// A kernel of the database: a correct one can be an exemplar; others are
/// only ever shown as failures.
struct kernel_entry {
  std::string candidate_hash;
  std::string code;
  std::string format;   // "cuda", "cpp", "modelnew"; "reference" for the task's own code (score 1)
  std::string verdict;  // "correct", "incorrect", "rejected", ...
  double score = 0;     // speedup for a correct kernel
  int round = 0;        // the optimizer round that produced it (0: seed)
  int island = 0;       // for island sampling
  std::string analysis; // the model's analysis that came with it
  std::string summary;  // what the judge saw, one paragraph (verdict, speed-of-light fraction, kernels)
};

enum class sampling_kind { bucket, random, island };
std::optional<sampling_kind> parse_sampling(const std::string& name);
const char* to_string(sampling_kind kind);

/// CUDA-L1 did not publish tau or the bucket width. The defaults suit
/// speedups of 0.5-5x: a bucket of 0.1x is about the noise of a speedup
/// measurement, so kernels in one bucket are not known to differ and kernels
/// a bucket apart are; tau 1.0 makes a bucket 1x faster e times likelier, so
/// the best buckets are favoured while slower ones are still drawn.
struct sampling_options {
  sampling_kind kind = sampling_kind::bucket;
  double tau = 1.0;           // temperature of the bucket draw, in units of the score; <= 0: the best buckets only
  double bucket_width = 0.1;  // buckets of this width on the score axis; <= 0: bucket and island draw nothing
  int exemplars = 2;          // kernels per prompt
  int island = 0;             // island sampling: draw only from this island
};

/// Indices into `entries` of the exemplars for one prompt, best score first.
/// Only correct kernels (and the reference) are drawn. Bucket sampling draws
/// `exemplars` distinct buckets (fewer when fewer exist), one kernel from
/// each, uniformly within the bucket. Random draws distinct correct kernels
/// uniformly. Island draws bucket-wise among the kernels of one island (the
/// reference belongs to every island). The reference scores 1 whatever its
/// `score`; a correct kernel whose score is not finite is never drawn. Ties in
/// score keep the order of `entries`. The same rng state gives the same draw
/// on any standard library (no std distributions are used).
std::vector<size_t> sample_exemplars(const std::vector<kernel_entry>& entries, const sampling_options& options,
                                     std::mt19937_64& rng);

/// The bucket draw's probabilities, for tests and the prompt's record:
/// bucket index (floor(score / width)) -> probability, ascending by bucket,
/// over the kernels the draw may return (of options.island for island
/// sampling). These are the first bucket's probabilities; later buckets are
/// drawn from the same weights renormalized over the buckets left.
std::vector<std::pair<long, double>> bucket_probabilities(const std::vector<kernel_entry>& entries,
                                                          const sampling_options& options);

}  // namespace cudal1
