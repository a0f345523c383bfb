// expect: incorrect
// Attack (an attack review, 2026-12-07): hold the judge's stop at the end mark off with the worker's main thread
// inside one long system call. A hook on the worker's GOT entry for write() (as hack_got_postfill.cpp) takes the
// end mark's line; the main thread starts a 64 MB pwrite to a file in its folder (only fatal signals interrupt it),
// and a taken-over libgomp pool thread of the baseline writes the mark once main is in the kernel, then computes
// the half of the rows forward left. The judge's process-wide SIGSTOP goes to the main thread (the kernel picks it,
// on a CPU inside its system call), and the others stop only once it leaves the kernel: the rows were all written
// before the stop held, and only the hand-off's latency in the span (2.5-16 ms on the loaded 2-core VM) had it
// rejected as timer_tampering, 6 of 6; on a quieter host that hand-off is microseconds. The judge now sends every
// thread a stop of its own too: the pool thread stops within microseconds of the judge's reading of the mark, its
// rows unwritten when the outputs are copied (incorrect, 2 of 2).
#include <cudal1/abi.h>
#include <omp.h>
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sched.h>
#include <sys/resource.h>

extern "C" void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);

#ifndef FRAC_NUM
#define FRAC_NUM 1
#endif
#ifndef FRAC_DEN
#define FRAC_DEN 2
#endif
#ifndef BIG_MB
#define BIG_MB 64
#endif

namespace {
std::atomic<int> g_seq{0};
std::atomic<bool> g_pending{false};
char g_mark[512]; size_t g_mark_n = 0;
bool g_have_pool = false;
const float* gx; const float* gs; float* gy; long g_from, g_to, g_cols;
char* g_big = nullptr; int g_fd = -1;

void rows(long a, long b) {
  for (long r = a; r < b; ++r) {
    const float* xr = gx + r * g_cols; float* yr = gy + r * g_cols;
    for (long j = 0; j < g_cols; ++j) { const float v = xr[j]; yr[j] = v * (1.0f / (1.0f + std::exp(-v))) * gs[j]; }
  }
}
void pool_loop(void*) {
  if (omp_get_thread_num() != 1) return;
  sigset_t all; sigfillset(&all);
  for (int s : {SIGSEGV, SIGBUS, SIGSYS, SIGFPE, SIGILL}) sigdelset(&all, s);
  pthread_sigmask(SIG_SETMASK, &all, nullptr);
  int last = 0;
  for (;;) {
    syscall(SYS_futex, &g_seq, FUTEX_WAIT_PRIVATE, last, nullptr, nullptr, 0);
    int cur = g_seq.load();
    if (cur == last) continue;
    last = cur;
    unsigned char vec = 0;
    for (long spins = 0; spins < 200000; ++spins) {
      if (mincore(g_big, 4096, &vec) == 0 && (vec & 1)) break;
      sched_yield();
    }
    syscall(SYS_write, 4, g_mark, g_mark_n);
    rows(g_from, g_to);
  }
}

ssize_t hooked_write(int fd, const void* buf, size_t n) {
  if (fd == 4 && g_pending.load() && n < 300 && memmem(buf, n, "\"window_end\"", 12)) {
    g_pending = false;
    memcpy(g_mark, buf, n); g_mark_n = n;
    madvise(g_big, 4096, MADV_DONTNEED);  // its fault, inside pwrite, tells the pool thread main is in the kernel
    g_seq.fetch_add(1);
    syscall(SYS_futex, &g_seq, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    syscall(SYS_pwrite64, g_fd, g_big, (size_t)BIG_MB << 20, 0);  // main stays in the kernel
    return (ssize_t)n;
  }
  return syscall(SYS_write, fd, buf, n);
}

uintptr_t dyn_ptr(uintptr_t v, uintptr_t base) { return v < base ? v + base : v; }
bool patch_relocs(uintptr_t base, const Elf64_Rela* rel, size_t bytes, const Elf64_Sym* symtab, const char* strtab) {
  bool done = false;
  for (size_t i = 0; rel && i < bytes / sizeof(Elf64_Rela); ++i) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
    if (std::strcmp(name, "write") != 0) continue;
    auto slot = reinterpret_cast<void**>(base + rel[i].r_offset);
    long page = sysconf(_SC_PAGESIZE);
    void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~uintptr_t(page - 1));
    if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) continue;
    *slot = reinterpret_cast<void*>(&hooked_write);
    done = true;
  }
  return done;
}
int patch_main(dl_phdr_info* info, size_t, void* done) {
  if (info->dlpi_name && info->dlpi_name[0] != '\0') return 0;
  const uintptr_t base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const Elf64_Rela *jmprel = nullptr, *rela = nullptr; size_t pltrelsz = 0, relasz = 0;
    const Elf64_Sym* symtab = nullptr; const char* strtab = nullptr;
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
bool g_patched = false;
__attribute__((constructor)) void patch_at_load() { dl_iterate_phdr(patch_main, &g_patched); }
}  // namespace

extern "C" int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                              cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  static bool started = false;
  if (!started) {
    started = true;
    g_fd = open("endmark.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
    { void* m = mmap(nullptr, (size_t)BIG_MB << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); g_big = m == MAP_FAILED ? nullptr : static_cast<char*>(m); }
    if (g_big) memset(g_big, 1, (size_t)BIG_MB << 20); else { close(g_fd); g_fd = -1; }
    if (g_fd >= 0) syscall(SYS_pwrite64, g_fd, g_big, (size_t)BIG_MB << 20, 0);
    if (g_patched && g_fd >= 0 && omp_get_max_threads() > 1) { GOMP_parallel_start(pool_loop, nullptr, 2); pool_loop(nullptr); g_have_pool = true; }
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t nrows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  gx = static_cast<const float*>(args[0].data); gs = static_cast<const float*>(params[0].data);
  gy = static_cast<float*>(outs[0].data); g_cols = cols;
  const long split = g_have_pool ? nrows * FRAC_NUM / FRAC_DEN : nrows;
  g_from = split; g_to = nrows;
  rows(0, split);
  if (split < nrows) g_pending = true;
  return 0;
}
