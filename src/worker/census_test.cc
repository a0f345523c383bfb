#include "worker/census.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace cudal1 {
namespace {

TEST(census, read_proc_file_reads_and_reports_missing) {
  const std::optional<std::string> stat = read_proc_file("/proc/self/stat");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->rfind(std::to_string(getpid()) + " (", 0), 0u) << *stat;
  EXPECT_FALSE(read_proc_file("/proc/self/task/0/stat").has_value());
  EXPECT_FALSE(read_proc_file("/nonexistent/cudal1").has_value());
}

TEST(census, own_thread_is_listed_running_with_its_name) {
  const std::string self = std::to_string(static_cast<long>(syscall(SYS_gettid)));
  EXPECT_TRUE(list_threads().count(self));
  EXPECT_EQ(thread_state(self), 'R');
  EXPECT_TRUE(thread_running(self));
  EXPECT_FALSE(thread_name(self).empty());
  EXPECT_EQ(thread_name(self).find('\n'), std::string::npos);
  EXPECT_EQ(thread_state("0"), '?');
  EXPECT_FALSE(thread_running("0"));
}

// Threads that end between the listing and the reads: the reads fail with
// ESRCH once a listed thread is released, which an iostream turned into an
// exception (in-process, 23-36 in 2 s of this churn). The census must take
// such a thread for gone, never throw.
TEST(census, threads_ending_during_the_reads_never_throw) {
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    while (!stop) std::thread([] {}).join();
  });
  const std::set<std::string> baseline = list_threads();
  int reads = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  try {
    while (std::chrono::steady_clock::now() < end) {
      for (const auto& tid : list_threads()) {
        thread_state(tid);
        thread_running(tid);
        thread_name(tid);
        ++reads;
      }
      new_threads(baseline);
      child_processes();
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the census threw: " << e.what();
  }
  stop = true;
  churn.join();
  EXPECT_GT(reads, 1000);
  EXPECT_TRUE(child_processes().empty());
}

}  // namespace
}  // namespace cudal1
