#include "worker/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <ucontext.h>
#include <sched.h>
#include <grp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
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

// The calls attempted, one bit each (set by the SIGSYS handler): those that
// start processes, those that set up work to run after a call returns (a
// timer, or a signal on I/O: the judge's next command would raise it), and
// those that would leave the sandbox's bounds.
std::atomic<unsigned> g_attempts{0};
enum class attempt { process, deferred, escape };
constexpr long kForeignCall = -1;  // a 32-bit (int 0x80) or x32 system call: none of the filter's numbers apply
constexpr unsigned kX32Bit = 0x40000000;  // __X32_SYSCALL_BIT
struct forbidden_call {
  long nr;
  const char* name;
  attempt kind;
};
constexpr forbidden_call kForbidden[] = {
    {SYS_fork, "fork", attempt::process},          {SYS_vfork, "vfork", attempt::process},
    {SYS_execve, "execve", attempt::process},      {SYS_execveat, "execveat", attempt::process},
    {SYS_clone, "clone", attempt::process},        {SYS_setitimer, "setitimer", attempt::deferred},
    {SYS_alarm, "alarm", attempt::deferred},       {SYS_timer_create, "timer_create", attempt::deferred},
    {SYS_fcntl, "fcntl (signal-driven I/O, leases or notifications)", attempt::deferred},
    {SYS_ioctl, "ioctl (FIOASYNC, FIOSETOWN or SIOCSPGRP)", attempt::deferred},
    {SYS_io_uring_setup, "io_uring_setup", attempt::deferred},
    {SYS_perf_event_open, "perf_event_open", attempt::deferred},
    {SYS_mq_notify, "mq_notify", attempt::deferred},
    {SYS_unshare, "unshare (new namespaces)", attempt::escape},
    {SYS_setns, "setns (joining namespaces)", attempt::escape},
    {kForeignCall, "a 32-bit or x32 system call (another ABI's numbers, outside the filter's)", attempt::escape}};
constexpr unsigned kForbiddenCount = sizeof kForbidden / sizeof kForbidden[0];

// A forbidden call traps here: record it and make it return -EPERM (in eax
// for a 32-bit call, as in rax).
void on_sigsys(int, siginfo_t* info, void* context) {
  const bool foreign = info->si_arch != AUDIT_ARCH_X86_64 || (static_cast<unsigned>(info->si_syscall) & kX32Bit);
  for (unsigned i = 0; i < kForbiddenCount; ++i)
    if (foreign ? kForbidden[i].nr == kForeignCall : kForbidden[i].nr == info->si_syscall) g_attempts.fetch_or(1u << i);
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RAX] = -EPERM;
}

// Appends `block` preceded by "if nr != `nr` skip it".
void add_block(std::vector<sock_filter>& f, long nr, const std::vector<sock_filter>& block) {
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, static_cast<unsigned char>(block.size())));
  f.insert(f.end(), block.begin(), block.end());
}

sock_filter load_arg(int i) {
  return BPF_STMT(BPF_LD | BPF_W | BPF_ABS, static_cast<unsigned>(offsetof(seccomp_data, args) + 8 * i));
}

}  // namespace

std::string forbid_processes(bool bound_memory) {
#if defined(__x86_64__)
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  constexpr unsigned kTrap = SECCOMP_RET_TRAP, kAllow = SECCOMP_RET_ALLOW;
  constexpr unsigned kNoSys = SECCOMP_RET_ERRNO | ENOSYS;
  const sock_filter trap = BPF_STMT(BPF_RET | BPF_K, kTrap), allow = BPF_STMT(BPF_RET | BPF_K, kAllow);
  auto jeq_trap = [&](std::vector<sock_filter>& b, unsigned value) {
    b.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    b.push_back(trap);
  };
  // Another ABI's system calls (i386 through int 0x80, x32 through the x32
  // bit) have numbers of their own, which none of the blocks below name:
  // allowed, they were fork, execve and timer_create without a trace (an
  // attack review). No kernel worth the name needs them: trapped, all.
  std::vector<sock_filter> f = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      trap,
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x80000000u, 2, 0),  // (no x32 number is that high)
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 1),
      trap,
  };
  add_block(f, SYS_clone3, {BPF_STMT(BPF_RET | BPF_K, kNoSys)});
  // The judge pinned the worker to the CPU its reference runs on: a
  // candidate may not move off it (an OpenMP runtime that binds threads
  // gets EPERM and carries on).
  add_block(f, SYS_sched_setaffinity, {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)});
  // No reach into another process: signals only to this process (glibc's
  // raise and pthread_kill name it), no tracing, no reading or writing its
  // memory, no taking its descriptors. (A sealed reference shares the judge's
  // PID namespace, where CUDA IPC needs it.)
  const sock_filter eperm = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
  const unsigned self = static_cast<unsigned>(getpid());
  // Nor job control of its own: a thread that sent the worker a SIGCONT
  // undid the judge's stop at the end mark and computed rows while the
  // outputs were copied (an attack review, 2026-12-07: cancelled in 12-42 of
  // 60 tries outside the judge). The stop signals and SIGCONT are the
  // judge's alone.
  auto own_signal = [&](int sig_arg) {  // the process is argument 0 of each
    std::vector<sock_filter> b = {load_arg(0), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 1, 0), eperm,
                                  load_arg(sig_arg)};
    for (unsigned sig : {SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU})
      b.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sig, 0, 1)), b.push_back(eperm);
    b.push_back(allow);
    return b;
  };
  add_block(f, SYS_kill, own_signal(1));
  add_block(f, SYS_rt_sigqueueinfo, own_signal(1));
  add_block(f, SYS_tgkill, own_signal(2));
  add_block(f, SYS_rt_tgsigqueueinfo, own_signal(2));
  // userfaultfd too: pages whose faults the candidate handles would hold a
  // reader of its memory (the reference's collect_from) for as long as it
  // liked (an attack review).
  for (long nr : {long(SYS_tkill), long(SYS_ptrace), long(SYS_process_vm_readv), long(SYS_process_vm_writev),
                  long(SYS_pidfd_getfd), long(SYS_pidfd_send_signal), long(SYS_kcmp), long(SYS_userfaultfd)})
    add_block(f, nr, {eperm});
  // No state kept, and no machine-wide budget taken, beyond the worker's
  // life: the kernel's key store (the sandbox user's keyrings outlive the
  // worker, so one judgment left a key that a later one read back, and its
  // quota is every judgment's), asynchronous I/O contexts (io_setup took the
  // host's whole aio-nr budget, 65536, for the call's life) and inotify
  // instances (128 per user, every judgment's). An attack review,
  // 2026-12-07. Refused, not recorded: nothing honest needs them in a call.
  for (long nr : {long(SYS_add_key), long(SYS_request_key), long(SYS_keyctl), long(SYS_io_setup),
                  long(SYS_inotify_init), long(SYS_inotify_init1)})
    add_block(f, nr, {eperm});
  // No memory held outside the worker's bounds (bound_memory: the CPU
  // backend, whose worker has an address-space limit): a memfd's or a System
  // V segment's pages count in no address-space limit until mapped, nor in
  // the folder's tmpfs (an attack review, 2026-12-07: memfds of 250 MiB each,
  // up to the open-file limit, held 2 GiB beside an honest kernel, and in a
  // memory-capped group the OOM killer took an honest judgment beside it
  // instead, 3 of 3). Refused, not recorded: nothing honest needs them there.
  // Not on CUDA: the driver itself makes memfds (NVIDIA/OpenShell#1696), and
  // a CUDA worker has no address-space limit to get around.
  if (bound_memory) {
    for (long nr : {long(SYS_memfd_create), long(SYS_shmget)}) add_block(f, nr, {eperm});
#ifdef SYS_memfd_secret
    add_block(f, SYS_memfd_secret, {eperm});
#endif
  }
  // New namespaces (unshare, clone's CLONE_NEW* flags) and joining others
  // (setns): as a user namespace's root the candidate could set up what the
  // sandbox took away, or hand the kernel work that runs outside its
  // process (an attack review: ~230 network namespaces made at load, a few
  // closed per call, set off 60 times their cost in kernel threads the
  // census and the freeze between calls do not see).
  for (const auto& c : kForbidden)
    if (c.nr != SYS_clone && c.nr != SYS_fcntl && c.nr != SYS_ioctl && c.nr != kForeignCall) add_block(f, c.nr, {trap});
  // clone: a thread (CLONE_THREAD in the low word of the flags) is fine,
  // without new namespaces.
  constexpr unsigned kNewNamespaces =
      CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
  add_block(f, SYS_clone, {load_arg(0), BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kNewNamespaces, 2, 0),
                           BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1), allow, trap});
  // fcntl: the owner of a descriptor's signals, its signal, O_ASYNC, leases
  // and directory notifications all deliver signals after the call.
  std::vector<sock_filter> fcntl_block = {load_arg(1)};
  for (unsigned cmd : {F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY}) jeq_trap(fcntl_block, cmd);
  fcntl_block.insert(fcntl_block.end(), {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETFL, 0, 3), load_arg(2),
                                         BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_ASYNC, 0, 1), trap, allow});
  add_block(f, SYS_fcntl, fcntl_block);
  std::vector<sock_filter> ioctl_block = {load_arg(1)};
  for (unsigned req : {FIOASYNC, FIOSETOWN, SIOCSPGRP}) jeq_trap(ioctl_block, req);
#ifdef USERFAULTFD_IOC_NEW
  ioctl_block.insert(ioctl_block.end(), {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, USERFAULTFD_IOC_NEW, 0, 1), eperm});  // /dev/userfaultfd
#endif
  ioctl_block.push_back(allow);
  add_block(f, SYS_ioctl, ioctl_block);
  f.push_back(allow);
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
  // TSYNC: every thread of the process, the CUDA driver's too (a host
  // function runs candidate code on a driver thread).
  long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (r != 0) return r > 0 ? "seccomp: thread " + std::to_string(r) + " cannot take the filter" : std::string("seccomp: ") + std::strerror(errno);
  return "";
#else
  return "process bounds are implemented for x86-64 only";
#endif
}

forbidden_attempts take_attempts() {
  unsigned bits = g_attempts.exchange(0);
  forbidden_attempts out;
  for (unsigned i = 0; i < kForbiddenCount; ++i)
    if (bits & (1u << i))
      (kForbidden[i].kind == attempt::process    ? out.processes
       : kForbidden[i].kind == attempt::deferred ? out.deferred_work
                                                 : out.escapes)
          .push_back(kForbidden[i].name);
  return out;
}

std::string deferred_work_state() {
  std::string found;
  auto add = [&](const std::string& what) { found += (found.empty() ? "" : "; ") + what; };
  for (int which : {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF}) {
    itimerval t{};
    if (getitimer(which, &t) == 0 && (t.it_value.tv_sec || t.it_value.tv_usec))
      add("an armed interval timer (" + std::to_string(which) + ")");
  }
  for (int fd = 0; fd <= 4; ++fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_ASYNC)) add("O_ASYNC on descriptor " + std::to_string(fd));
    f_owner_ex owner{};
    if (fcntl(fd, F_GETOWN_EX, &owner) == 0 && owner.pid != 0) add("a signal owner on descriptor " + std::to_string(fd));
  }
  return found;
}

std::string drop_privileges(unsigned uid) {
  if (getuid() != 0) return "the worker does not start as root";
  gid_t gid = uid;
  if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
    return std::string("setuid: ") + std::strerror(errno);
  // Credentials changed: the kernel made /proc/self root's; the census reads it.
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  return getuid() == uid && geteuid() == uid ? "" : "the uid did not change";
}

bool sandbox_enabled() {
  const char* v = std::getenv("CUDAL1_SANDBOX");
  return !(v && std::strcmp(v, "0") == 0);
}

std::string isolate_network() {
  if (unshare(CLONE_NEWNET) == 0) return "";
  return std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
}

std::string restrict_files(const std::string& own_dir, bool allow_gpu_devices, const std::vector<std::string>& extra_reads,
                           bool system_views) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return std::string("Landlock unavailable: ") + std::strerror(errno);
  const uint64_t write = write_rights(abi);
  const uint64_t read_file = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
  const uint64_t read_tree = read_file | LANDLOCK_ACCESS_FS_READ_DIR;
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = write | read_tree;
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  std::string why = allow(ruleset, own_dir, write | read_tree);
  // The system's programs, libraries and configuration (the CUDA driver and
  // toolkit among them), this namespace's /proc and /sys: no judge's files,
  // no cache, no other scratch folder (those live under /tmp, /root, /home,
  // /run or a build folder, none of them here).
  for (const char* root : {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt"})
    if (why.empty() && access(root, F_OK) == 0) why = allow(ruleset, root, read_tree);
  if (system_views)
    for (const char* root : {"/proc", "/sys"})
      if (why.empty() && access(root, F_OK) == 0) why = allow(ruleset, root, read_tree);
  for (const auto& dir : extra_reads)
    if (why.empty() && access(dir.c_str(), F_OK) == 0) why = allow(ruleset, dir, read_tree);
  // Character devices need only WRITE_FILE (and TRUNCATE for O_TRUNC opens).
  uint64_t device_rights = read_file | (write & (LANDLOCK_ACCESS_FS_WRITE_FILE
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
                                                 | LANDLOCK_ACCESS_FS_TRUNCATE
#endif
                                                 ));
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"})
    if (why.empty() && access(dev, F_OK) == 0) why = allow(ruleset, dev, device_rights);
  if (why.empty() && allow_gpu_devices) {
    if (DIR* d = opendir("/dev")) {
      while (dirent* e = readdir(d)) {
        if (std::strncmp(e->d_name, "nvidia", 6) != 0) continue;
        std::string path = std::string("/dev/") + e->d_name;
        // /dev/nvidia-caps is a folder of capability files: all of it.
        std::string w = allow(ruleset, path, e->d_type == DT_DIR ? write | read_tree : device_rights);
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

int exec_sandboxed(int argc, char** argv) {
  std::string dir;
  unsigned uid = 0;
  std::vector<std::string> reads;
  int i = 2;
  if (argc > 2) dir = argv[i++];
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strcmp(argv[i], "--sandbox-uid") == 0 && i + 1 < argc) uid = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else if (std::strcmp(argv[i], "--read") == 0 && i + 1 < argc) reads.push_back(argv[++i]);
    else dir.clear();
  }
  if (dir.empty() || dir[0] != '/' || i + 1 >= argc) {
    std::fprintf(stderr, "usage: cudal1-worker --exec-sandboxed DIR [--sandbox-uid UID] [--read PATH]... -- PROGRAM ARGS...\n");
    return 2;
  }
  char** program = argv + i + 1;
  // Only what a compiler needs of the environment: the judge's may hold secrets.
  std::vector<std::string> keep;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "LANG", "CC", "CXX", "NVCC_CCBIN",
                           "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"})
    if (const char* v = std::getenv(name)) keep.push_back(std::string(name) + "=" + v);
  clearenv();
  for (const auto& kv : keep) putenv(const_cast<char*>(kv.c_str()));
  setenv("HOME", dir.c_str(), 1);
  setenv("TMPDIR", (dir + "/tmp").c_str(), 1);
  std::string report;
  if (sandbox_enabled()) {
    std::string why = isolate_network();
    report += "network: " + (why.empty() ? std::string("isolated") : "not isolated: " + why) + "\n";
    why = restrict_files(dir, false, reads, false);
    report += "filesystem: " + (why.empty() ? std::string("the system's files and the build's folder") : "not restricted: " + why) + "\n";
    why = uid ? drop_privileges(uid) : "no unprivileged user given (the judge is not root)";
    report += "user: " + (why.empty() ? "uid " + std::to_string(uid) : "not dropped: " + why) + "\n";
  } else {
    report = "not sandboxed (CUDAL1_SANDBOX=0)\n";
  }
  if (FILE* f = std::fopen((dir + "/sandbox.txt").c_str(), "w")) {
    std::fputs(report.c_str(), f);
    std::fclose(f);
  }
  execvp(program[0], program);
  std::fprintf(stderr, "cudal1-worker: cannot run %s: %s\n", program[0], std::strerror(errno));
  return 127;
}

}  // namespace cudal1
