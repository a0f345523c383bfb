#include "optimize/sampling.h"

#include <cmath>
#include <map>
#include <set>

#include <gtest/gtest.h>

namespace cudal1 {
namespace {

kernel_entry kernel(double score, const std::string& verdict = "correct", int island = 0) {
  kernel_entry e;
  e.candidate_hash = "h" + std::to_string(score) + verdict;
  e.format = "cuda";
  e.verdict = verdict;
  e.score = score;
  e.island = island;
  return e;
}

kernel_entry reference() {
  kernel_entry e;
  e.format = "reference";
  e.verdict = "correct";
  e.score = 1.0;
  return e;
}

// The reference, correct kernels in buckets 8 (0.85), 12 (1.2, 1.25), 20
// (2.0) and 31 (3.1), and wrong ones with tempting scores.
std::vector<kernel_entry> database() {
  return {reference(),          kernel(0.85),           kernel(1.2),         kernel(9.0, "incorrect"),
          kernel(1.25),         kernel(2.0),            kernel(7.0, "rejected"), kernel(3.1),
          kernel(5.0, "timeout"), kernel(4.0, "compile_error"), kernel(6.0, "runtime_error")};
}

long bucket(const kernel_entry& e) { return static_cast<long>(std::floor(e.score / 0.1 + 1e-9)); }

TEST(SamplingTest, ParseAndNames) {
  for (auto k : {sampling_kind::bucket, sampling_kind::random, sampling_kind::island})
    EXPECT_EQ(parse_sampling(to_string(k)), k);
  EXPECT_STREQ(to_string(sampling_kind::island), "island");
  EXPECT_FALSE(parse_sampling("Bucket"));
  EXPECT_FALSE(parse_sampling(""));
}

TEST(SamplingTest, ProbabilitiesByHand) {
  // Buckets 10 (the reference, mean 1.0) and 20 (mean 2.0), tau 1: weights
  // exp(1 - 1.5) and exp(2 - 1.5) around the global mean 1.5, so p(20) = e / (1 + e).
  std::vector<kernel_entry> db = {reference(), kernel(2.0), kernel(2.05)};
  const auto p = bucket_probabilities(db, {});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 10);
  EXPECT_EQ(p[1].first, 20);
  // Bucket 20 holds 2.0 and 2.05: mean 2.025.
  const double w10 = std::exp(1.0), w20 = std::exp(2.025);
  EXPECT_NEAR(p[0].second, w10 / (w10 + w20), 1e-12);
  EXPECT_NEAR(p[1].second, w20 / (w10 + w20), 1e-12);
}

TEST(SamplingTest, BucketIndexAtBoundaries) {
  // 0.3 / 0.1 is 2.9999999999999996 in binary: still bucket 3.
  const auto p = bucket_probabilities({kernel(0.3), kernel(0.7)}, {});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].first, 3);
  EXPECT_EQ(p[1].first, 7);
}

TEST(SamplingTest, OnlyCorrectKernelsAreDrawn) {
  const auto db = database();
  for (auto kind : {sampling_kind::bucket, sampling_kind::random, sampling_kind::island}) {
    sampling_options o;
    o.kind = kind;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i)
      for (size_t k : sample_exemplars(db, o, rng)) {
        ASSERT_LT(k, db.size());
        EXPECT_TRUE(db[k].verdict == "correct") << to_string(kind) << " drew " << db[k].verdict;
      }
  }
  for (const auto& [b, p] : bucket_probabilities(db, {})) EXPECT_LT(b, 40) << "bucket of a kernel that is not correct";
}

TEST(SamplingTest, TwoDistinctBucketsBestFirst) {
  const auto db = database();
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    const auto picked = sample_exemplars(db, {}, rng);
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_NE(bucket(db[picked[0]]), bucket(db[picked[1]]));
    EXPECT_GT(db[picked[0]].score, db[picked[1]].score);
  }
}

TEST(SamplingTest, FrequenciesMatchProbabilities) {
  const auto db = database();
  sampling_options o;
  o.exemplars = 1;
  const auto probs = bucket_probabilities(db, o);
  std::map<long, int> seen;
  std::mt19937_64 rng(2024);
  const int n = 100000;
  for (int i = 0; i < n; ++i) seen[bucket(db[sample_exemplars(db, o, rng).at(0)])]++;
  for (const auto& [b, p] : probs) EXPECT_NEAR(seen[b] / double(n), p, 0.01) << "bucket " << b;
}

TEST(SamplingTest, PairFrequenciesMatchDrawWithoutReplacement) {
  // P(bucket b among the two) = p_b + sum over a != b of p_a p_b / (1 - p_a).
  const auto db = database();
  const auto probs = bucket_probabilities(db, {});
  std::map<long, int> seen;
  std::mt19937_64 rng(99);
  const int n = 100000;
  for (int i = 0; i < n; ++i)
    for (size_t k : sample_exemplars(db, {}, rng)) seen[bucket(db[k])]++;
  for (const auto& [b, pb] : probs) {
    double expected = pb;
    for (const auto& [a, pa] : probs)
      if (a != b) expected += pa * pb / (1 - pa);
    EXPECT_NEAR(seen[b] / double(n), expected, 0.01) << "bucket " << b;
  }
}

TEST(SamplingTest, UniformWithinABucket) {
  // Bucket 12 holds 1.2 and 1.25: each drawn half the time it is.
  const auto db = database();
  sampling_options o;
  o.exemplars = 5;  // every bucket, so bucket 12 every time
  std::mt19937_64 rng(5);
  int first = 0, n = 20000;
  for (int i = 0; i < n; ++i)
    for (size_t k : sample_exemplars(db, o, rng))
      if (k == 2) ++first;
  EXPECT_NEAR(first / double(n), 0.5, 0.02);
}

TEST(SamplingTest, LargeTauIsNearUniformOverBuckets) {
  sampling_options o;
  o.tau = 1000;
  const auto probs = bucket_probabilities(database(), o);
  ASSERT_EQ(probs.size(), 5u);
  for (const auto& [b, p] : probs) EXPECT_NEAR(p, 0.2, 0.005) << "bucket " << b;
}

TEST(SamplingTest, SmallTauPicksTheBestBucket) {
  const auto db = database();
  sampling_options o;
  o.tau = 0.05;
  const auto probs = bucket_probabilities(db, o);
  EXPECT_EQ(probs.back().first, 31);
  EXPECT_GT(probs.back().second, 0.99);
  // Tiny tau: no overflow; the two best buckets, in order.
  o.tau = 1e-6;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i) {
    const auto picked = sample_exemplars(db, o, rng);
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_EQ(db[picked[0]].score, 3.1);
    EXPECT_EQ(db[picked[1]].score, 2.0);
  }
  // tau 0: the limit.
  o.tau = 0;
  EXPECT_EQ(sample_exemplars(db, o, rng).size(), 2u);
  EXPECT_EQ(bucket_probabilities(db, o).back().second, 1.0);
}

TEST(SamplingTest, OneBucket) {
  std::vector<kernel_entry> db = {kernel(1.51), kernel(1.55), kernel(0.4, "incorrect")};
  EXPECT_EQ(bucket_probabilities(db, {}), (std::vector<std::pair<long, double>>{{15, 1.0}}));
  std::mt19937_64 rng(1);
  std::set<size_t> drawn;
  for (int i = 0; i < 200; ++i) {
    const auto picked = sample_exemplars(db, {}, rng);
    ASSERT_EQ(picked.size(), 1u);  // two asked, one bucket
    drawn.insert(picked[0]);
  }
  EXPECT_EQ(drawn, (std::set<size_t>{0, 1}));
}

TEST(SamplingTest, NothingToDraw) {
  std::mt19937_64 rng(1);
  EXPECT_TRUE(sample_exemplars({}, {}, rng).empty());
  EXPECT_TRUE(sample_exemplars({kernel(2.0, "incorrect")}, {}, rng).empty());
  EXPECT_TRUE(bucket_probabilities({}, {}).empty());
  sampling_options o;
  o.exemplars = 0;
  EXPECT_TRUE(sample_exemplars(database(), o, rng).empty());
}

TEST(SamplingTest, ReferenceScoresOne) {
  kernel_entry ref = reference();
  ref.score = 0;  // stored without a score: still 1x
  ref.verdict = "";
  const auto p = bucket_probabilities({ref}, {});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, 10);
}

TEST(SamplingTest, DeterministicForASeed) {
  const auto db = database();
  for (auto kind : {sampling_kind::bucket, sampling_kind::random}) {
    sampling_options o;
    o.kind = kind;
    std::mt19937_64 a(42), b(42);
    for (int i = 0; i < 50; ++i) EXPECT_EQ(sample_exemplars(db, o, a), sample_exemplars(db, o, b));
  }
  // The draw itself is pinned, so a seed gives the same exemplars on any standard library.
  std::mt19937_64 rng(42);
  EXPECT_EQ(sample_exemplars(db, {}, rng), (std::vector<size_t>{7, 5}));
}

TEST(SamplingTest, RandomDrawsDistinctCorrectKernelsUniformly) {
  const auto db = database();  // six correct entries: 0, 1, 2, 4, 5, 7
  sampling_options o;
  o.kind = sampling_kind::random;
  o.exemplars = 2;
  std::map<size_t, int> seen;
  std::mt19937_64 rng(8);
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    const auto picked = sample_exemplars(db, o, rng);
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_NE(picked[0], picked[1]);
    EXPECT_GE(db[picked[0]].score, db[picked[1]].score);
    for (size_t k : picked) seen[k]++;
  }
  EXPECT_EQ(seen.size(), 6u);
  for (const auto& [k, c] : seen) EXPECT_NEAR(c / double(n), 2.0 / 6, 0.01) << "entry " << k;
  o.exemplars = 10;  // more than there are: all six
  EXPECT_EQ(sample_exemplars(db, o, rng).size(), 6u);
}

TEST(SamplingTest, IslandDrawsFromItsIslandAndTheReference) {
  std::vector<kernel_entry> db = {reference(),          kernel(1.5, "correct", 0), kernel(2.5, "correct", 1),
                                  kernel(3.5, "correct", 1), kernel(9.0, "correct", 2), kernel(8.0, "incorrect", 1)};
  sampling_options o;
  o.kind = sampling_kind::island;
  o.island = 1;
  std::set<size_t> drawn;
  std::mt19937_64 rng(4);
  for (int i = 0; i < 2000; ++i) {
    const auto picked = sample_exemplars(db, o, rng);
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_NE(bucket(db[picked[0]]), bucket(db[picked[1]]));
    drawn.insert(picked.begin(), picked.end());
  }
  EXPECT_EQ(drawn, (std::set<size_t>{0, 2, 3}));
  const auto probs = bucket_probabilities(db, o);
  ASSERT_EQ(probs.size(), 3u);
  EXPECT_EQ(probs[0].first, 10);
  EXPECT_EQ(probs[1].first, 25);
  EXPECT_EQ(probs[2].first, 35);
  o.island = 7;  // an island with no kernels yet: the reference
  EXPECT_EQ(sample_exemplars(db, o, rng), (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace cudal1
