// expect: correct
// Numerically stable softmax of x / t per row on the CPU: find the row's max, write
// exp(z - max) while summing it, then scale the row by dim / sum.
#include <cudal1/abi.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  if (x.dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1 || cudal1_numel(&params[0]) != 1) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;
  const float t = *static_cast<const float*>(params[0].data);

  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = static_cast<const float*>(x.data) + i * cols;
    float* yr = static_cast<float*>(outs[0].data) + i * cols;
    float max = -INFINITY;
    for (int64_t j = 0; j < cols; ++j) max = std::fmax(max, xr[j] / t);
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) {
      yr[j] = std::exp(xr[j] / t - max);
      sum += yr[j];
    }
    const float inv = static_cast<float>(cols) / sum;  // softmax times the row length
    for (int64_t j = 0; j < cols; ++j) yr[j] *= inv;
  }
  return 0;
}
