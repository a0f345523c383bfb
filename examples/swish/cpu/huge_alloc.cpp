// expect: runtime_error
// Asks for a terabyte of host memory; under the worker's address-space limit malloc fails and the candidate returns an error code, which the judge reports.
#include <cudal1/abi.h>

#include <cstdlib>
#include <cstring>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor* outs, int, void*) {
  const size_t bytes = size_t{1} << 40;
  char* volatile scratch = static_cast<char*>(std::malloc(bytes));  // volatile: the call cannot be optimized away
  if (!scratch) return 4;
  std::memset(scratch, 1, bytes);
  static_cast<float*>(outs[0].data)[0] = scratch[bytes - 1];
  std::free(scratch);
  return 0;
}
