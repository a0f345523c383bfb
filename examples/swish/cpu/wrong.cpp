// expect: incorrect
// A plausible bug: computes x * sigmoid(x) but forgets to multiply by scale[j].
#include <cudal1/abi.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void* /*stream*/) {
  if (n_args < 1 || n_params < 1 || n_outs < 1) return 1;
  const cudal1_tensor& x = args[0];
  if (x.dtype != CUDAL1_F32 || params[0].dtype != CUDAL1_F32 || outs[0].dtype != CUDAL1_F32) return 2;
  if (x.ndim < 1) return 2;
  const int64_t cols = x.shape[x.ndim - 1];
  if (cudal1_numel(&params[0]) != cols) return 2;
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&x) / cols;

  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = static_cast<const float*>(x.data) + i * cols;
    float* yr = static_cast<float*>(outs[0].data) + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = xr[j];
      yr[j] = v * (1.0f / (1.0f + std::exp(-v)));
    }
  }
  return 0;
}
