// expect: runtime_error
// Prints without end to its standard output; the worker's file-size limit ends it (SIGXFSZ) before it fills the disk.
#include <cudal1/abi.h>

#include <cstdio>
#include <cstring>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  static char line[1 << 16];
  std::memset(line, 'x', sizeof line - 1);
  for (;;) std::fputs(line, stdout);
}
