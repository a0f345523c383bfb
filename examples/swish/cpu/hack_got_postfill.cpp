// expect: incorrect
// Attack (2026-12-06, after hack_got_prefill.cpp): the same GOT hooks, but the rows are computed after the window's
// end mark, by the opendir hook as the worker's own census starts, into the outputs the window left unwritten; the
// census itself fails fast, so the worker's requests outside the window take no longer than the probes'. The
// reference's process now copies a native library's outputs at the end mark, with the worker stopped, and the call
// is checked on that copy: every row is unwritten.
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

static const cudal1_tensor* g_args = nullptr;
static const cudal1_tensor* g_params = nullptr;
static cudal1_tensor* g_outs = nullptr;
static int64_t g_done_rows = -1;  // rows the hook computed for the coming call

static void prefill() {
  if (!g_args) return;
  const int64_t cols = g_args[0].shape[g_args[0].ndim - 1];
  const int64_t rows = cudal1_numel(&g_args[0]) / cols;
  const int64_t h = rows;
  swish_rows(static_cast<const float*>(g_args[0].data), static_cast<const float*>(g_params[0].data),
             static_cast<float*>(g_outs[0].data), 0, h, cols);
  g_done_rows = h;
}

static bool g_post_done = false;
static DIR* lean_opendir(const char* path) {
  if (g_args && path && std::strncmp(path, "/proc/", 6) == 0) {  // after the first call: the census's listings
    if (!g_post_done) {  // after the window's end mark: the rows the window skipped
      prefill();
      g_post_done = true;
    }
    errno = EACCES;
    return nullptr;
  }
  return opendir(path);
}

static ssize_t prefill_write(int fd, const void* buf, size_t n) {
  if (fd == 4 && n < 200 && memmem(buf, n, "\"mark\":\"window\"", 15)) g_post_done = false;
  return syscall(SYS_write, fd, buf, n);
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
    void* hook = std::strcmp(name, "write") == 0 ? reinterpret_cast<void*>(&prefill_write)
               : std::strcmp(name, "opendir") == 0 ? reinterpret_cast<void*>(&lean_opendir) : nullptr;
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
  // Only when the hook ran for this very call (same vectors): else do it all.
  int64_t from = (g_args == args && g_outs == outs && g_params == params && g_done_rows >= 0) ? g_done_rows : 0;
  swish_rows(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
             static_cast<float*>(outs[0].data), from, rows, cols);
  g_args = args; g_params = params; g_outs = outs; g_done_rows = -1;
  return 0;
}
