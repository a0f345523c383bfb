// Not in the corpus (bench/context_attack/run.sh): what the judge does with it is not measured yet.
// Attack idea (2026-12-07, session 27): the candidate's kernel is honest, but at the window's end mark a hook on the
// worker's write() launches a GPU "hog" that runs on while the judge copies the outputs and the reference is timed:
// the two processes' contexts time-slice the GPU, so the reference's window may stretch.
#include <cudal1/abi.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstring>
#include <cstdint>
#include <cuda_runtime.h>
#define HOG_US 3000
__global__ void swish_kernel(const float* x, const float* sc, float* y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    y[i] = v / (1.0f + expf(-v)) * sc[i % cols];
  }
}
__global__ void hog_kernel(unsigned long long ns) {
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 >= ns) break;
  }
}
static cudaStream_t g_hog = nullptr;
static bool g_called = false;
static ssize_t hog_write(int fd, const void* buf, size_t n) {
  ssize_t r = syscall(SYS_write, fd, buf, n);
  if (g_called && HOG_US > 0 && n < 200 && memmem(buf, n, "\"mark\":\"window_end\"", 20)) {
    if (!g_hog) cudaStreamCreateWithFlags(&g_hog, cudaStreamNonBlocking);
    hog_kernel<<<132 * 4, 128, 0, g_hog>>>(HOG_US * 1000ull);
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
    void* hook = std::strcmp(name, "write") == 0 ? reinterpret_cast<void*>(&hog_write) : nullptr;
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
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t n = cudal1_numel(&args[0]);
  swish_kernel<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const float*>(args[0].data),
      static_cast<const float*>(params[0].data), static_cast<float*>(outs[0].data), n, cols);
  g_called = true;
  return 0;
}
