// expect: incorrect
// The CUDA form of ../cpu/hack_got_prefill.cpp: the hooks launch the rows' kernel and wait for it.
// Attack (an attack review, 2026-12-06): a static constructor patches the native worker's GOT entries for write()
// and opendir(). When the worker writes its window's mark, the write hook computes every row of the call from the
// inputs staged in the exchange (their addresses are in the worker's args_/outs_ storage, which the first call
// showed), before the worker's clock starts; cudal1_forward then has nothing left to do. The opendir hook makes the
// worker's own census after each call fail fast, which frees as much request time as the rows take, so its
// requests and main-thread CPU time outside the window stayed within the probes': judged correct at 614-653x,
// re-checks passed, against 2.3-2.5x for the same kernel in cudal1_forward on the 2-core VM. The inputs are now
// staged in the pause at the window's mark, with the worker stopped: before the mark the arena holds an older
// call's inputs, and the sentinels staged after it leave every row unwritten.
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
#include <cuda_runtime.h>
#include <cstdint>
__global__ void swish_rows_kernel(const float* x, const float* sc, float* y, int64_t r0, int64_t r1, int64_t cols) {
  const int64_t n = (r1 - r0) * cols;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t at = r0 * cols + i;
    const float v = x[at];
    y[at] = v / (1.0f + expf(-v)) * sc[at % cols];
  }
}
// Rows [r0, r1) on the device, waited for (on the legacy stream: the worker's own synchronizes the device).
static void swish_rows(const float* x, const float* sc, float* y, int64_t r0, int64_t r1, int64_t cols) {
  if (r1 <= r0) return;
  swish_rows_kernel<<<1024, 256>>>(x, sc, y, r0, r1, cols);
  cudaDeviceSynchronize();
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

static DIR* lean_opendir(const char* path) {
  if (g_args && path && std::strncmp(path, "/proc/", 6) == 0) {  // after the first call: the census's listings
    errno = EACCES;
    return nullptr;
  }
  return opendir(path);
}

static ssize_t prefill_write(int fd, const void* buf, size_t n) {
  if (fd == 4 && n < 200 && memmem(buf, n, "\"mark\":\"window\"", 15)) prefill();
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
