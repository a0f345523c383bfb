// The fork servers: one long-lived Python per interpreter (and role) that has
// imported torch and forks a fresh worker per judgment, so a judgment does
// not pay torch's import (4.7 s measured on the H200 machine): the reference
// server (cudal1_ref.py) and the candidate server (cudal1_candidate.py, whose
// ModelNew workers it makes sealed as the judge's own spawn would).
//
// The server is started on first use, detached, and exits after ten idle
// minutes ($CUDAL1_REF_SERVER_IDLE seconds). Its socket lives in a private folder ($XDG_RUNTIME_DIR/cudal1, or
// /tmp/cudal1-UID), named by a hash of the interpreter, the worker script and
// the environment variables torch reads at import, so a change of any of them
// gets a server of its own: ref-KEY.sock, with ref-KEY.pid (the server's pid,
// while it listens), ref-KEY.lock and ref-KEY.log beside it.
//
// The server is health-checked, never waited on: one whose pid file names no
// live `--serve` process of that socket, or a stopped one (SIGSTOP: its listen
// queue still completes connects), is killed and replaced at once; one that
// does not send the forked worker's pid within 5 s (a healthy one forks in
// tens of milliseconds) is replaced once, and then fork_reference() fails, so
// the judge starts a worker of its own.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/subprocess.h"

namespace cudal1 {

/// A worker forked by a server: the reference (role "ref", cudal1_ref.py)
/// or a ModelNew candidate's run worker (role "cand", cudal1_candidate.py).
struct reference_fork_request {
  std::string python;               // interpreter path
  std::string script;               // the server's script (cudal1_ref.py, cudal1_candidate.py)
  std::string log_path;             // the worker's stdout and stderr
  std::vector<std::string> env;     // "NAME=value" added to the worker's (and server's) environment
  double start_timeout_s = 180;     // a cold server imports torch first
  bool use_remembered = true;       // skip an interpreter remembered as without torch
  std::string role = "ref";         // the server's files: ROLE-KEY.sock, .pid, .lock, .log
  /// The scripts beside `script` whose text keys the server (a change to any
  /// gets a server of its own); `script` itself always counts.
  std::vector<std::string> key_files = {"cudal1_compare.py", "cudal1_forkserver.py", "cudal1_clock.py"};
  /// The worker's and server's environment is `env` alone (and a PATH), not
  /// this process's with `env` added.
  bool clean_env = false;
  /// More of the request, for the server (the candidate's: its arguments,
  /// working folder, limits, namespaces).
  nlohmann::json payload = nlohmann::json::object();
  /// The server sends a second line when the worker ends ("exit N",
  /// "signal N"), so its exit status is known, as a child's would be.
  bool exit_status = false;
};

/// The candidate server's request for the process `spawn` would start
/// (argv: PYTHON -u cudal1_candidate.py ARGS...): its arguments, folder,
/// environment (clean), limits and namespaces travel with the request
/// (python/cudal1_candidate.py start_forked_worker), and its exit status
/// comes back. Used for ModelNew run workers and builds alike.
reference_fork_request candidate_fork_request(const worker_spawn& spawn);

/// A fresh worker forked by the server for `python` (started, or
/// replaced, if need be). Errors: the server cannot start (e.g. torch does
/// not import; the message says so), or neither it nor its replacement
/// answered.
/// *python_unusable is set when the interpreter itself cannot serve (torch
/// does not import there); that is remembered for ten minutes, so the
/// interpreters tried before the right one cost nothing on later judgments.
result<child_process> fork_reference(const reference_fork_request& req, bool* python_unusable);

/// Whether judgments use the server: not when CUDAL1_REF_SERVER=0.
bool reference_server_enabled();

}  // namespace cudal1
