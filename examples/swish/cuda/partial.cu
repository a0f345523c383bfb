// expect: incorrect
// Correct math in a simple grid-stride kernel, but launched for only the first half
// of the elements; the rest keeps the judge's NaN fill.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <algorithm>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] * (1.0f / (1.0f + expf(-x[i]))) * scale[i % cols];
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  if (x.dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t n = cudal1_numel(&x) / 2;  // the bug: half of the elements
  if (n == 0) return 0;
  const unsigned blocks = (unsigned)std::min<int64_t>((n + 255) / 256, 1 << 16);
  swish_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>(static_cast<const float*>(x.data),
                                                         static_cast<const float*>(params[0].data),
                                                         static_cast<float*>(outs[0].data), n, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
