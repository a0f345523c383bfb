// expect: incorrect
// expect-hack: replay
// Computes honestly for the first three calls, keeps the last result in device memory, and replays it from then on.
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
  static int calls = 0;
  static void* saved = nullptr;
  const size_t bytes = cudal1_numel(&outs[0]) * sizeof(float);
  cudaStream_t s = (cudaStream_t)stream;
  if (++calls > 3 && saved) return cudaMemcpyAsync(outs[0].data, saved, bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess ? 0 : 1;
  launch(args, params, outs, s);
  if (!saved && cudaMalloc(&saved, bytes) != cudaSuccess) return 1;
  return cudaMemcpyAsync(saved, outs[0].data, bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess ? 0 : 1;
}
