#include "worker/sandbox.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

namespace cudal1 {
namespace {

// The process filter's rule on signals, in a child that installs it: its own
// process may be signalled (raise, pthread_kill), but not stopped or
// continued, which is the judge's alone (a SIGCONT of the worker's own undid
// the judge's stop at the end mark: hack_sigcont_cancel.cpp). Each failed
// expectation sets a bit of the child's exit status.
TEST(ProcessFilter, RefusesJobControlSignalsToItself) {
  pid_t child = fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    // Ignored, so that a filter that lets one through does not stop the child.
    for (int sig : {SIGUSR1, SIGTSTP, SIGTTIN}) signal(sig, SIG_IGN);
    if (!forbid_processes(false).empty()) _exit(100);
    const pid_t self = getpid();
    const int tid = static_cast<int>(syscall(SYS_gettid));
    int bad = 0;
    auto refused = [](long rc) { return rc == -1 && errno == EPERM; };
    if (!refused(syscall(SYS_kill, self, SIGCONT))) bad |= 1;
    if (!refused(syscall(SYS_tgkill, self, tid, SIGCONT))) bad |= 2;
    siginfo_t info{};
    info.si_code = SI_QUEUE;
    info.si_pid = self;
    if (!refused(syscall(SYS_rt_sigqueueinfo, self, SIGCONT, &info))) bad |= 4;
    if (!refused(syscall(SYS_rt_tgsigqueueinfo, self, tid, SIGTSTP, &info))) bad |= 8;
    if (!refused(syscall(SYS_kill, self, SIGTTIN))) bad |= 16;
    if (syscall(SYS_kill, self, SIGUSR1) != 0) bad |= 32;  // its own other signals stay allowed
    if (!refused(syscall(SYS_kill, getppid(), SIGUSR1))) bad |= 64;  // and nobody else's
    _exit(bad);
  }
  int st = 0;
  pid_t done = 0;
  for (int i = 0; i < 1000 && done == 0; ++i) {  // 10 s at most
    done = waitpid(child, &st, WNOHANG);
    if (done == 0) usleep(10000);
  }
  if (done == 0) kill(child, SIGKILL), waitpid(child, &st, 0);
  ASSERT_EQ(done, child) << "the child did not end within 10 s";
  ASSERT_TRUE(WIFEXITED(st)) << "the child was killed by signal " << WTERMSIG(st);
  EXPECT_NE(WEXITSTATUS(st), 100) << "the filter could not be installed";
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bits: 1 kill SIGCONT, 2 tgkill SIGCONT, 4 rt_sigqueueinfo SIGCONT, "
                                   "8 rt_tgsigqueueinfo SIGTSTP, 16 kill SIGTTIN allowed; 32 own SIGUSR1 refused; "
                                   "64 the parent's SIGUSR1 allowed";
}

}  // namespace
}  // namespace cudal1
