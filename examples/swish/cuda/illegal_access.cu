// expect: runtime_error
// A kernel that writes 2^40 elements past the output, far outside any allocation:
// the launch succeeds but the kernel faults (cudaErrorIllegalAddress), which the
// judge sees at its synchronization.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

__global__ void write_far(float* y) { y[(int64_t{1} << 40) + threadIdx.x] = 1.0f; }

int cudal1_forward(const cudal1_tensor*, int, const cudal1_tensor*, int, cudal1_tensor* outs, int n_outs,
                   void* stream) {
  if (n_outs < 1) return 1;
  write_far<<<1, 32, 0, (cudaStream_t)stream>>>(static_cast<float*>(outs[0].data));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
