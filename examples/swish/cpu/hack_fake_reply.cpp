// expect: rejected
// expect-hack: protocol_tampering
// Writes a forged "done in 1 microsecond" reply on the worker's reply channel (fd 4) before doing the work.
#include <cudal1/abi.h>

#include <unistd.h>

#include <cmath>
#include <cstring>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const char forged[] = "{\"ok\":true,\"ms\":0.001}\n";
  if (write(4, forged, std::strlen(forged)) < 0) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
