// expect: runtime_error
// Asks for a terabyte of device memory; cudaMalloc fails and the candidate returns the error code, which the judge reports.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void*) {
  void* scratch = nullptr;
  cudaError_t err = cudaMalloc(&scratch, size_t{1} << 40);
  if (err != cudaSuccess) return 2;
  cudaFree(scratch);
  return 0;
}
