// The reference server: one long-lived Python per interpreter that has
// imported torch and forks a fresh reference worker per judgment, so a
// judgment does not pay torch's import (4.7 s measured on the H200 machine).
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

#include <string>
#include <vector>

#include "base/result.h"
#include "base/subprocess.h"

namespace cudal1 {

struct reference_fork_request {
  std::string python;               // interpreter path
  std::string script;               // cudal1_ref.py
  std::string log_path;             // the worker's stdout and stderr
  std::vector<std::string> env;     // "NAME=value" added to the worker's (and server's) environment
  double start_timeout_s = 180;     // a cold server imports torch first
  bool use_remembered = true;       // skip an interpreter remembered as without torch
};

/// A fresh reference worker forked by the server for `python` (started, or
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
