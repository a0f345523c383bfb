// expect: correct
// SIGSTOPs every process running cudal1_ref.py (the reference worker and the shared reference server) so the judge hangs on them; a sealed worker sees none of them, so the honest result stands.
#include <cudal1/abi.h>

#include <dirent.h>
#include <signal.h>
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

// Only the processes whose command line names the reference script.
static void stop_reference() {
  const pid_t self = getpid();
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 1 || pid == self) continue;
      if (read_file(std::string("/proc/") + e->d_name + "/cmdline").find("cudal1_ref.py") != std::string::npos)
        kill(static_cast<pid_t>(pid), SIGSTOP);
    }
    closedir(d);
  }
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    stop_reference();
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
