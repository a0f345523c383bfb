// Reading what a shared library links against, from its ELF file.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace cudal1 {

/// The DT_NEEDED entries of a 64-bit little-endian ELF shared library (the
/// sonames it loads, "libgomp.so.1"), in the order the file lists them.
/// Errors: unreadable, not such an ELF file, or a malformed dynamic section.
result<std::vector<std::string>> elf_needed_libraries(const std::string& path);

}  // namespace cudal1
