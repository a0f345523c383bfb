// expect: correct
// An attack review, 2026-12-07: swish done honestly, but memory held where no
// bound of the worker's reaches it: memfds (and System V segments), whose pages
// count in no address-space limit until mapped and are not in the worker's
// tmpfs. 250 MiB each, up to the open-file limit, held 2 GiB beside an honest
// kernel, and in a memory-capped group the OOM killer took an honest judgment
// running beside it instead (3 of 3). The process filter refuses both calls
// now (EPERM), so this candidate holds nothing and is judged on its honest work.
// Where either call succeeds it says so with cudal1_forward's code 7 (a
// runtime_error), so the corpus run fails wherever the filter lets it through.
#include <cudal1/abi.h>

#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cmath>

namespace {

int held = -1;  // 0: refused, as it must be; 1: memory held

int hold_memory() {
  int got = 0;
  const int fd = memfd_create("hold", 0);
  if (fd >= 0) {
    if (fallocate(fd, 0, 0, 64 << 20) == 0) got = 1;  // kept open: held
  }
  const int seg = shmget(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0600);
  if (seg >= 0) got = 1;
  return got;
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  if (held < 0) held = hold_memory();
  if (held) return 7;
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
