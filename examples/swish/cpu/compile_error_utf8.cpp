// expect: compile_error
// A stray byte that is not UTF-8 in the source: the compiler quotes the line, and
// the verdict carrying that quote must still be written as JSON.
#include <cudal1/abi.h>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  return ÿ;
}
