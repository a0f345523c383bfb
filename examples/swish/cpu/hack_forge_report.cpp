// expect: rejected
// expect-hack: timer_tampering
// Does the work honestly, but patches the worker's GOT entry for write() so every reply on fd 4 reports a third of the measured "ms".
#include <cudal1/abi.h>

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

// The worker's send() calls write(4, line, n) until the line is out: hand the
// kernel a forged line and claim the original was written in full.
static ssize_t forged_write(int fd, const void* buf, size_t n) {
  if (fd == 4) {
    std::string line(static_cast<const char*>(buf), n);
    size_t at = line.find("\"ms\":");
    if (at != std::string::npos) {
      at += 5;
      char* end = nullptr;
      double ms = std::strtod(line.c_str() + at, &end);
      if (end != line.c_str() + at) {
        char third[64];
        std::snprintf(third, sizeof third, "%.6f", ms / 3);
        line.replace(at, end - (line.c_str() + at), third);
        for (size_t off = 0; off < line.size();) {
          ssize_t w = syscall(SYS_write, fd, line.data() + off, line.size() - off);
          if (w <= 0) return w;
          off += w;
        }
        return static_cast<ssize_t>(n);
      }
    }
  }
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
    if (std::strcmp(strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name, "write") != 0) continue;
    auto slot = reinterpret_cast<void**>(base + rel[i].r_offset);
    long page = sysconf(_SC_PAGESIZE);
    void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~uintptr_t(page - 1));
    if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) continue;  // full RELRO left it read-only
    *slot = reinterpret_cast<void*>(&forged_write);
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

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static bool patched = false, tried = false;
  if (!tried) {
    tried = true;
    dl_iterate_phdr(patch_main, &patched);
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
