// expect: timeout
// Never returns: spins on a volatile counter (each access is a side effect the
// compiler must keep) and never writes the output.
#include <cudal1/abi.h>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;
}
