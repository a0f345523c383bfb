// The candidate worker's sandbox: no network, and writes only to its scratch
// folder (and the device files a GPU needs). Applied by the worker to itself:
// the network before anything else, the filesystem after the device and the
// exchange are open and before the candidate's library is loaded, so even
// its static initializers run inside. CUDAL1_SANDBOX=0 turns both off.
#pragma once

#include <string>
#include <vector>

namespace cudal1 {

/// Moves the process into a fresh network namespace (only a loopback device,
/// down). Returns "" on success, else why not (needs root or user namespaces).
std::string isolate_network();

/// Restricts writes (creating, writing, truncating, removing, renaming files
/// anywhere in the filesystem) to `writable_dir` and, for the CUDA backend,
/// the /dev/nvidia* device files, with Landlock. Returns "" on success, else
/// why not (a kernel without Landlock).
std::string restrict_writes(const std::string& writable_dir, bool allow_gpu_devices);

/// Forbids starting processes: fork, vfork, execve, execveat and clone
/// without CLONE_THREAD fail with EPERM (threads stay allowed; clone3 fails
/// with ENOSYS so the C library falls back to clone, whose flags a seccomp
/// filter can read). Bounds processes for root too, where RLIMIT_NPROC does
/// not. Each attempt is recorded for process_attempts(). Returns "" on
/// success, else why not.
std::string forbid_processes();

/// The forbidden calls attempted since the last call ("fork", "execve",
/// "clone"), and forgets them.
std::vector<std::string> process_attempts();

bool sandbox_enabled();

}  // namespace cudal1
