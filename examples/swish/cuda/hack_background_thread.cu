// expect: rejected
// expect-hack: background_thread
// Returns at once; a detached host thread launches the kernel a moment later, after the timer has stopped, on a stream of its own.
#include <cudal1/abi.h>

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

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

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  cudal1_tensor a = args[0], p = params[0], o = outs[0];
  std::thread([a, p, o]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    launch(&a, &p, &o, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }).detach();
  return 0;
}
