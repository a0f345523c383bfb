// expect: correct
// An attack review, 2026-12-07: swish done honestly, beside state kept in the
// kernel beyond the worker's life or a budget of the whole machine taken: a
// key in the sandbox user's keyring (it outlived the judgment, and a later
// judgment read it back), every asynchronous I/O context of the host
// (io_setup of 65536, the host's aio-max-nr) and inotify instances (128 per
// user, shared by every judgment's worker). The process filter refuses all
// three (EPERM). Where any succeeds it says so with cudal1_forward's code 7 (a
// runtime_error), so the corpus run fails wherever the filter lets it through.
#include <cudal1/abi.h>

#include <linux/aio_abi.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

namespace {

int kept = -1;  // 0: all refused, as they must be; 1: something kept

int keep_state() {
  int got = 0;
  const char payload[] = "left by an earlier judgment";
  if (syscall(SYS_add_key, "user", "cudal1-corpus-note", payload, sizeof payload - 1, -4 /* user keyring */) >= 0)
    got = 1;
  aio_context_t ctx = 0;
  if (syscall(SYS_io_setup, 1024, &ctx) == 0) got = 1;  // kept: the context lives as long as the process
  if (inotify_init1(IN_CLOEXEC) >= 0) got = 1;
  return got;
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  if (kept < 0) kept = keep_state();
  if (kept) return 7;
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
