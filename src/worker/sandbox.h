// The candidate worker's sandbox: no network, and writes only to its scratch
// folder (and the device files a GPU needs). Applied by the worker to itself:
// the network before anything else, the filesystem after the device and the
// exchange are open and before the candidate's library is loaded, so even
// its static initializers run inside. CUDAL1_SANDBOX=0 turns both off.
#pragma once

#include <string>

namespace cudal1 {

/// Moves the process into a fresh network namespace (only a loopback device,
/// down). Returns "" on success, else why not (needs root or user namespaces).
std::string isolate_network();

/// Restricts writes (creating, writing, truncating, removing, renaming files
/// anywhere in the filesystem) to `writable_dir` and, for the CUDA backend,
/// the /dev/nvidia* device files, with Landlock. Returns "" on success, else
/// why not (a kernel without Landlock).
std::string restrict_writes(const std::string& writable_dir, bool allow_gpu_devices);

bool sandbox_enabled();

}  // namespace cudal1
