// expect: incorrect
// Hard-codes a smaller batch (64 rows) than the task's, as a candidate that rewrites the problem size would.
#include <cudal1/abi.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], rows = 64;
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
