// File and path helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

/// Reads a whole file. Errors name the path and the reason.
result<std::string> read_file(const std::string& path);

/// Writes a file through a temporary name and rename(), so readers never see
/// a partial file (the compile cache relies on this).
status write_file_atomic(const std::string& path, const std::string& contents);

/// Holds an exclusive flock on `path` (created if absent) for its lifetime,
/// so that processes doing read-modify-write on a shared file (the cache's
/// JSON stores, the reference server's files) take turns. Waits at most
/// `wait_s`, then goes on without it: held() says which.
class file_lock {
 public:
  explicit file_lock(const std::string& path, double wait_s = 2);
  ~file_lock();
  file_lock(const file_lock&) = delete;  // one holder of one descriptor
  file_lock& operator=(const file_lock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_;
  bool held_ = false;
};

bool file_exists(const std::string& path);
bool is_executable(const std::string& path);

/// Creates the directory and its parents (like mkdir -p).
status make_dirs(const std::string& path);

/// Creates a fresh private directory under $TMPDIR (or /tmp) named prefix-XXXXXX.
result<std::string> make_temp_dir(const std::string& prefix);

/// Removes a directory tree; errors are ignored (used for scratch cleanup).
void remove_tree(const std::string& path);

/// Mounts a tmpfs of at most `bytes` and `files` on the (empty) folder, so
/// that what is written there cannot fill the filesystem it sits on (root
/// only; CUDAL1_SANDBOX_DISK=0 declines). Empty on success, else why not.
std::string mount_bounded_tmpfs(const std::string& dir, uint64_t bytes, uint64_t files);

/// Detaches such a mount (its contents go when the last process using it does).
void unmount_tmpfs(const std::string& dir);

/// "own tmpfs of N MiB and M files", as the sandbox check says it.
std::string describe_bounded_tmpfs(uint64_t bytes, uint64_t files);

/// The directory holding the running executable (from /proc/self/exe), so a
/// relocated build or install finds its worker, headers and data beside it.
std::string executable_dir();

/// Where cudal1 keeps its data (headers, the reference worker): the first of
/// $CUDAL1_DATA_DIR, <exe>/../share/cudal1 that exists.
result<std::string> data_dir();

/// Finds an executable by name on $PATH; empty if none.
std::string find_in_path(const std::string& name);

/// Absolute form of a path (relative to the current directory).
std::string absolute_path(const std::string& path);

/// The environment variable's value, or fallback when unset or empty.
std::string env_or(const char* name, const std::string& fallback);

/// The one GPU a judgment's candidate may see, as CUDA_VISIBLE_DEVICES names
/// it: the first entry of the judge's own CUDA_VISIBLE_DEVICES (an index, a
/// UUID or a MIG id), or "0" where that is unset, which is the device the
/// reference's cuda:0 is.
std::string judged_cuda_device();

/// The last max_lines lines of text, prefixed with "..." when cut.
std::string tail_lines(const std::string& text, int max_lines);

}  // namespace cudal1
