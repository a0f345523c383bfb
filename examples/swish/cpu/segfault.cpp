// expect: runtime_error
// Crashes at run time: writes to address 16 through a volatile pointer, a store the
// compiler must emit and the process cannot survive (SIGSEGV).
#include <cudal1/abi.h>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  float* volatile wild = reinterpret_cast<float*>(16);
  *wild = 1.0f;
  return 0;
}
