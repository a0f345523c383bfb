// What a call left running in a worker's process: threads not in a
// baseline, child processes. Read from /proc: by the native worker and the
// seal library the Python candidate worker loads, each of itself
// ("/proc/self"), and by the judge of the worker from outside it
// ("/proc/PID", which the candidate's code cannot blind).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudal1 {

/// A /proc file's whole text, read with plain system calls; nullopt where it
/// cannot be opened or read. A thread of the worker can end between the
/// listing of its threads and the read of its files, and the read then fails
/// with ESRCH: an iostream over it threw from inside the judge, which ended
/// without a verdict (an attack review, 2026-12-07: a candidate whose helper
/// thread ended as the judge stopped the worker, 4 judgments of 4).
std::optional<std::string> read_proc_file(const std::string& path);

/// The thread ids of the process whose /proc folder is `proc`.
std::set<std::string> list_threads(const std::string& proc = "/proc/self");
/// A thread's state letter from its stat ('R', 'S', 'T', 'Z', ...); '?'
/// when it cannot be read (gone).
char thread_state(const std::string& tid, const std::string& proc = "/proc/self");
/// Whether a thread still runs: not gone, not a zombie, not exiting (a thread
/// the call joined may still be listed for a moment, with PF_EXITING set).
bool thread_running(const std::string& tid, const std::string& proc = "/proc/self");
/// A thread's name (comm).
std::string thread_name(const std::string& tid, const std::string& proc = "/proc/self");
/// Threads running now that are not in `baseline`, as "name (tid)".
std::vector<std::string> new_threads(const std::set<std::string>& baseline, const std::string& proc = "/proc/self");
/// The process's children (the worker starts none of its own).
std::vector<std::string> child_processes(const std::string& proc = "/proc/self");

}  // namespace cudal1
