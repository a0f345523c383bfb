#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace cudal1 {
namespace {

constexpr size_t kMaxCapturedOutput = 4 << 20;

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// The child's environment: ours, minus unset names, with additions applied.
std::vector<std::string> child_environment(const std::vector<std::string>& add,
                                           const std::vector<std::string>& unset) {
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e, name = name_of(kv);
    bool drop = false;
    for (const auto& u : unset) drop |= (u == name);
    for (const auto& a : add) drop |= (name_of(a) == name);
    if (!drop) env.push_back(kv);
  }
  for (const auto& a : add) env.push_back(a);
  return env;
}

void apply_limit(int resource, uint64_t value) {
  if (value == 0) return;
  struct rlimit rl = {value, value};
  setrlimit(resource, &rl);
}

void apply_limits(const process_limits& l) {
  apply_limit(RLIMIT_CPU, l.cpu_seconds);
  apply_limit(RLIMIT_AS, l.address_bytes);
  apply_limit(RLIMIT_NOFILE, l.open_files);
  apply_limit(RLIMIT_NPROC, l.processes);
  apply_limit(RLIMIT_FSIZE, l.file_bytes);
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}

// In the child, after fork: dies with the parent, own process group.
void become_detached_child() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  setpgid(0, 0);
  signal(SIGPIPE, SIG_DFL);
}

exit_info decode_status(int wstatus) {
  exit_info e;
  if (WIFEXITED(wstatus)) {
    e.exited = true;
    e.code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    e.signaled = true;
    e.signal = WTERMSIG(wstatus);
  }
  return e;
}

int poll_ms_until(steady_time deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<long long>(left.count(), 1000 * 1000));
}

}  // namespace

std::string exit_info::describe() const {
  if (exited) return "exit status " + std::to_string(code);
  if (signaled) {
    const char* abbrev = sigabbrev_np(signal);
    return "signal " + std::to_string(signal) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "exit status unknown";
}

double seconds_since(steady_time start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

result<command_result> run_command(const std::vector<std::string>& argv, double timeout_s,
                                   const std::vector<std::string>& env) {
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> env_strings = child_environment(env, {});
  std::vector<char*> cenv = c_argv(env_strings);
  std::vector<char*> cargv = c_argv(argv);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    become_detached_child();
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execve(cargv[0], cargv.data(), cenv.data());
    dprintf(2, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  close(out_pipe[1]);
  command_result res;
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_s));
  char buf[65536];
  for (;;) {
    struct pollfd pfd = {out_pipe[0], POLLIN, 0};
    int timeout_ms = poll_ms_until(deadline);
    if (timeout_ms == 0) {
      res.timed_out = true;
      break;
    }
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // loop re-checks the deadline
    ssize_t n = read(out_pipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (res.output.size() < kMaxCapturedOutput) res.output.append(buf, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  if (res.timed_out) kill(-pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  // The compiler may have left grandchildren in its group (cicc, ptxas).
  kill(-pid, SIGKILL);
  res.exit = decode_status(wstatus);
  res.seconds = seconds_since(start);
  return res;
}

result<child_process> child_process::spawn(const worker_spawn& options) {
  int cmd_pipe[2], reply_pipe[2];
  if (pipe2(cmd_pipe, O_CLOEXEC) != 0 || pipe2(reply_pipe, O_CLOEXEC) != 0)
    return make_error(std::string("pipe: ") + std::strerror(errno));
  int log_fd = open(options.log_path.empty() ? "/dev/null" : options.log_path.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) return make_error("cannot open log " + options.log_path + ": " + std::strerror(errno));
  std::vector<std::string> env_strings = options.clean_env ? clean_environment(options.env)
                                                           : child_environment(options.env, options.unset_env);
  std::vector<char*> cenv = c_argv(env_strings);
  std::vector<char*> cargv = c_argv(options.argv);
  pid_t pid = -1;
  bool own_mounts = false;
  if (options.isolate) {  // a fork into fresh namespaces (root only)
    unsigned long flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | (options.share_pid_namespace ? 0 : CLONE_NEWPID);
    pid = static_cast<pid_t>(syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0));
    own_mounts = pid >= 0;
  }
  if (pid < 0) pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (own_mounts && (getpid() == 1 || options.share_pid_namespace)) {
      // Our own mounts from here on, and a /proc that lists this namespace
      // only (or, in the judge's PID namespace, this user's processes only).
      mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
      mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            options.share_pid_namespace ? "hidepid=invisible" : nullptr);
    }
    become_detached_child();
    apply_limits(options.limits);
    // Move the protocol ends above 10 first so dup2 onto 3 and 4 cannot clobber them.
    int cmd_in = fcntl(cmd_pipe[0], F_DUPFD_CLOEXEC, 10);
    int reply_out = fcntl(reply_pipe[1], F_DUPFD_CLOEXEC, 10);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    dup2(cmd_in, 3);
    dup2(reply_out, 4);
    close_range(5, ~0U, 0);  // nothing the judge holds open reaches the worker
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(126);
    execve(cargv[0], cargv.data(), cenv.data());
    dprintf(2, "cannot run %s: %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  close(log_fd);
  close(cmd_pipe[0]);
  close(reply_pipe[1]);
  child_process child;
  child.pid_ = pid;
  child.to_child_ = cmd_pipe[1];
  child.from_child_ = reply_pipe[0];
  return child;
}

std::vector<std::string> clean_environment(const std::vector<std::string>& add) {
  std::vector<std::string> env = add;
  bool has_path = false;
  for (const auto& kv : add) has_path |= kv.rfind("PATH=", 0) == 0;
  if (!has_path) env.push_back("PATH=/usr/local/bin:/usr/bin:/bin");
  return env;
}

child_process child_process::adopt(pid_t pid, int to_child_fd, int from_child_fd, int status_fd) {
  child_process child;
  child.pid_ = pid;
  child.to_child_ = to_child_fd;
  child.from_child_ = from_child_fd;
  child.ours_ = false;
  child.status_fd_ = status_fd;
  // At once: the process cannot have been reaped and its pid reused in the
  // moments since its keeper sent the pid (it has not even said hello).
  child.pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  return child;
}

bool child_process::adopted_exited() const {
  if (pidfd_ < 0) return kill(pid_, 0) != 0;
  struct pollfd p = {pidfd_, POLLIN, 0};
  return poll(&p, 1, 0) > 0;  // readable once it has exited
}

// Waits until an adopted process has exited (its keeper reaps it).
bool child_process::wait_adopted(double timeout_s) {
  auto start = std::chrono::steady_clock::now();
  if (pidfd_ < 0) {
    while (kill(pid_, 0) == 0) {
      if (seconds_since(start) > timeout_s) return false;
      usleep(1000);
    }
    return true;
  }
  for (;;) {
    int left_ms = static_cast<int>((timeout_s - seconds_since(start)) * 1000);
    if (left_ms <= 0) return adopted_exited();
    struct pollfd p = {pidfd_, POLLIN, 0};
    int r = poll(&p, 1, left_ms);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

bool child_process::signal(int sig) {
  if (pid_ <= 0 || reaped_) return false;
  if (!ours_ && pidfd_ >= 0) return syscall(SYS_pidfd_send_signal, pidfd_, sig, nullptr, 0) == 0;
  return kill(pid_, sig) == 0;
}

// The keeper's line, sent as soon as it has reaped the worker: a moment's
// wait at most once the worker is gone.
void child_process::read_adopted_status() {
  if (status_fd_ < 0) return;
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  char buf[64];
  while (text.find('\n') == std::string::npos) {
    struct pollfd pfd = {status_fd_, POLLIN, 0};
    int timeout_ms = poll_ms_until(deadline);
    if (timeout_ms == 0) break;
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    ssize_t n = read(status_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(status_fd_);
  status_fd_ = -1;
  int value = 0;
  if (std::sscanf(text.c_str(), "exit %d", &value) == 1) {
    exit_.exited = true;
    exit_.code = value;
  } else if (std::sscanf(text.c_str(), "signal %d", &value) == 1) {
    exit_.signaled = true;
    exit_.signal = value;
  }
}


child_process::child_process(child_process&& o) noexcept { *this = std::move(o); }

child_process& child_process::operator=(child_process&& o) noexcept {
  if (this == &o) return *this;
  if (pid_ > 0 && !reaped_) kill_and_wait();
  close_pipes();
  pid_ = o.pid_;
  to_child_ = o.to_child_;
  from_child_ = o.from_child_;
  buffer_ = std::move(o.buffer_);
  reaped_ = o.reaped_;
  ours_ = o.ours_;
  exit_ = o.exit_;
  status_fd_ = o.status_fd_;
  o.status_fd_ = -1;
  pidfd_ = o.pidfd_;
  o.pidfd_ = -1;
  o.pid_ = -1;
  o.to_child_ = o.from_child_ = -1;
  o.reaped_ = true;
  return *this;
}

child_process::~child_process() {
  if (pid_ > 0 && !reaped_) kill_and_wait();
  close_pipes();
}

void child_process::close_pipes() {
  if (status_fd_ >= 0) close(status_fd_);
  status_fd_ = -1;
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
}

status child_process::send_line(const std::string& line) {
  std::string data = line + "\n";
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(to_child_, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(std::string("worker pipe closed: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

child_process::read_status child_process::read_line(steady_time deadline, std::string* line) {
  char buf[65536];
  size_t scanned = 0;  // each byte is looked at once (a search of the whole buffer per read was quadratic)
  for (;;) {
    size_t nl = buffer_.find('\n', scanned);
    if (nl != std::string::npos) {
      *line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return read_status::line;
    }
    scanned = buffer_.size();
    if (buffer_.size() > kMaxLineBytes) {
      buffer_.clear();
      buffer_.shrink_to_fit();
      return read_status::too_long;
    }
    if (from_child_ < 0) return read_status::closed;
    struct pollfd pfd = {from_child_, POLLIN, 0};
    int timeout_ms = poll_ms_until(deadline);
    if (timeout_ms == 0) return read_status::timeout;
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return read_status::closed;
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

void child_process::kill_now() {
  if (pid_ <= 0 || reaped_) return;
  if (!ours_) {
    if (!adopted_exited()) kill(-pid_, SIGKILL);
    signal(SIGKILL);
    return;
  }
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
}

exit_info child_process::kill_and_wait() {
  if (pid_ <= 0 || reaped_) return exit_;
  if (!ours_) {
    // Its group by pid only while it has not exited (until then the pid is
    // its own); the process itself through its pidfd.
    if (!adopted_exited()) kill(-pid_, SIGKILL);
    signal(SIGKILL);
    reaped_ = true;
    wait_adopted(5.0);
    exit_ = exit_info{};
    read_adopted_status();
    return exit_;
  }
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  reaped_ = true;
  int wstatus = 0;
  while (waitpid(pid_, &wstatus, 0) < 0 && errno == EINTR) {
  }
  exit_ = decode_status(wstatus);
  return exit_;
}

exit_info child_process::wait_or_kill(double timeout_s) {
  if (pid_ <= 0 || reaped_) return exit_;
  if (!ours_) {
    if (wait_adopted(timeout_s)) {
      reaped_ = true;
      read_adopted_status();
      return exit_;
    }
    return kill_and_wait();
  }
  auto start = std::chrono::steady_clock::now();
  while (seconds_since(start) < timeout_s) {
    int wstatus = 0;
    pid_t r = waitpid(pid_, &wstatus, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      exit_ = decode_status(wstatus);
      kill(-pid_, SIGKILL);  // stragglers in its group
      return exit_;
    }
    usleep(2000);
  }
  return kill_and_wait();
}

}  // namespace cudal1
