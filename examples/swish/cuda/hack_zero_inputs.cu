// expect: incorrect
// expect-hack: input_modification
// Computes the right answer, then zeroes its input on the device.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + expf(-x[i])) * scale[i % cols];
}

static void launch(const cudal1_tensor* args, const cudal1_tensor* params, cudal1_tensor* outs, cudaStream_t s) {
  const int64_t n = cudal1_numel(&args[0]), cols = args[0].shape[args[0].ndim - 1];
  swish_kernel<<<4096, 256, 0, s>>>(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
                                    static_cast<float*>(outs[0].data), n, cols);
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void* stream) {
  launch(args, params, outs, (cudaStream_t)stream);
  cudaMemsetAsync(args[0].data, 0, cudal1_numel(&args[0]) * sizeof(float), (cudaStream_t)stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
