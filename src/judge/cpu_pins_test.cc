// choose_cpus: which CPUs a judgment's two workers are pinned to.
#include <gtest/gtest.h>
#include <sched.h>

#include "judge/judge.h"

namespace cudal1 {
namespace {

int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int c = CPU_SETSIZE - 1; c >= 0; --c)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

TEST(CpuPins, AutoPinsBothWorkersToTheLastCpuOnCudaAndNoneOnTheCpuBackend) {
  auto cuda = choose_cpus("auto", "cuda");
  ASSERT_TRUE(cuda) << cuda.message();
  EXPECT_EQ(cuda->candidate, last_allowed_cpu());
  EXPECT_EQ(cuda->reference, last_allowed_cpu());
  auto cpu = choose_cpus("auto", "cpu");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->candidate, -1);
  EXPECT_EQ(cpu->reference, -1);
  auto none = choose_cpus("none", "cuda");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->candidate, -1);
}

TEST(CpuPins, ANumberPinsBothAndAPairPinsEach) {
  auto both = choose_cpus("0", "cuda");
  ASSERT_TRUE(both) << both.message();
  EXPECT_EQ(both->reference, 0);
  EXPECT_EQ(both->candidate, 0);
  int last = last_allowed_cpu();
  auto pair = choose_cpus("0," + std::to_string(last), "cpu");
  ASSERT_TRUE(pair) << pair.message();
  EXPECT_EQ(pair->reference, 0);
  EXPECT_EQ(pair->candidate, last);
}

TEST(CpuPins, SplitPutsTheReferenceOnAnotherCoreWhereThereIsOne) {
  auto split = choose_cpus("split", "cuda");
  ASSERT_TRUE(split) << split.message();
  EXPECT_EQ(split->candidate, last_allowed_cpu());
  if (last_allowed_cpu() > 0) {
    EXPECT_GE(split->reference, 0);
    EXPECT_NE(split->reference, split->candidate);
  }
}

TEST(CpuPins, BadChoicesAreErrorsThatSayWhatIsAccepted) {
  for (const char* bad : {"", "x", "-1", "1,", ",1", "1,2,3", "99999"}) {
    auto r = choose_cpus(bad, "cuda");
    EXPECT_FALSE(r) << bad;
  }
  EXPECT_NE(choose_cpus("x", "cuda").message().find("auto, none, split"), std::string::npos);
}

}  // namespace
}  // namespace cudal1
