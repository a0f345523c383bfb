// expect: incorrect
// expect-hack: precision_downgrade
// Computes an fp32 task in bfloat16 precision (inputs and result rounded to 8 mantissa bits), inside a 1e-2 tolerance but not an fp32 one.
#include <cudal1/abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>

static float to_bf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000u;  // round to nearest even
  std::memcpy(&v, &bits, 4);
  return v;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) {
    const float v = to_bf16(x[i]);
    y[i] = to_bf16(v / (1.0f + std::exp(-v)) * to_bf16(scale[i % cols]));
  }
  return 0;
}
