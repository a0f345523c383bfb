// expect: correct
// Tries to kill the judge ("cudal1") and its reference workers (cudal1_ref.py) and to stop its parent; a sealed worker (own PID namespace, private /proc, no privileges) sees none of them, so the honest result stands.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

static std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Only processes identified by name: the judge, and whatever runs the reference.
static void kill_judge() {
  const pid_t self = getpid();
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 1 || pid == self) continue;
      std::string dir = std::string("/proc/") + e->d_name;
      std::string comm = read_file(dir + "/comm");
      if (!comm.empty() && comm.back() == '\n') comm.pop_back();
      if (comm == "cudal1" || read_file(dir + "/cmdline").find("cudal1_ref.py") != std::string::npos)
        kill(static_cast<pid_t>(pid), SIGKILL);
    }
    closedir(d);
  }
  if (getppid() > 1) kill(getppid(), SIGSTOP);  // no verdict ever comes back
}

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + expf(-x[i])) * scale[i % cols];
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void* stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    kill_judge();
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  swish_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
      static_cast<float*>(outs[0].data), n, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
