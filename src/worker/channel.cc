#include "worker/channel.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "base/fs.h"
#include "base/json_text.h"
#include "worker/census.h"

namespace cudal1 {

using json = nlohmann::json;

namespace {

// The deepest nesting of a JSON text's arrays and objects (strings skipped):
// a worker's reply is shallow, and a deep one would exhaust the judge's stack
// when it is printed.
int nesting_depth(const std::string& line) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// A reply's fields the judge reads by type: a line that has them with other
// types is not a reply (a candidate can write on the reply channel).
std::string malformed(const json& body) {
  if (!body.is_object()) return "not an object";
  if (body.contains("ok") && !body["ok"].is_boolean()) return "\"ok\" is not true or false";
  for (const char* key : {"kind", "message", "error", "deferred_work", "cache_tampering", "census", "mark", "own_contexts_lost"})
    if (body.contains(key) && !body[key].is_string()) return std::string("\"") + key + "\" is not a string";
  if (body.contains("ms") && !body["ms"].is_number()) return "\"ms\" is not a number";
  for (const char* key : {"new_threads", "own_contexts", "child_processes", "process_attempts", "escape_attempts", "kernels", "output_problem"})
    if (body.contains(key) && !body[key].is_array()) return std::string("\"") + key + "\" is not a list";
  if (body.contains("sandbox") && !body["sandbox"].is_object()) return "\"sandbox\" is not an object";
  return "";
}

}  // namespace

result<worker_channel> worker_channel::start(const worker_spawn& spawn) {
  auto p = child_process::spawn(spawn);
  if (!p) return p.err();
  return worker_channel(std::move(*p), spawn.log_path);
}

worker_channel worker_channel::adopt(child_process process, std::string log_path) {
  return worker_channel(std::move(process), std::move(log_path));
}

worker_reply worker_channel::receive(double timeout_s) {
  worker_reply r;
  auto start = std::chrono::steady_clock::now();
  if (!alive_) {
    r.what = worker_reply::kind::died;
    r.exit = process_.kill_and_wait();
    return r;
  }
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_s));
  std::string line;
  auto st = process_.read_line(deadline, &line);
  r.wall_ms = seconds_since(start) * 1e3;
  if (st == child_process::read_status::timeout) {
    r.what = worker_reply::kind::timeout;
    r.exit = process_.kill_and_wait();
    alive_ = false;
    return r;
  }
  if (st == child_process::read_status::closed) {
    r.what = worker_reply::kind::died;
    r.exit = process_.wait_or_kill(5.0);
    alive_ = false;
    return r;
  }
  if (st == child_process::read_status::too_long) {  // no reply is that long: the stream is the worker's to forge
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false},
              {"kind", "protocol"},
              {"message", "a reply line of more than " + std::to_string(child_process::kMaxLineBytes >> 20) +
                              " MiB without a newline"}};
    process_.kill_and_wait();
    alive_ = false;
    return r;
  }
  r.raw = line.substr(0, 200);
  constexpr int kMaxDepth = 16;
  if (nesting_depth(line) > kMaxDepth) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "a reply nested deeper than any the worker writes: " + r.raw}};
    return r;
  }
  r.body = json::parse(line, nullptr, false);
  std::string why = r.body.is_discarded() ? "not JSON" : malformed(r.body);
  if (!why.empty()) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "malformed reply from worker (" + why + "): " + r.raw}};
    return r;
  }
  r.what = r.body.value("ok", false) ? worker_reply::kind::ok : worker_reply::kind::failed;
  return r;
}

status worker_channel::send(const json& cmd) {
  if (!alive_) return make_error("worker has ended");
  return process_.send_line(json_text(cmd));
}

void worker_channel::freeze_between_requests() {
  freeze_ = true;
  freeze();
}

// SIGSTOP, then wait until every thread of the worker is stopped (a thread
// in a system call stops when it returns), at most a second. False where a
// thread of the worker was still running or asleep, not stopped, then.
//
// The process-wide stop is taken by one thread, which the kernel picks (the
// main thread where it is on a CPU, even inside a system call), and the
// others are stopped only once that one leaves the kernel: a main thread held
// in a long system call (a hook on its write of the end mark writing 128 MB
// to a file) let a pool thread compute rows after the end mark until then
// (an attack review, 2026-12-07). So every thread gets a stop of its own too,
// and the first of them to leave the kernel stops them all. `sent`, where
// given, is when the last was sent to a thread that was running: a thread on
// a CPU runs microseconds past it. The stops are sent again while the wait
// lasts: a thread of the worker could undo one with a SIGCONT of its own (the
// process filter refuses that now), and a stop that does not hold is
// reported, never waited through.
bool worker_channel::freeze(std::chrono::steady_clock::time_point* sent) {
  if (sent) *sent = std::chrono::steady_clock::now();
  if (!freeze_ || frozen_ || !alive_) return true;
  const pid_t pid = process_.pid();
  const std::string proc = "/proc/" + std::to_string(pid);
  if (!process_.signal(SIGSTOP)) return true;  // gone: nothing of it runs
  frozen_ = true;
  auto stop_thread = [pid](int tid) { syscall(SYS_tgkill, pid, tid, SIGSTOP); };
  // The threads the last freeze found get theirs at once, without listing
  // them first: a listing of /proc/PID/task before the stops, counted in
  // every call's end-mark pause, took it from 0.0001-0.0002 ms to
  // 0.026-0.043 ms on an H100 host, and widened the calls' spread (2026-12-07).
  std::set<int> signalled;
  for (int tid : known_threads_) {
    stop_thread(tid);
    signalled.insert(tid);
  }
  if (sent) *sent = std::chrono::steady_clock::now();
  const auto from = std::chrono::steady_clock::now();
  const auto deadline = from + std::chrono::seconds(1);
  auto resent = from;
  std::string unstopped;
  while (std::chrono::steady_clock::now() < deadline) {
    auto tids = list_threads(proc);
    unstopped.clear();
    for (const auto& tid : tids) {
      char state = thread_state(tid, proc);  // '?': gone since the listing
      // 'D': in the kernel, where it cannot be stopped; it stops, with its
      // own stop pending, as it leaves, and runs none of the worker's code.
      const bool stopped = state == 'T' || state == 't' || state == 'Z' || state == 'X' || state == '?' || state == 'D';
      // A thread the last freeze did not know (started since) gets its own
      // stop now; where it is still running, not one that is ending (a
      // joined helper), its time until then is the worker's.
      const int id = std::atoi(tid.c_str());
      if (signalled.insert(id).second) {
        stop_thread(id);
        if (sent && !stopped && thread_running(tid, proc)) *sent = std::chrono::steady_clock::now();
      }
      if (!stopped && unstopped.empty()) unstopped = tid + " (" + state + ")";
    }
    if (unstopped.empty()) {
      known_threads_.clear();
      for (const auto& tid : tids) known_threads_.push_back(std::atoi(tid.c_str()));
      return true;
    }
    if (seconds_since(resent) > 10e-3) {
      process_.signal(SIGSTOP);
      for (int tid : signalled) stop_thread(tid);
      resent = std::chrono::steady_clock::now();
    }
    // A stop takes each thread tens of microseconds to reach; a sleep here
    // would take far longer (timer slack: ~150 us per 20 us asked on the
    // 2-core VM), and every request pays several freezes. So yield the CPU
    // (to the worker's threads that must run to stop) for the first
    // milliseconds, then sleep.
    if (seconds_since(from) < 2e-3) sched_yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.2f s", seconds_since(from));
  stop_evaded_ = "thread " + unstopped + " of the worker was still not stopped " + waited +
                 " after the judge's stops (SIGSTOP to the process and to each thread, sent again every 10 ms)";
  return false;
}

void worker_channel::thaw() {
  if (!frozen_) return;
  process_.signal(SIGCONT);
  frozen_ = false;
}

// The worker's CPU time, all its threads' and those that ended, from the
// process's CPU clock (one system call; any process's may be read), and its
// main thread's alone (the leader's /proc schedstat: its first field is the
// time it ran, in ns). Exact only while every thread is off a CPU: a running
// thread's time since its last tick or switch is in neither yet, which is
// why they are read frozen or quiet (quiet_sample). -1 where unreadable.
worker_channel::cpu_sample worker_channel::sample_cpu() {
  cpu_sample s;
  if (!alive_) return s;
  clockid_t clock;
  timespec ts;
  if (clock_getcpuclockid(process_.pid(), &clock) == 0 && clock_gettime(clock, &ts) == 0)
    s.process_ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/schedstat", static_cast<int>(process_.pid()));
  if (FILE* f = std::fopen(path, "re")) {
    unsigned long long ns = 0;
    if (std::fscanf(f, "%llu", &ns) == 1) s.main_ms = ns / 1e6;
    std::fclose(f);
  }
  return s;
}

// No thread of the worker running or runnable, and none that ran, between
// two listings around the reading of its CPU times: then they are exact (a
// running thread's time since its last tick or switch is in no clock yet).
// A thread that ran in between shows as running or with more time in the
// second listing (a switch adds its time), so two threads taking turns to
// run between the listings do not pass for quiet.
bool worker_channel::quiet_sample(cpu_sample* out) {
  const std::string proc = "/proc/" + std::to_string(process_.pid());
  auto listing = [&](std::map<std::string, std::string>* times) {
    auto tids = list_threads(proc);
    if (tids.empty()) return false;
    for (const auto& tid : tids) {
      // A thread already exiting (a helper the call joined: join returns
      // before the kernel is done with it) runs no code of the worker's
      // again; taken for a running one, it made every mark of an honest
      // joined-thread kernel loud, and its calls were timed by the judge's
      // clock, 10-23% slower (an attack review, 2026-12-06).
      if (!thread_running(tid, proc)) continue;
      if (thread_state(tid, proc) == 'R') return false;
      std::istringstream in(read_proc_file(proc + "/task/" + tid + "/schedstat").value_or(""));
      std::string ran;
      if (!(in >> ran)) return false;
      (*times)[tid] = ran;
    }
    return true;
  };
  std::map<std::string, std::string> before, after;
  if (!listing(&before)) return false;
  *out = sample_cpu();
  return out->process_ms >= 0 && listing(&after) && before == after;
}

worker_reply worker_channel::request(const json& cmd, double timeout_s) { return exchange(cmd, timeout_s, false); }

worker_reply worker_channel::request_split(const json& cmd, double timeout_s,
                                           const std::function<void(const char* mark, const json& body)>& at_mark) {
  return exchange(cmd, timeout_s, true, at_mark);
}

worker_reply worker_channel::exchange(const json& cmd, double timeout_s, bool split,
                                      const std::function<void(const char* mark, const json& body)>& at_mark) {
  split = split && frozen_;  // the split needs the freeze: without it, no exact figures
  // Unsplit, the window's work comes before the request, outside its time.
  if (!split && at_mark) at_mark("window", json::object());
  auto start = std::chrono::steady_clock::now();
  const cpu_sample cpu_start = frozen_ ? sample_cpu() : cpu_sample{};
  thaw();  // inside the request's time, as every request (the probes' too) pays it
  // Every request carries a fresh id that its reply must echo: a line that
  // something else in the worker's process wrote is not taken for a reply.
  json tagged = cmd;
  uint64_t id = next_id_() >> 11;  // 53 bits: exact in any JSON reader
  tagged["id"] = id;
  if (split) tagged["split"] = true;
  // A failed write means the worker is gone: receive() then reports how it ended.
  (void)send(tagged);
  cpu_sample cpu_marks[2];
  int marks = 0;
  double window_wall_ms = -1, paused_s = 0;
  int loud = 0;
  double worker_paused_s = 0;
  auto window_from = std::chrono::steady_clock::now();
  worker_reply r;
  for (;;) {
    r = receive(std::max(0.0, timeout_s - seconds_since(start)));
    if (r.what != worker_reply::kind::ok && r.what != worker_reply::kind::failed) break;
    if (!r.body.contains("mark")) break;
    // A mark: only where asked, in order, with the request's id. The
    // worker waits after it for the judge's go.
    const std::string mark = r.body["mark"];
    if (!split || marks >= 2 || mark != (marks == 0 ? "window" : "window_end") || !r.body.contains("id") ||
        !r.body["id"].is_number_unsigned() || r.body["id"].get<uint64_t>() != id) {
      r.what = worker_reply::kind::failed;
      r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "a mark the judge did not ask for: " + r.raw}};
      break;
    }
    const auto marked = std::chrono::steady_clock::now();
    if (marks == 1) window_wall_ms = seconds_since(window_from) * 1e3;
    // The worker's main thread waits for the go: where none of its threads
    // is running either (honest threads sleep outside the window), the CPU
    // times read now are exact, and stopping every thread, which wakes each
    // one (each stop costs a sleeping thread CPU time, far more on a loaded
    // VM), is spared. Where one runs, the freeze makes them exact.
    // The worker's main thread may still be on its way into the read when
    // the mark arrives: a few tries, yielding between them. The time until
    // the reading that found it quiet began is the worker's, and so is the
    // time until the stop was sent where none did: a thread of it that runs
    // on after the mark is doing work outside the window, which the pause
    // would otherwise hide (an attack review, 2026-12-06: a ModelNew's mark
    // wrote its line and computed rows until the go came, at 3.4-4.4x
    // against 1.1-2.7x honest). That time is reported (loud_pause_ms), not
    // counted in wall_ms: counted there, an honest ModelNew whose threads
    // were still settling at its marks was rejected as timer_tampering
    // (0.59 ms over the probes' requests, 2026-12-06); the judge compares it
    // with the probes' and counts it where the judge's clock times the calls.
    //
    // At the end mark the worker is stopped at once instead: the call's
    // outputs are taken there, and a thread that sleeps through the quiet
    // readings and wakes before the stop (the listings take hundreds of
    // microseconds on a loaded VM) wrote rows that were in no clock: a
    // taken-over libgomp pool thread, woken at the end of forward, finished
    // the second half of the rows there at 0.68-0.74x against an honest
    // 0.40-0.44x (an attack review, 2026-12-07). The worker's time until the
    // stop is sent is counted, as on the loud path; its threads' CPU time is
    // read once it is stopped. Nothing is spared by a quiet reading there:
    // the outputs are taken with the worker stopped anyway.
    double counted_s = 0;
    bool quiet = false;
    const bool stop_at_once = marks == 1;
    for (int attempt = 0; attempt < 3 && !quiet && !stop_at_once; ++attempt) {
      const auto reading = std::chrono::steady_clock::now();
      quiet = quiet_sample(&cpu_marks[marks]);
      if (quiet) counted_s = std::chrono::duration<double>(reading - marked).count();
      else sched_yield();
    }
    bool stopped = true;
    if (!quiet) {
      // Until the stops are sent: a running thread stops within
      // microseconds of its own; the rest of the freeze is the sleeping
      // threads' waking to stop (0.05-0.45 ms on the 2-core VM), the judge's
      // doing, which counted would only spread the requests' time.
      std::chrono::steady_clock::time_point sent;
      stopped = freeze(&sent);
      counted_s = std::chrono::duration<double>(sent - marked).count();
      if (frozen_) cpu_marks[marks] = sample_cpu();
      if (!stop_at_once) ++loud;
    }
    if (stopped && at_mark) {
      // The judge's work at this mark, with the worker stopped: nothing of
      // its can run meanwhile (a thread woken by a timer, say, would
      // otherwise see the inputs staged at the window's mark before the go).
      // At the window's mark its CPU time is read again, stopped: what ran
      // between the quiet reading and the stop counts outside the window.
      // (At the end mark the worker is stopped already.)
      const bool was_frozen = frozen_;
      stopped = freeze();
      if (stopped && frozen_ && !was_frozen && marks == 0) cpu_marks[0] = sample_cpu();
      if (stopped) at_mark(mark == "window" ? "window" : "window_end", r.body);
    }
    if (!stopped) {  // nothing is staged or taken from a worker that runs on
      r.what = worker_reply::kind::failed;
      r.body = {{"ok", false}, {"kind", "stop_evaded"}, {"message", "at the " + mark + " mark, " + stop_evaded_}};
      break;
    }
    // The worker waited on the judge from then until its threads are
    // continued: not its time (stopping its threads takes 0.05-0.45 ms on
    // the 2-core VM). From the continue on it is: a thread of the worker's
    // that the continue wakes (a SIGCONT handler, a pool thread parked in
    // sigsuspend) runs from there, the call's inputs staged, and may
    // preempt the judge before it writes the go; read after the continue,
    // that time was in neither the span nor the request, and a taken-over
    // libgomp pool thread computed every row there at 11-394x against an
    // honest 0.44-0.58x (an attack review, 2026-12-07). So the span starts
    // here, before the continue; the worker's window starts with the go,
    // whose write the woken worker may preempt.
    const auto resumed = std::chrono::steady_clock::now();
    thaw();
    ++marks;
    window_from = resumed;
    paused_s += std::chrono::duration<double>(resumed - marked).count();
    worker_paused_s += counted_s;
    (void)send(json{{"op", "go"}, {"id", id}});
  }
  r.marks = marks;
  r.loud_marks = loud;
  r.loud_pause_ms = worker_paused_s * 1e3;
  r.wall_ms = (seconds_since(start) - paused_s) * 1e3;
  // The judge's own failures have no id (a worker's reply of those kinds is
  // the candidate's, and is rejected alike).
  const std::string kind = r.body.is_object() ? r.body.value("kind", "") : "";
  if ((r.what == worker_reply::kind::ok || r.what == worker_reply::kind::failed) && kind != "protocol" &&
      kind != "stop_evaded" && (!r.body.contains("id") || !r.body["id"].is_number_unsigned() || r.body["id"].get<uint64_t>() != id)) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"}, {"message", "a reply without the request's id: " + r.raw}};
  }
  if (split && r.what == worker_reply::kind::ok && marks != 2) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "protocol"},
              {"message", "a run reply without the two marks around its window (" + std::to_string(marks) + " came)"}};
  }
  if (!freeze() && (r.what == worker_reply::kind::ok || r.what == worker_reply::kind::failed)) {
    r.what = worker_reply::kind::failed;
    r.body = {{"ok", false}, {"kind", "stop_evaded"}, {"message", "after the reply, " + stop_evaded_}};
  }
  const cpu_sample cpu_end = frozen_ ? sample_cpu() : cpu_sample{};
  if (cpu_start.process_ms >= 0 && cpu_end.process_ms >= 0) r.cpu_ms = cpu_end.process_ms - cpu_start.process_ms;
  if (cpu_start.main_ms >= 0 && cpu_end.main_ms >= 0) r.main_cpu_ms = cpu_end.main_ms - cpu_start.main_ms;
  r.window_wall_ms = -1;
  if (marks == 2) {
    auto outside = [&](double cpu_sample::*field) {
      const double a = cpu_start.*field, b = cpu_marks[0].*field, c = cpu_marks[1].*field, d = cpu_end.*field;
      return a >= 0 && b >= 0 && c >= 0 && d >= 0 ? (b - a) + (d - c) : -1.0;
    };
    r.cpu_outside_ms = outside(&cpu_sample::process_ms);
    r.main_cpu_outside_ms = outside(&cpu_sample::main_ms);
    r.window_wall_ms = window_wall_ms;
  }
  ledger_entry& spent = ledger_[cmd.value("op", "?")];
  ++spent.count;
  spent.ms += seconds_since(start) * 1e3;
  return r;
}

void worker_channel::stop() {
  thaw();
  if (alive_) {
    if (process_.send_line(json_text(json{{"op", "quit"}}))) {
      std::string line;
      process_.read_line(std::chrono::steady_clock::now() + std::chrono::seconds(5), &line);
    }
    process_.wait_or_kill(5.0);
    alive_ = false;
  } else {
    process_.kill_and_wait();
  }
}

void worker_channel::kill() {
  process_.kill_and_wait();  // SIGKILL ends a stopped process too
  frozen_ = false;
  alive_ = false;
}

namespace {

// Killed workers waiting to be gone, and the thread that waits for them.
// Process-wide: the judgments of one process (cudal1 bench, the optimizer,
// the reward server) share it; at exit it finishes its list first.
class reaper {
 public:
  static reaper& get() {
    static reaper r;
    return r;
  }
  void add(worker_channel&& w) {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    list_.push_back(std::move(w));
    ++pending_;
    wake_.notify_all();
  }
  bool await(double timeout_s) {
    std::unique_lock lock(mu_);
    return done_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return pending_ == 0; });
  }
  ~reaper() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      wake_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || !list_.empty(); });
      if (list_.empty()) return;  // stop_, and nothing left
      worker_channel w = std::move(list_.front());
      list_.pop_front();
      lock.unlock();
      w.kill();  // already signalled: this waits for it
      lock.lock();
      --pending_;
      done_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::deque<worker_channel> list_;
  int pending_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

void worker_channel::retire(worker_channel&& worker) {
  worker.kill_now();
  reaper::get().add(std::move(worker));
}

bool worker_channel::await_retired(double timeout_s) { return reaper::get().await(timeout_s); }

std::string worker_channel::log_tail(int lines) const {
  // The end of the log only, each line cut short: a candidate may print
  // hundreds of megabytes, on one line.
  constexpr std::streamoff kTailBytes = 8192;
  constexpr size_t kLineChars = 240;
  std::ifstream in(log_path_, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kTailBytes));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  std::istringstream split(tail_lines(text, lines));
  for (std::string line; std::getline(split, line);)
    out += (line.size() > kLineChars ? line.substr(0, kLineChars) + "... (cut)" : line) + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace cudal1
