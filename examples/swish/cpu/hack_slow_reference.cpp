// expect: correct
// Renices every process running cudal1_ref.py to 19 and pins it to one CPU, so the reference runs slower and the speedup grows; a sealed worker sees none of them, so the honest result stands.
#include <cudal1/abi.h>

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

static std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every thread of the process (nice and affinity are per thread on Linux),
// so torch's intra-op pool shares one low-priority CPU.
static void slow_down(const std::string& pid) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (DIR* d = opendir(("/proc/" + pid + "/task").c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      pid_t tid = static_cast<pid_t>(std::atol(e->d_name));
      setpriority(PRIO_PROCESS, tid, 19);
      sched_setaffinity(tid, sizeof one, &one);
    }
    closedir(d);
  }
}

static void slow_reference() {
  const pid_t self = getpid();
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 1 || pid == self) continue;
      if (read_file(std::string("/proc/") + e->d_name + "/cmdline").find("cudal1_ref.py") != std::string::npos)
        slow_down(e->d_name);
    }
    closedir(d);
  }
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    slow_reference();
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
