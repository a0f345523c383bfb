// Child processes: one-shot commands (the compiler) and long-lived workers
// that speak a line protocol on two private pipes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

using steady_time = std::chrono::steady_clock::time_point;

/// Resource limits applied in the child before exec. Zero means "leave as is".
struct process_limits {
  uint64_t cpu_seconds = 0;     // RLIMIT_CPU: SIGXCPU/SIGKILL past it
  uint64_t address_bytes = 0;   // RLIMIT_AS (not for CUDA: the driver reserves huge ranges)
  uint64_t open_files = 0;      // RLIMIT_NOFILE
  uint64_t processes = 0;       // RLIMIT_NPROC (does not bind root)
  uint64_t file_bytes = 0;      // RLIMIT_FSIZE: the largest file it may write (its log included)
};

/// How a process ended.
struct exit_info {
  bool exited = false;    // normal exit; code is valid
  int code = 0;
  bool signaled = false;  // killed by a signal; signal is valid
  int signal = 0;
  std::string describe() const;  // "exit status 3", "signal 11 (SIGSEGV)"
};

/// Result of run_command().
struct command_result {
  exit_info exit;
  bool timed_out = false;
  std::string output;  // stdout and stderr merged, capped at a few MB
  double seconds = 0;
};

/// Runs argv to completion with a time limit, in its own process group (killed
/// whole on timeout). env entries "NAME=value" are added to the environment.
result<command_result> run_command(const std::vector<std::string>& argv, double timeout_s,
                                   const std::vector<std::string>& env = {});

/// Only the given variables, and a PATH (worker_spawn's clean_env).
std::vector<std::string> clean_environment(const std::vector<std::string>& add);

/// Options for a worker process.
struct worker_spawn {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value" added to (or replacing in) the environment
  std::vector<std::string> unset_env;
  std::string log_path;          // the child's stdout and stderr go here
  std::string working_dir;       // empty: inherit
  process_limits limits;
  /// Only env (and PATH) reach the child, not the parent's environment.
  bool clean_env = false;
  /// The child starts as init of its own PID, mount, network and IPC
  /// namespaces with a private /proc, so it sees and can signal no other
  /// process (needs root; elsewhere an ordinary child, which can tell by
  /// getpid() != 1).
  bool isolate = false;
  /// With isolate: keep the judge's PID namespace (CUDA IPC handles cannot
  /// cross PID namespaces) and mount a /proc that shows only the child's own
  /// user's processes (hidepid=invisible) instead.
  bool share_pid_namespace = false;
};

/// A long-lived child that reads commands as lines on fd 3 and writes replies
/// as lines on fd 4; it inherits no other descriptor. It runs in its own process group and dies with its parent
/// (PR_SET_PDEATHSIG). Non-copyable: it owns the pipes and the process.
class child_process {
 public:
  enum class read_status { line, timeout, closed, too_long };
  /// The longest line read_line() takes: a worker's replies are kilobytes,
  /// and a child writing without a newline held the judge's memory and CPU
  /// (an attack review, 2026-12-07: 550 MB and 26 s of the judge's CPU).
  static constexpr size_t kMaxLineBytes = 16u << 20;

  static result<child_process> spawn(const worker_spawn& options);
  /// Takes over a process another process forked for us (a fork server's
  /// workers): we hold its pipes and may kill it, but cannot wait for it.
  /// Its exit status is unknown, unless status_fd (ours from now on) is a
  /// descriptor on which a line "exit N" or "signal N" arrives when it ends.
  static child_process adopt(pid_t pid, int to_child_fd, int from_child_fd, int status_fd = -1);
  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  /// Writes one line (a newline is appended). Fails if the child has gone.
  status send_line(const std::string& line);
  /// Reads one line, waiting at most until deadline; too_long past
  /// kMaxLineBytes without a newline (what was read is dropped).
  read_status read_line(steady_time deadline, std::string* line);
  /// Kills the whole process group (SIGKILL) and reaps the child.
  exit_info kill_and_wait();
  /// Sends the same SIGKILL without waiting: several children then end (a
  /// CUDA context's teardown takes a while) at once; kill_and_wait() reaps.
  void kill_now();
  /// Waits up to timeout for the child to exit by itself, then kills it.
  exit_info wait_or_kill(double timeout_s);
  pid_t pid() const { return pid_; }
  /// Sends `sig` to the process (not its group). An adopted process is
  /// signalled through a pidfd taken when it was adopted, so once its keeper
  /// has reaped it no process that reuses the pid is hit. False if it is gone.
  bool signal(int sig);

 private:
  child_process() = default;
  void close_pipes();
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  bool reaped_ = false;
  bool ours_ = true;  // our child: waitpid works
  int status_fd_ = -1;  // adopted: where its keeper says how it ended
  int pidfd_ = -1;      // adopted: the process itself, whatever later holds its pid
  bool adopted_exited() const;
  bool wait_adopted(double timeout_s);
  void read_adopted_status();
  exit_info exit_;
};

/// Seconds since start.
double seconds_since(steady_time start);

}  // namespace cudal1
