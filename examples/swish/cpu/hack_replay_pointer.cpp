// expect: incorrect
// expect-hack: replay
// Caches its result keyed on where the input lives (its megabyte of address space) and replays it when that comes back.
#include <cudal1/abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static std::map<const void*, std::vector<float>> cache;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto y = static_cast<float*>(outs[0].data);
  const void* key = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(x) >> 20);
  auto hit = cache.find(key);
  if (hit != cache.end()) {
    std::memcpy(y, hit->second.data(), n * sizeof(float));
    return 0;
  }
  auto scale = static_cast<const float*>(params[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  cache[key].assign(y, y + n);
  return 0;
}
