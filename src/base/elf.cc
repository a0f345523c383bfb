#include "base/elf.h"

#include <elf.h>

#include <cstring>

#include "base/fs.h"

namespace cudal1 {

result<std::vector<std::string>> elf_needed_libraries(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) return bytes.err();
  const std::string& f = *bytes;
  auto fits = [&](uint64_t offset, uint64_t size) { return offset <= f.size() && size <= f.size() - offset; };
  Elf64_Ehdr eh;
  if (!fits(0, sizeof eh)) return make_error(path + ": not an ELF file");
  std::memcpy(&eh, f.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return make_error(path + ": not a 64-bit little-endian ELF file");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !fits(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr)))
    return make_error(path + ": malformed section headers");
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, f.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  };
  std::vector<std::string> needed;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr dyn = section(i);
    if (dyn.sh_type != SHT_DYNAMIC) continue;
    if (dyn.sh_link >= eh.e_shnum || !fits(dyn.sh_offset, dyn.sh_size)) return make_error(path + ": malformed dynamic section");
    const Elf64_Shdr strings = section(dyn.sh_link);
    if (!fits(strings.sh_offset, strings.sh_size)) return make_error(path + ": malformed dynamic string table");
    for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dyn.sh_size; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      std::memcpy(&d, f.data() + dyn.sh_offset + at, sizeof d);
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED) continue;
      if (d.d_un.d_val >= strings.sh_size) return make_error(path + ": a needed library's name outside the string table");
      const char* name = f.data() + strings.sh_offset + d.d_un.d_val;
      needed.emplace_back(name, strnlen(name, strings.sh_size - d.d_un.d_val));
    }
  }
  return needed;
}

}  // namespace cudal1
