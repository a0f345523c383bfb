// expect: correct
// Honest OpenMP: the rows split over a parallel region of as many threads as the worker's CPUs (omp_get_max_threads), whose threads stay parked between calls. The worker starts libgomp's pool before its thread baseline for a library that links it, so those threads are not taken for ones the candidate left running.
#include <cudal1/abi.h>
#include <omp.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t rows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
#pragma omp parallel for num_threads(omp_get_max_threads()) schedule(static)
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const float v = x[i * cols + j];
      y[i * cols + j] = v * (1.0f / (1.0f + std::exp(-v))) * scale[j];
    }
  return 0;
}
