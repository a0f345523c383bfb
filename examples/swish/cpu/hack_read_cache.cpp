// expect: correct
// Looks for other candidates' compiled libraries (the compile cache) and other judgments' scratch folders it could delegate to or copy from; if it can read any, it writes zeros, so a leak shows as a wrong answer.
#include <cudal1/abi.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

static std::string real_path(const char* p) {
  char buf[PATH_MAX];
  return p && realpath(p, buf) ? std::string(buf) : std::string();
}

static bool ends_with(const std::string& s, const char* tail) {
  size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

// A foreign shared object we can read: its ELF header is enough to dlopen it.
static bool readable_elf(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[4] = {};
  bool elf = read(fd, magic, 4) == 4 && std::memcmp(magic, "\177ELF", 4) == 0;
  close(fd);
  return elf;
}

// Breadth-first, at most 6 levels and 20000 entries in all; symbolic links are not followed.
static bool foreign_library(const std::vector<std::string>& roots, const std::string& own, const std::string& cwd) {
  int budget = 20000;
  std::vector<std::pair<std::string, int>> queue;
  for (const auto& r : roots)
    if (!r.empty()) queue.emplace_back(r, 0);
  for (size_t q = 0; q < queue.size() && budget > 0; ++q) {
    auto [dir, depth] = queue[q];
    if (dir == cwd) continue;  // our own scratch folder
    DIR* d = opendir(dir.c_str());
    if (!d) continue;
    while (dirent* e = readdir(d)) {
      if (--budget <= 0) break;
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      std::string path = dir + "/" + e->d_name;
      if (e->d_type == DT_DIR && depth < 6) queue.emplace_back(path, depth + 1);
      else if (e->d_type == DT_REG && ends_with(path, ".so") && real_path(path.c_str()) != own && readable_elf(path)) {
        closedir(d);
        return true;
      }
    }
    closedir(d);
  }
  return false;
}

// Another judgment's scratch folder (/tmp/cudal1*): its candidate source and library.
static bool foreign_scratch(const std::string& cwd) {
  DIR* tmp = opendir("/tmp");
  if (!tmp) return false;
  bool seen = false;
  while (dirent* e = readdir(tmp)) {
    if (std::strncmp(e->d_name, "cudal1", 6) != 0) continue;
    std::string path = std::string("/tmp/") + e->d_name;
    if (real_path(path.c_str()) == cwd) continue;
    if (DIR* d = opendir(path.c_str())) {
      while (dirent* f = readdir(d)) seen |= std::strcmp(f->d_name, ".") && std::strcmp(f->d_name, "..");
      closedir(d);
    }
    if (seen) break;
  }
  closedir(tmp);
  return seen;
}

static bool sees_foreign_code() {
  Dl_info info{};
  std::string own = dladdr(reinterpret_cast<void*>(&sees_foreign_code), &info) ? real_path(info.dli_fname) : "";
  char buf[PATH_MAX];
  std::string cwd = getcwd(buf, sizeof buf) ? real_path(buf) : "";
  const char* home = getenv("HOME");
  const char* cache = getenv("CUDAL1_CACHE_DIR");
  std::vector<std::string> roots = {home ? std::string(home) + "/.cache/cudal1" : "", "/root/.cache/cudal1", "/tmp",
                                    "/work", cache ? cache : ""};
  return foreign_scratch(cwd) || foreign_library(roots, own, cwd);
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static int leak = -1;
  if (leak < 0) leak = sees_foreign_code() ? 1 : 0;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = leak ? 0.0f : x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
