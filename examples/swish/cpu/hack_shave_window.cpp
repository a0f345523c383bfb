// expect: rejected
// expect-hack: timer_tampering
// expect-forged-ratio: 1.1
// Attack (an attack review, 2026-12-06): an honest AVX2 swish done in full inside the call, then the worker's stored
// start time (a steady_clock count in its heap, found as hack_move_start.cpp finds it) moved forward by 40 us, so a
// ~0.1 ms window reports ~0.06 ms. Far inside the requests' noise, and before the fix inside four standard deviations
// of the probes' span slack pooled over every probe length: a 20 us shave's window stood every time, at 3.2-4.8x
// against 2.4-2.9x for the same kernel honest, a 40 us one's in 2 of 5 judgments (4.0-4.3x). The window's span check
// now compares the calls' median slack with the probes' of a like span, the lower of those before the candidate
// loaded and after its calls, by two standard errors of the medians' difference (at least 0.01 ms): the span
// disagrees and every call is counted from the span (not rejected: on the CPU the span shows the window short by
// less than the requests' grey zone). A 20 us shave still stood in 1 of 6 judgments on a busy VM (the tolerance
// reached 0.028 ms): docs/judge.md, "Not defended yet".
#include <cudal1/abi.h>
#define SHAVE_NS 40000
// swish rows with an AVX2 expf (Cephes-style 2^n * p(r), relative error ~2e-7), scalar tail.
#include <immintrin.h>
#include <cmath>
#include <cstdint>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>
static int64_t monotonic_ns() { timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec; }
static std::vector<int64_t*> g_found;
static bool read_chunk(uintptr_t addr, size_t len, int64_t* buf) {
  iovec local{buf, len}, remote{reinterpret_cast<void*>(addr), len};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (n == static_cast<ssize_t>(len)) return true;
  if (n < 0 && (errno == ENOSYS || errno == EPERM)) { std::memcpy(buf, reinterpret_cast<const void*>(addr), len); return true; }
  return false;
}
static void scan(int64_t lo, int64_t hi) {
  g_found.clear();
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  std::vector<std::pair<uintptr_t, uintptr_t>> regions;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long start, end, offset, inode; char perms[8], dev[16], path[256] = "";
    if (std::sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &start, &end, perms, &offset, dev, &inode, path) < 6) continue;
    if (std::strcmp(perms, "rw-p") != 0) continue;
    if (path[0] != '\0' && std::strcmp(path, "[heap]") != 0) continue;
    regions.emplace_back(start, end);
  }
  std::fclose(maps);
  constexpr size_t kChunk = 1 << 16;
  std::vector<int64_t> buf(kChunk / 8);
  for (auto [start, end] : regions)
    for (uintptr_t a = start; a < end; a += kChunk) {
      size_t len = std::min<uintptr_t>(kChunk, end - a);
      if (!read_chunk(a, len, buf.data())) continue;
      for (size_t i = 0; i < len / 8; ++i) if (buf[i] >= lo && buf[i] <= hi) g_found.push_back(reinterpret_cast<int64_t*>(a) + i);
    }
}
static void shave(int64_t t_entry) {
  const int64_t lo = t_entry - 5000000, hi = t_entry;
  bool hit = false;
  for (int64_t* p : g_found) hit |= *p >= lo && *p <= hi;
  if (!hit) scan(lo, hi);
  const int64_t now = monotonic_ns();
  for (int64_t* p : g_found)
    if (*p >= lo && *p <= hi) { int64_t len = now - *p; int64_t cut = SHAVE_NS; if (cut > len - 5000) cut = len - 5000; if (cut > 0) *p += cut; }
}

static inline __m256 exp256(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500E-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894E-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459E-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201E-1f));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
static void swish_rows(const float* x, const float* sc, float* y, int64_t r0, int64_t r1, int64_t cols) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  for (int64_t i = r0; i < r1; ++i) {
    const float* xr = x + i * cols;
    float* yr = y + i * cols;
    int64_t j = 0;
    for (; j + 8 <= cols; j += 8) {
      __m256 v = _mm256_loadu_ps(xr + j);
      __m256 e = exp256(_mm256_sub_ps(zero, v));
      __m256 o = _mm256_mul_ps(_mm256_div_ps(v, _mm256_add_ps(one, e)), _mm256_loadu_ps(sc + j));
      _mm256_storeu_ps(yr + j, o);
    }
    for (; j < cols; ++j) yr[j] = xr[j] / (1.0f + std::exp(-xr[j])) * sc[j];
  }
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void*) {
  const int64_t t_entry = monotonic_ns();
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  swish_rows(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
             static_cast<float*>(outs[0].data), 0, rows, cols);
  shave(t_entry);
  return 0;
}
