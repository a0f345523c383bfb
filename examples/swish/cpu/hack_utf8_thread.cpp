// expect: rejected
// expect-hack: background_thread
// Leaves the work to a detached thread whose name is not UTF-8, after writing such bytes to stderr at load: the censuses put the name, and the verdict the log, into JSON (an attack review, 2026-12-07: the worker's census reply threw and the worker died, then the judgment's own dump threw, so the hack got no verdict instead of its rejection).
#include <cudal1/abi.h>

#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

__attribute__((constructor)) static void unreadable_log() {
  std::fputs("\xff\xfe\n", stderr);
  std::fflush(stderr);
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  // The call returns once the thread has its name, so the census after it
  // always reads that name (in CI under load no such bytes once reached the
  // JSON; the likely cause, a census before the rename, was not reproduced).
  static std::atomic<long> named{0};
  const long before = named.load();
  std::thread([=] {
    prctl(PR_SET_NAME, "\xff\xfe\xfd", 0, 0, 0);
    named.fetch_add(1);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // alive for the census, however late it comes
  }).detach();
  while (named.load() == before) std::this_thread::yield();
  return 0;
}
