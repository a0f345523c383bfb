// expect: correct
// Honest multithreading: each call splits the rows over three helper std::threads and itself, and joins every helper before returning, so no thread outlives the call.
#include <cudal1/abi.h>

#include <cmath>
#include <thread>

static void rows_swish(const float* x, const float* scale, float* y, int64_t r0, int64_t r1, int64_t cols) {
  for (int64_t i = r0; i < r1; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const float v = x[i * cols + j];
      y[i * cols + j] = v * (1.0f / (1.0f + std::exp(-v))) * scale[j];
    }
}

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  constexpr int kParts = 4;
  std::thread helpers[kParts - 1];
  for (int p = 1; p < kParts; ++p)
    helpers[p - 1] = std::thread(rows_swish, x, scale, y, rows * p / kParts, rows * (p + 1) / kParts, cols);
  rows_swish(x, scale, y, 0, rows / kParts, cols);
  for (auto& t : helpers) t.join();
  return 0;
}
