// What a call left running in the worker's process: threads not in a
// baseline, child processes. Shared by the native worker and the seal
// library the Python candidate worker loads.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace cudal1 {

/// The thread ids of this process (/proc/self/task).
std::set<std::string> list_threads();
/// Whether a thread still runs: not gone, not a zombie, not exiting (a thread
/// the call joined may still be listed for a moment, with PF_EXITING set).
bool thread_running(const std::string& tid);
/// A thread's name (comm).
std::string thread_name(const std::string& tid);
/// Threads running now that are not in `baseline`, as "name (tid)".
std::vector<std::string> new_threads(const std::set<std::string>& baseline);
/// The process's children (the worker starts none of its own).
std::vector<std::string> child_processes();

}  // namespace cudal1
