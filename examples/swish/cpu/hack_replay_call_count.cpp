// expect: incorrect
// expect-hack: replay
// Computes honestly for the first calls (the correctness trials, it hopes), then replays the last result it computed.
#include <cudal1/abi.h>

#include <cmath>
#include <cstring>
#include <vector>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static int calls = 0;
  static std::vector<float> saved;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (++calls > 3 && static_cast<int64_t>(saved.size()) == n) {
    std::memcpy(y, saved.data(), n * sizeof(float));
    return 0;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  saved.assign(y, y + n);
  return 0;
}
