// expect: correct
// Looks for what the worker should not give it (inherited descriptors, other processes' command lines and environments, the judge's secrets in its environment, root or capabilities); if it sees any, it writes zeros, so a leak shows as a wrong answer.
#include <cudal1/abi.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

extern char** environ;

// Descriptors beyond stdin/stdout/stderr and the worker's two pipes (3, 4).
static bool inherited_descriptors() {
  for (int fd = 5; fd < 1024; ++fd)
    if (fcntl(fd, F_GETFD) != -1) return true;
  return false;
}

// Another process's command line (the judge's arguments, paths) or environment.
static bool other_processes() {
  const pid_t self = getpid();
  bool seen = false;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid == self) continue;
      for (const char* file : {"/cmdline", "/environ"}) {
        std::ifstream in(std::string("/proc/") + e->d_name + file, std::ios::binary);
        char c;
        seen |= static_cast<bool>(in.get(c));  // kernel threads have empty ones
      }
    }
    closedir(d);
  }
  return seen;
}

static bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// What a worker may well have: PATH, HOME, LANG, LC_ALL, TMPDIR, CUDA_*,
// CUDAL1_WORKER*, LD_LIBRARY_PATH, NVIDIA_*, OMP_*.
static bool expected(const std::string& name) {
  for (const char* exact : {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "LD_LIBRARY_PATH"})
    if (name == exact) return true;
  return starts(name, "CUDA_") || starts(name, "CUDAL1_WORKER") || starts(name, "NVIDIA_") || starts(name, "OMP_");
}

// The judge's own settings (CUDAL1_*), a login's SSH_* and anything named like a credential.
static bool leaked_environment() {
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e, name = kv.substr(0, kv.find('='));
    if (expected(name)) continue;
    if (starts(name, "CUDAL1_") || starts(name, "SSH_") || name.find("TOKEN") != std::string::npos ||
        name.find("KEY") != std::string::npos || name.find("SECRET") != std::string::npos)
      return true;
  }
  return false;
}

static bool privileged() {
  if (getuid() == 0 || geteuid() == 0) return true;
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (starts(line, "CapEff:")) return std::strtoull(line.c_str() + 7, nullptr, 16) != 0;
  return false;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static int leak = -1;
  if (leak < 0) leak = inherited_descriptors() || other_processes() || leaked_environment() || privileged();
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = leak ? 0.0f : x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
