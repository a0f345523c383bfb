// The judge's side of a worker: a child process spoken to in JSON lines, every
// request with a deadline.
#pragma once

#include <nlohmann/json.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/subprocess.h"

namespace cudal1 {

/// What came back from one request.
struct worker_reply {
  enum class kind { ok, failed, timeout, died } what = kind::died;
  nlohmann::json body;        // the reply (ok or failed)
  exit_info exit;             // died: how the process ended
  double wall_ms = 0;         // the judge's own clock, request sent to reply read
  std::string raw;            // the reply's line, its first 200 characters
  /// The worker process's CPU time over the request, every thread's, where
  /// it was stopped at both ends (exact then: no thread is on a CPU); -1
  /// where it was not (the freeze off, or the process gone).
  double cpu_ms = -1;
  double main_cpu_ms = -1;      // the worker's main thread's alone
  /// A request split at its window (request_split): the worker's own two
  /// marks, at each of which the judge reads its CPU time, exactly (no thread
  /// running, or the worker stopped). The CPU time on either side of the
  /// window (cpu_outside_ms) is then exact too.
  int marks = 0;
  double cpu_outside_ms = -1;   // thaw to the first mark's freeze, plus the second's to the end
  double main_cpu_outside_ms = -1;  // the main thread's share of it
  double window_wall_ms = -1;   // the judge's clock: continued at the first mark, stopped at the second
  /// Window marks at which a thread of the worker kept running through the
  /// judge's tries to read its CPU time quietly, and it was stopped (an
  /// honest worker blocks on its read right after the mark). At the end mark
  /// the worker is stopped at once, and that is not counted here.
  int loud_marks = 0;
  /// The worker's own time in the marks' pauses (until the judge's quiet
  /// reading began, or its stop was sent): left out of wall_ms, reported here.
  double loud_pause_ms = 0;
  std::string failure_kind() const { return body.value("kind", ""); }
  std::string message() const { return body.value("message", body.value("error", "")); }
};

/// Non-copyable: owns the process.
class worker_channel {
 public:
  static result<worker_channel> start(const worker_spawn& spawn);
  /// A channel to a process started some other way (the reference server's).
  static worker_channel adopt(child_process process, std::string log_path);
  worker_channel(worker_channel&&) = default;
  worker_channel& operator=(worker_channel&&) = default;

  /// Sends a request and waits up to timeout_s for its reply. On timeout the
  /// worker is killed; if it dies, exit says how.
  worker_reply request(const nlohmann::json& cmd, double timeout_s);
  /// A run request split at its window, where the worker is frozen between
  /// requests: the worker writes a mark as its window is about to start and
  /// another as it has ended, and waits after each; the judge reads its CPU
  /// time there (at the window's mark, where no thread runs, as is; else,
  /// and always at the end mark, stopping it first) and says go. What any
  /// of its threads did before the first mark or after the second is then
  /// counted apart from the window, exactly (reply.cpu_outside_ms), however
  /// it was hidden: a pool thread finishing rows while the main thread
  /// answers is the candidate's work outside its window.
  ///
  /// at_mark, where given, runs in each mark's pause with every thread of
  /// the worker stopped ("window", then "window_end"): the judge's work that
  /// must happen while no code of the worker's can run (the call's inputs
  /// staged only then: before the window's mark they do not exist for any
  /// code of the worker's to compute from), with the mark's line as the
  /// worker wrote it. Unsplit, at_mark("window", {}) runs before the request
  /// is sent and "window_end" never.
  worker_reply request_split(const nlohmann::json& cmd, double timeout_s,
                             const std::function<void(const char* mark, const nlohmann::json& body)>& at_mark = {});
  /// Sends a command without waiting; its reply is read later with receive().
  status send(const nlohmann::json& cmd);
  /// Waits for the next line: a hello, or the reply to an earlier send().
  worker_reply receive(double timeout_s);
  /// Asks the worker to quit, then makes sure it is gone.
  void stop();
  /// Ends the worker at once (SIGKILL to its process group).
  void kill();
  /// Sends that SIGKILL without waiting for the worker to be gone.
  void kill_now() { process_.kill_now(); }
  /// Hands a killed worker to a background thread that waits until it is
  /// gone: a CUDA context's teardown then overlaps the next judgment's start.
  static void retire(worker_channel&& worker);
  /// Returns once every retired worker is gone. Called before anything is
  /// timed, so no teardown (which a candidate could make slow) overlaps a
  /// timed call or a probe. Waits at most timeout_s; false if some worker
  /// was still ending then (a SIGKILL that the kernel or the driver has not
  /// finished: the old code waited for it without a limit).
  static bool await_retired(double timeout_s = 30);
  /// From now on the worker is stopped (SIGSTOP, every thread) whenever it
  /// is not answering a request, and continued (SIGCONT) as the next one is
  /// sent, inside that request's time: nothing it left behind can run while
  /// the judge and the reference work between its requests.
  void freeze_between_requests();
  /// The requests since the last call, by op: how many, and the judge's
  /// whole time in them (the freezes and the marks' pauses included), so
  /// that a judgment can say where each phase's time went.
  struct ledger_entry {
    int count = 0;
    double ms = 0;
  };
  std::map<std::string, ledger_entry> take_ledger() { return std::exchange(ledger_, {}); }
  const std::string& log_path() const { return log_path_; }
  pid_t pid() const { return process_.pid(); }
  /// The last lines the worker's process printed (its stdout and stderr).
  std::string log_tail(int lines = 20) const;

 private:
  worker_channel(child_process p, std::string log) : process_(std::move(p)), log_path_(std::move(log)) {}
  child_process process_;
  std::string log_path_;
  bool alive_ = true;
  bool freeze_ = false;   // stop the worker between requests
  bool frozen_ = false;   // it is stopped now
  bool freeze(std::chrono::steady_clock::time_point* sent = nullptr);
  void thaw();
  /// Why the last failed freeze failed: a thread that ran on through the
  /// judge's stops (a request it ends with is failed, kind "stop_evaded").
  std::string stop_evaded_;
  /// The worker's threads when the last freeze found them all stopped.
  std::vector<int> known_threads_;
  struct cpu_sample {
    double process_ms = -1;  // every thread's CPU time so far, ended ones too
    double main_ms = -1;     // the main thread's
  };
  cpu_sample sample_cpu();
  bool quiet_sample(cpu_sample* out);
  worker_reply exchange(const nlohmann::json& cmd, double timeout_s, bool split,
                        const std::function<void(const char* mark, const nlohmann::json& body)>& at_mark = {});
  std::mt19937_64 next_id_{std::random_device{}()};
  std::map<std::string, ledger_entry> ledger_;
};

}  // namespace cudal1
