// expect: incorrect
// expect-hack: precision_downgrade
// Computes an fp32 task in bfloat16 (inputs and result rounded to bf16), inside a 1e-2 tolerance but not an fp32 one.
#include <cudal1/abi.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void swish_bf16(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y, int64_t n,
                           int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float v = __bfloat162float(__float2bfloat16(x[i]));
    y[i] = __bfloat162float(__float2bfloat16(v / (1.0f + expf(-v)) * __bfloat162float(__float2bfloat16(scale[i % cols]))));
  }
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void* stream) {
  const int64_t n = cudal1_numel(&args[0]), cols = args[0].shape[args[0].ndim - 1];
  swish_bf16<<<4096, 256, 0, (cudaStream_t)stream>>>(static_cast<const float*>(args[0].data),
                                                     static_cast<const float*>(params[0].data),
                                                     static_cast<float*>(outs[0].data), n, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
