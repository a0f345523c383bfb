#include "worker/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <ucontext.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cudal1 {
namespace {

// Rights that change the filesystem, by Landlock ABI version.
uint64_t write_rights(long abi) {
  uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                    LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
  return rights;
}

std::string allow(int ruleset, const std::string& path, uint64_t rights) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int err = errno;
  close(fd);
  return r == 0 ? "" : "landlock_add_rule(" + path + "): " + std::strerror(err);
}

// The process calls attempted, one bit each (set by the SIGSYS handler).
std::atomic<unsigned> g_attempts{0};
constexpr struct {
  long nr;
  const char* name;
} kForbidden[] = {{SYS_fork, "fork"}, {SYS_vfork, "vfork"}, {SYS_execve, "execve"}, {SYS_execveat, "execveat"},
                  {SYS_clone, "clone"}};

// A forbidden call traps here: record it and make it return -EPERM.
void on_sigsys(int, siginfo_t* info, void* context) {
  for (unsigned i = 0; i < sizeof kForbidden / sizeof kForbidden[0]; ++i)
    if (kForbidden[i].nr == info->si_syscall) g_attempts.fetch_or(1u << i);
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

}  // namespace

std::string forbid_processes() {
#if defined(__x86_64__)
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  constexpr unsigned kTrap = SECCOMP_RET_TRAP, kAllow = SECCOMP_RET_ALLOW;
  constexpr unsigned kNoSys = SECCOMP_RET_ERRNO | ENOSYS;
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, kAllow),  // not x86-64 system calls (x32, i386): not ours to judge
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, kNoSys),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vfork, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 1, 4),
      BPF_STMT(BPF_RET | BPF_K, kTrap),
      // clone: a thread (CLONE_THREAD in the low word of the flags) is fine.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, kTrap),
      BPF_STMT(BPF_RET | BPF_K, kAllow),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return std::string("seccomp: ") + std::strerror(errno);
  return "";
#else
  return "process bounds are implemented for x86-64 only";
#endif
}

std::vector<std::string> process_attempts() {
  unsigned bits = g_attempts.exchange(0);
  std::vector<std::string> names;
  for (unsigned i = 0; i < sizeof kForbidden / sizeof kForbidden[0]; ++i)
    if (bits & (1u << i)) names.push_back(kForbidden[i].name);
  return names;
}

bool sandbox_enabled() {
  const char* v = std::getenv("CUDAL1_SANDBOX");
  return !(v && std::strcmp(v, "0") == 0);
}

std::string isolate_network() {
  if (unshare(CLONE_NEWNET) == 0) return "";
  return std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
}

std::string restrict_writes(const std::string& writable_dir, bool allow_gpu_devices) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return std::string("Landlock unavailable: ") + std::strerror(errno);
  uint64_t rights = write_rights(abi);
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = rights;
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  std::string why = allow(ruleset, writable_dir, rights);
  // Character devices need only WRITE_FILE (and TRUNCATE for O_TRUNC opens).
  uint64_t device_rights = rights & (LANDLOCK_ACCESS_FS_WRITE_FILE
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
                                     | LANDLOCK_ACCESS_FS_TRUNCATE
#endif
                                    );
  if (why.empty()) why = allow(ruleset, "/dev/null", device_rights);
  if (why.empty() && allow_gpu_devices) {
    if (DIR* d = opendir("/dev")) {
      while (dirent* e = readdir(d)) {
        if (std::strncmp(e->d_name, "nvidia", 6) != 0) continue;
        std::string path = std::string("/dev/") + e->d_name;
        // /dev/nvidia-caps is a folder of capability files: all of it.
        std::string w = allow(ruleset, path, e->d_type == DT_DIR ? rights : device_rights);
        if (!w.empty()) why = w;
      }
      closedir(d);
    }
  }
  if (why.empty() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) why = std::string("no_new_privs: ") + std::strerror(errno);
  if (why.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    why = std::string("landlock_restrict_self: ") + std::strerror(errno);
  close(ruleset);
  return why;
}

}  // namespace cudal1
