// expect: runtime_error
// Does nothing and returns 3; any non-zero return is reported as a runtime error.
#include <cudal1/abi.h>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  return 3;
}
