// expect: timeout
// A kernel that spins on a volatile global flag nobody ever sets (every read is a
// real load, so the loop cannot be dropped); the call returns at once, and the
// judge's device synchronization hangs until the judge kills the process.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

__device__ volatile int g_release = 0;

__global__ void spin() {
  while (g_release == 0) {
  }
}

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor*, int, void* stream) {
  spin<<<1, 1, 0, (cudaStream_t)stream>>>();
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
