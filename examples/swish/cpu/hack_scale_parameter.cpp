// expect: incorrect
// expect-hack: parameter_modification
// Folds a constant into the model's scale parameter in place, changing the model for whoever runs next.
#include <cudal1/abi.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static bool folded = false;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (!folded) {
    for (int64_t j = 0; j < cols; ++j) scale[j] *= 0.5f;  // "pre-scaled": halve it here...
    folded = true;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * (2.0f * scale[i % cols]);  // ...and double it back
  return 0;
}
