// expect: rejected
// expect-hack: timer_tampering
// expect-forged-ratio: 1.12
// The work of correct.cpp, then the worker's stored start time moved (as
// hack_move_start.cpp) by an amount that follows a fixed 25-call cycle: 40%
// of the calls report 0.1 ms longer than they took, 20% 0.2 ms shorter, 40%
// 0.5 ms shorter. The median window drops by 0.2 ms (1.5x on the CPU
// profile) while the spread of the calls' excess over the judge's clock,
// ten times the probes', would widen the clock check's tolerance over the
// shift: the check counts a candidate's spread at most 3 times the probes'.
#include <cudal1/abi.h>

#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#ifndef M_MS
#define M_MS 0.20
#endif
#ifndef A_MS
#define A_MS 0.10
#endif
#ifndef B_MS
#define B_MS 0.50
#endif

static int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

static std::vector<int64_t*> g_found;

static bool read_chunk(uintptr_t addr, size_t len, int64_t* buf) {
  iovec local{buf, len}, remote{reinterpret_cast<void*>(addr), len};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n == static_cast<ssize_t>(len)) return true;
  if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
    std::memcpy(buf, reinterpret_cast<const void*>(addr), len);
    return true;
  }
  return false;
}

static void scan(int64_t lo, int64_t hi) {
  g_found.clear();
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  std::vector<std::pair<uintptr_t, uintptr_t>> regions;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long start, end, offset, inode;
    char perms[8], dev[16], path[256] = "";
    if (std::sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &start, &end, perms, &offset, dev, &inode, path) < 6)
      continue;
    if (std::strcmp(perms, "rw-p") != 0) continue;
    if (path[0] != '\0' && std::strcmp(path, "[heap]") != 0) continue;
    regions.emplace_back(start, end);
  }
  std::fclose(maps);
  constexpr size_t kChunk = 1 << 16;
  std::vector<int64_t> buf(kChunk / 8);
  for (auto [start, end] : regions) {
    for (uintptr_t a = start; a < end; a += kChunk) {
      size_t len = std::min<uintptr_t>(kChunk, end - a);
      if (!read_chunk(a, len, buf.data())) continue;
      for (size_t i = 0; i < len / 8; ++i)
        if (buf[i] >= lo && buf[i] <= hi) g_found.push_back(reinterpret_cast<int64_t*>(a) + i);
    }
  }
}

// 25-call cycle: 10 x A (longer), 5 x M, 10 x B, interleaved.
static const char kPattern[] = "AMBABMBABAMBABMABABMBABAB";
static unsigned g_call = 0;

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t t_entry = monotonic_ns();
  const cudal1_tensor& x = args[0];
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cudal1_numel(&x) / cols;
  const float* scale = static_cast<const float*>(params[0].data);
  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = static_cast<const float*>(x.data) + i * cols;
    float* yr = static_cast<float*>(outs[0].data) + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = xr[j];
      yr[j] = v * (1.0f / (1.0f + std::exp(-v))) * scale[j];
    }
  }
  const int64_t lo = t_entry - 5000000, hi = t_entry;
  bool hit = false;
  for (int64_t* p : g_found) hit |= *p >= lo && *p <= hi;
  if (!hit) scan(lo, hi);
  char g = kPattern[g_call++ % (sizeof kPattern - 1)];
  double shift_ms = g == 'A' ? -A_MS : g == 'M' ? M_MS : B_MS;
  const int64_t now = monotonic_ns();
  for (int64_t* p : g_found)
    if (*p >= lo && *p <= hi) {
      int64_t moved = *p + int64_t(shift_ms * 1e6);
      if (moved > now - 10000) moved = now - 10000;  // never report under ~0.01 ms
      *p = moved;
    }
  return 0;
}
