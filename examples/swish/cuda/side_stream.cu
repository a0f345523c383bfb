// expect: correct
// Computes swish on its own non-blocking stream instead of the judge's: the side
// stream first waits for the judge's stream (so the inputs are ready) but is never
// joined back; the judge's timing ends in a device-wide synchronization, so the
// result is still checked and timed honestly. Stream and event are created once.
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
  if (cudal1_numel(&params[0]) != cols) return 2;
  const int64_t n = cudal1_numel(&x);
  if (n == 0) return 0;

  static cudaStream_t side = [] {
    cudaStream_t s = nullptr;
    return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess ? s : nullptr;
  }();
  static cudaEvent_t inputs_ready = [] {
    cudaEvent_t e = nullptr;
    return cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess ? e : nullptr;
  }();
  if (!side || !inputs_ready) return 1;
  if (cudaEventRecord(inputs_ready, (cudaStream_t)stream) != cudaSuccess) return 1;
  if (cudaStreamWaitEvent(side, inputs_ready, 0) != cudaSuccess) return 1;

  const unsigned blocks = (unsigned)std::min<int64_t>((n + 255) / 256, 1 << 16);
  swish_kernel<<<blocks, 256, 0, side>>>(static_cast<const float*>(x.data), static_cast<const float*>(params[0].data),
                                         static_cast<float*>(outs[0].data), n, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
