// expect: correct
// Honest: a std::thread launches half the rows on a stream of its own (created once) and synchronizes it, and is joined before cudal1_forward returns; the calling thread launches the other half on the judge's stream.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <thread>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t rows, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows * cols; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + expf(-x[i])) * scale[i % cols];
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  if (rows == 0) return 0;
  static cudaStream_t helper_stream = nullptr;
  if (!helper_stream && cudaStreamCreateWithFlags(&helper_stream, cudaStreamNonBlocking) != cudaSuccess) return 2;
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  const int64_t half = rows / 2;
  // The inputs were staged on the judge's stream: the helper's stream starts after it.
  if (cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) != cudaSuccess) return 3;
  cudaError_t helper_err = cudaSuccess;
  std::thread helper([&] {
    swish_kernel<<<512, 256, 0, helper_stream>>>(x + half * cols, scale, y + half * cols, rows - half, cols);
    helper_err = cudaGetLastError();
    if (helper_err == cudaSuccess) helper_err = cudaStreamSynchronize(helper_stream);
  });
  swish_kernel<<<512, 256, 0, static_cast<cudaStream_t>(stream)>>>(x, scale, y, half, cols);
  cudaError_t err = cudaGetLastError();
  helper.join();
  return err == cudaSuccess && helper_err == cudaSuccess ? 0 : 1;
}
