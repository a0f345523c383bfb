// expect: rejected
// expect-hack: background_thread
// Returns at once and leaves the work to a detached thread, hoping the timer stops before it and the check runs after it.
#include <cudal1/abi.h>

#include <chrono>
#include <cmath>
#include <thread>

static void swish(const float* x, const float* scale, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], rows = cudal1_numel(&args[0]) / cols;
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  std::thread([=] {
    swish(x, scale, y, rows, cols);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // linger past the timer
  }).detach();
  return 0;
}
