// Option parsing and progress shared by the commands that judge.
#pragma once

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "cli/commands.h"
#include "judge/judge.h"

namespace cudal1 {

/// Progress lines on stderr ("  .. phase").
class stderr_progress : public progress_sink {
 public:
  explicit stderr_progress(bool enabled) : enabled_(enabled) {}
  void phase(const std::string& what) override {
    if (enabled_) std::fprintf(stderr, "  .. %s\n", what.c_str());
  }

 private:
  bool enabled_;
};

/// Parses "--name value" and "--name=value"; numbers are checked.
struct option_reader {
  const args_t& args;
  size_t i = 0;
  std::string error;

  bool value(std::string* out) {
    const std::string& a = args[i];
    if (auto eq = a.find('='); eq != std::string::npos) {
      *out = a.substr(eq + 1);
      return true;
    }
    if (i + 1 >= args.size()) {
      error = a + " needs a value";
      return false;
    }
    *out = args[++i];
    return true;
  }
  bool number(double* out, double min) {
    std::string v;
    if (!value(&v)) return false;
    try {
      size_t used = 0;
      *out = std::stod(v, &used);
      if (used != v.size() || *out < min) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      error = flag_name() + ": not a number >= " + shortest(min) + ": " + v;
      return false;
    }
    return true;
  }
  bool integer(int* out, int min, int max = std::numeric_limits<int>::max()) {
    double d;
    if (!number(&d, min)) return false;
    if (d != std::floor(d) || d > max) {
      error = flag_name() + ": not a whole number from " + shortest(min) + " to " + std::to_string(max) + ": " + shortest(d);
      return false;
    }
    *out = static_cast<int>(d);
    return true;
  }

 private:
  // The flag whose value was just read (args[i] is the value, or "--flag=value").
  std::string flag_name() const {
    const std::string& a = args[i];
    if (a.find('=') == std::string::npos) return args[i - 1];
    return a.rfind("--", 0) == 0 ? a.substr(0, a.find('=')) : a;
  }
  static std::string shortest(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
  }
};

/// Reads the judge options that every judging command takes (backend,
/// python, profile, trials, timeouts, stopping rule, re-check, seed, cache,
/// scratch, reference server) at r.i. Returns false when args[r.i] is not one
/// of them; *ok is false when it is one but its value is bad (r.error says why).
bool read_judge_option(option_reader& r, judge_options& opt, bool* ok);

/// Blocks SIGINT and SIGTERM in this thread and every thread started after
/// it (they inherit the mask), so that a server takes them with sigwait on
/// its main thread: stopping then runs there, not in a signal handler where
/// locks and joins are unsafe. Returns the set to pass to sigwait.
sigset_t block_stop_signals();

/// The help text for those options.
extern const char* const kJudgeOptionsHelp;

}  // namespace cudal1
