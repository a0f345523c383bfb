// expect: runtime_error
// Tries to keep results in a file outside its scratch folder (a cache across judgments); the sandbox refuses the write and the candidate reports it by returning 9.
#include <cudal1/abi.h>

#include <cmath>
#include <cstdio>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  std::FILE* cache = std::fopen("/tmp/cudal1-hack-cache.bin", "wb");
  if (!cache) return 9;  // denied: the cache across judgments is impossible
  std::fwrite(y, sizeof(float), n, cache);
  std::fclose(cache);
  return 0;
}
