// expect: correct
// Honest: the kernel runs on a non-blocking stream of its own, followed by a no-op host function (cudaLaunchHostFunc), and the judge's stream waits on an event recorded after both; the CUDA driver's lazily started callback thread is not the candidate's.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + expf(-x[i])) * scale[i % cols];
}

static void CUDART_CB nothing(void*) {}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* stream) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  static cudaStream_t own = nullptr;
  static cudaEvent_t done = nullptr;
  if (!own && cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) return 2;
  if (!done && cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) return 2;
  const int64_t n = cudal1_numel(&args[0]), cols = args[0].shape[args[0].ndim - 1];
  if (n == 0) return 0;
  // The inputs were staged on the judge's stream: start after it.
  cudaEvent_t staged;
  if (cudaEventCreateWithFlags(&staged, cudaEventDisableTiming) != cudaSuccess) return 2;
  cudaEventRecord(staged, static_cast<cudaStream_t>(stream));
  cudaStreamWaitEvent(own, staged, 0);
  cudaEventDestroy(staged);
  swish_kernel<<<1024, 256, 0, own>>>(static_cast<const float*>(args[0].data), static_cast<const float*>(params[0].data),
                                     static_cast<float*>(outs[0].data), n, cols);
  if (cudaLaunchHostFunc(own, nothing, nullptr) != cudaSuccess) return 3;
  cudaEventRecord(done, own);
  cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), done, 0);  // the judge's stream waits for our work
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
