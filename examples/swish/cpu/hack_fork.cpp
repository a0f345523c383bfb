// expect: rejected
// expect-hack: background_process
// Forks a child process that does the work and lingers, outside the thread census and the timed window.
#include <cudal1/abi.h>

#include <unistd.h>

#include <cmath>

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (fork() == 0) {  // the child writes into memory it no longer shares: it only lingers
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
    sleep(1);
    _exit(0);
  }
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
