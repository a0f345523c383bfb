#include "base/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "base/fs.h"

namespace cudal1 {
namespace {

steady_time in_seconds(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

TEST(RunCommand, CapturesOutputAndExitStatus) {
  auto r = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(r->exit.exited);
  EXPECT_EQ(r->exit.code, 3);
  EXPECT_NE(r->output.find("out"), std::string::npos);
  EXPECT_NE(r->output.find("err"), std::string::npos);
  EXPECT_EQ(r->exit.describe(), "exit status 3");
}

TEST(RunCommand, KillsOnTimeoutIncludingGrandchildren) {
  auto r = run_command({"/bin/sh", "-c", "sleep 30 & sleep 30"}, 0.3);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(r->seconds, 5);
}

TEST(RunCommand, PassesEnvironment) {
  auto r = run_command({"/bin/sh", "-c", "echo $CUDAL1_TEST_VALUE"}, 10, {"CUDAL1_TEST_VALUE=seventeen"});
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->output.find("seventeen"), std::string::npos);
}

TEST(ChildProcess, SpeaksLinesOnPrivateFds) {
  worker_spawn spawn;
  // Echoes each command line back with a prefix, on fd 4; stdout goes to the log.
  spawn.argv = {"/bin/sh", "-c", "echo hello-on-stdout; while read l <&3; do echo \"got $l\" >&4; done"};
  auto dir = make_temp_dir("cudal1-test");
  ASSERT_TRUE(dir.ok());
  spawn.log_path = *dir + "/log";
  auto child = child_process::spawn(spawn);
  ASSERT_TRUE(child.ok()) << child.message();
  ASSERT_TRUE(child->send_line("one").ok());
  std::string line;
  ASSERT_EQ(child->read_line(in_seconds(5), &line), child_process::read_status::line);
  EXPECT_EQ(line, "got one");
  EXPECT_EQ(child->read_line(in_seconds(0.2), &line), child_process::read_status::timeout);
  exit_info e = child->kill_and_wait();
  EXPECT_TRUE(e.signaled);
  EXPECT_EQ(e.signal, SIGKILL);
  auto log = read_file(*dir + "/log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("hello-on-stdout"), std::string::npos);
  remove_tree(*dir);
}

TEST(ChildProcess, ReportsCrashAsClosedThenSignal) {
  worker_spawn spawn;
  spawn.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  auto child = child_process::spawn(spawn);
  ASSERT_TRUE(child.ok());
  std::string line;
  EXPECT_EQ(child->read_line(in_seconds(5), &line), child_process::read_status::closed);
  exit_info e = child->wait_or_kill(5);
  EXPECT_TRUE(e.signaled);
  EXPECT_EQ(e.signal, SIGSEGV);
  EXPECT_EQ(e.describe(), "signal 11 (SIGSEGV)");
}

TEST(ChildProcess, AppliesFileLimit) {
  worker_spawn spawn;
  spawn.argv = {"/bin/sh", "-c", "ulimit -n >&4"};
  spawn.limits.open_files = 77;
  auto child = child_process::spawn(spawn);
  ASSERT_TRUE(child.ok());
  std::string line;
  ASSERT_EQ(child->read_line(in_seconds(5), &line), child_process::read_status::line);
  EXPECT_EQ(line, "77");
}

}  // namespace
}  // namespace cudal1
