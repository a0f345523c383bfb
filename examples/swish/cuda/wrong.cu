// expect: incorrect
// A plausible bug: a simple grid-stride kernel that computes x * sigmoid(x) but
// forgets to multiply by scale[j].
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <algorithm>

__global__ void swish_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] * (1.0f / (1.0f + expf(-x[i])));
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  if (args[0].dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  const int64_t n = cudal1_numel(&args[0]);
  if (n == 0) return 0;
  const unsigned blocks = (unsigned)std::min<int64_t>((n + 255) / 256, 1 << 16);
  swish_kernel<<<blocks, 256, 0, (cudaStream_t)stream>>>(static_cast<const float*>(args[0].data),
                                                         static_cast<float*>(outs[0].data), n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
