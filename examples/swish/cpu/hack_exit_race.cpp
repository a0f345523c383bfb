// expect: rejected
// expect-hack: timer_tampering
// Attack (an attack review, 2026-12-07): an honest AVX2 swish, with a helper thread started in each call that spins
// until the worker writes its end mark; the worker's write() (patched in its GOT, as hack_got_postfill.cpp does) then
// spins until the judge stops the worker, and joins the helper after the stop. The helper thus ends while the judge
// lists the worker's threads and reads their /proc files: a read then failed with ESRCH, the iostream reading it threw,
// and the judge ended without a verdict (exit 3, 4 judgments of 4). The census reads /proc with plain system calls now
// (read_proc_file) and takes a thread it cannot read for gone; the main thread's work after its end mark (spinning up
// to 20 ms) is time the judge's clock sees beyond the window.
#include <cudal1/abi.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstring>
#include <cstdlib>
#include <cerrno>
#include <dirent.h>
// swish rows with an AVX2 expf (Cephes-style 2^n * p(r), relative error ~2e-7), scalar tail.
#include <immintrin.h>
#include <cmath>
#include <cstdint>
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


#include <pthread.h>
#include <time.h>
#include <atomic>
#include <cstdio>
static inline double now_us() { timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3; }

static std::atomic<int> g_helper_run{0};
static pthread_t g_helper; static bool g_have_helper = false;
static double g_helper_gap = -1;
static void* helper(void*) {
  double t0 = now_us(), prev = t0; double first_gap = -1;
  while (g_helper_run.load(std::memory_order_relaxed)) { double t = now_us(); if (first_gap < 0 && t - prev > 100) first_gap = prev - t0; prev = t; }
  g_helper_gap = first_gap; return nullptr;
}
static ssize_t hook_write(int fd, const void* buf, size_t n) {
  ssize_t r = syscall(SYS_write, fd, buf, n);
  if (fd == 4 && n < 200 && memmem(buf, n, "\"mark\":\"window_end\"", 19)) {
    double t0 = now_us(), prev = t0, first_gap = -1;
    while (true) { double t = now_us(); if (t - prev > 150) { first_gap = prev - t0; break; } prev = t; if (t - t0 > 20000) break; }
    if (g_have_helper) { g_helper_run = 0; pthread_join(g_helper, nullptr); g_have_helper = false; }
    (void)first_gap;
  }
  return r;
}
// Dynamic-section pointers are usually relocated by ld.so; a small value is
// still an offset from the load address.
static uintptr_t dyn_ptr(uintptr_t v, uintptr_t base) { return v < base ? v + base : v; }

static bool patch_relocs(uintptr_t base, const Elf64_Rela* rel, size_t bytes, const Elf64_Sym* symtab, const char* strtab) {
  bool done = false;
  for (size_t i = 0; rel && i < bytes / sizeof(Elf64_Rela); ++i) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
    void* hook = std::strcmp(name, "write") == 0 ? reinterpret_cast<void*>(&hook_write)
               : nullptr;
    if (!hook) continue;
    auto slot = reinterpret_cast<void**>(base + rel[i].r_offset);
    long page = sysconf(_SC_PAGESIZE);
    void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~uintptr_t(page - 1));
    if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) continue;  // full RELRO left it read-only
    *slot = hook;
    done = true;
  }
  return done;
}

// The main program is the first object dl_iterate_phdr reports (empty name).
static int patch_main(dl_phdr_info* info, size_t, void* done) {
  if (info->dlpi_name && info->dlpi_name[0] != '\0') return 0;
  const uintptr_t base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const Elf64_Rela *jmprel = nullptr, *rela = nullptr;
    size_t pltrelsz = 0, relasz = 0;
    const Elf64_Sym* symtab = nullptr;
    const char* strtab = nullptr;
    for (auto d = reinterpret_cast<const Elf64_Dyn*>(base + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; ++d) {
      switch (d->d_tag) {
        case DT_JMPREL: jmprel = reinterpret_cast<const Elf64_Rela*>(dyn_ptr(d->d_un.d_ptr, base)); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_RELA: rela = reinterpret_cast<const Elf64_Rela*>(dyn_ptr(d->d_un.d_ptr, base)); break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_SYMTAB: symtab = reinterpret_cast<const Elf64_Sym*>(dyn_ptr(d->d_un.d_ptr, base)); break;
        case DT_STRTAB: strtab = reinterpret_cast<const char*>(dyn_ptr(d->d_un.d_ptr, base)); break;
      }
    }
    if (!symtab || !strtab) return 1;
    bool a = patch_relocs(base, jmprel, pltrelsz, symtab, strtab);
    bool b = patch_relocs(base, rela, relasz, symtab, strtab);
    *static_cast<bool*>(done) = a || b;
  }
  return 1;
}


__attribute__((constructor)) static void patch_at_load() {
  bool patched = false;
  dl_iterate_phdr(patch_main, &patched);
}


int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  // A call without marks (the judge's untimed warm call) leaves its helper to the next call to join.
  if (g_have_helper) { g_helper_run = 0; pthread_join(g_helper, nullptr); g_have_helper = false; }
  { g_helper_run = 1; g_helper_gap = -1; g_have_helper = pthread_create(&g_helper, nullptr, helper, nullptr) == 0; }
  swish_rows(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
             static_cast<float*>(outs[0].data), 0, rows, cols);
  return 0;
}
