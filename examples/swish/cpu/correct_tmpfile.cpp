// expect: correct
// Honest: swish, writing a line to a log in $TMPDIR on its first call, as
// instrumented kernels do. The worker's folder is its TMPDIR, but the judge's
// scratch folder above it is closed to the worker's user: with TMPDIR set to
// the folder's absolute path the open failed (EACCES) and this kernel was
// judged a runtime error (a false-rejection review, 2026-12-07).
#include <cudal1/abi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  static bool logged = false;
  if (!logged) {
    const char* dir = std::getenv("TMPDIR");
    const std::string path = std::string(dir ? dir : "/tmp") + "/swish-kernel.log";
    FILE* log = std::fopen(path.c_str(), "a");
    if (!log) return 9;
    std::fprintf(log, "swish: first call\n");
    std::fclose(log);
    logged = true;
  }
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  const float* scale = static_cast<const float*>(params[0].data);
  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = static_cast<const float*>(x.data) + i * cols;
    float* yr = static_cast<float*>(outs[0].data) + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = xr[j];
      yr[j] = v * (1.0f / (1.0f + std::exp(-v))) * scale[j];
    }
  }
  return 0;
}
