#include "base/fs.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>
#include <fstream>
#include <sstream>

namespace cudal1 {

namespace fs = std::filesystem;

result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

file_lock::file_lock(const std::string& path, double wait_s)
    : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (fd_ >= 0 && !(held_ = flock(fd_, LOCK_EX | LOCK_NB) == 0) && std::chrono::steady_clock::now() < deadline)
    usleep(2000);
}

file_lock::~file_lock() {
  if (fd_ >= 0) close(fd_);  // closing releases the lock
}

status write_file_atomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return make_error("cannot write " + tmp + ": " + std::strerror(errno));
    out << contents;
    if (!out.flush()) return make_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return make_error("cannot rename " + tmp + " to " + path + ": " + why);
  }
  return ok_status();
}

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool is_executable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

status make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return make_error("cannot create directory " + path + ": " + ec.message());
  return ok_status();
}

result<std::string> make_temp_dir(const std::string& prefix) {
  std::string base = env_or("TMPDIR", "/tmp");
  std::string templ = base + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    return make_error("cannot create a temporary directory in " + base + ": " + std::strerror(errno));
  return std::string(buf.data());
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

namespace {

constexpr const char* kTmpfsSource = "cudal1-sandbox-";  // then the PID of the judge that mounted it

// The mounts of judges that are gone (killed before they could unmount:
// SIGKILL, the OOM killer), detached and their folders removed. Once per
// process, before its first mount.
void sweep_stale_tmpfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::ifstream in("/proc/self/mountinfo");
    std::string line;
    std::vector<std::string> stale;
    while (std::getline(in, line)) {
      // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER
      std::istringstream f(line);
      std::string id, parent, dev, root, point, word, fstype, source;
      f >> id >> parent >> dev >> root >> point;
      while (f >> word && word != "-") {
      }
      f >> fstype >> source;
      if (fstype != "tmpfs" || source.rfind(kTmpfsSource, 0) != 0) continue;
      const long pid = std::strtol(source.c_str() + std::strlen(kTmpfsSource), nullptr, 10);
      if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) stale.push_back(point);
    }
    for (const auto& point : stale) {
      if (umount2(point.c_str(), MNT_DETACH) == 0) remove_tree(point);
    }
  });
}

}  // namespace

std::string mount_bounded_tmpfs(const std::string& dir, uint64_t bytes, uint64_t files) {
  if (geteuid() != 0) return "not root";
  if (env_or("CUDAL1_SANDBOX_DISK", "1") == "0") return "CUDAL1_SANDBOX_DISK=0";
  sweep_stale_tmpfs();
  const std::string opts = "size=" + std::to_string(bytes) + ",nr_inodes=" + std::to_string(files) + ",mode=0700";
  const std::string source = kTmpfsSource + std::to_string(getpid());
  if (mount(source.c_str(), dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, opts.c_str()) != 0)
    return std::string("mount tmpfs: ") + std::strerror(errno);
  return "";
}

void unmount_tmpfs(const std::string& dir) { umount2(dir.c_str(), MNT_DETACH); }

std::string describe_bounded_tmpfs(uint64_t bytes, uint64_t files) {
  return "own tmpfs of " + std::to_string(bytes >> 20) + " MiB and " + std::to_string(files) + " files";
}

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return exe.parent_path().string();
}

result<std::string> data_dir() {
  std::string from_env = env_or("CUDAL1_DATA_DIR", "");
  if (!from_env.empty()) {
    if (file_exists(from_env + "/include/cudal1/abi.h")) return from_env;
    return make_error("CUDAL1_DATA_DIR=" + from_env + " holds no include/cudal1/abi.h");
  }
  std::string dir = fs::weakly_canonical(fs::path(executable_dir()) / ".." / "share" / "cudal1").string();
  if (file_exists(dir + "/include/cudal1/abi.h")) return dir;
  return make_error("cudal1's data folder is missing (looked for " + dir +
                    "); build or install cudal1 again, or set CUDAL1_DATA_DIR");
}

std::string find_in_path(const std::string& name) {
  std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string full = dir + "/" + name;
    if (is_executable(full)) return full;
  }
  return "";
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : fallback;
}

std::string judged_cuda_device() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v) return "0";
  std::string first(v, std::strcspn(v, ","));
  while (!first.empty() && first.back() == ' ') first.pop_back();
  while (!first.empty() && first.front() == ' ') first.erase(0, 1);
  return first;  // empty where the judge was given no device: the worker finds none either
}

std::string tail_lines(const std::string& text, int max_lines) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  size_t pos = t.size();
  int lines = 0;
  while (pos > 0) {
    size_t nl = t.rfind('\n', pos - 1);
    if (nl == std::string::npos) return t;
    if (++lines == max_lines) return "...\n" + t.substr(nl + 1);
    pos = nl;
  }
  return t;
}

}  // namespace cudal1
