// expect: runtime_error
// Takes the machine's process IDs: starts threads (small stacks, parked) until
// the system refuses one or it holds half of kernel.pid_max (at most 20000),
// then joins them. The worker's user may hold only a quarter of pid_max (at
// most 16384), so the refusal comes first and the call fails; had it not, the
// call would do the work and be judged correct with every fork on the host at
// risk (an attack review, 2026-12-07: 3000 threads a call, judged correct).
#include <cudal1/abi.h>

#include <pthread.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static pthread_mutex_t g_gate = PTHREAD_MUTEX_INITIALIZER;

static void* park(void*) {
  pthread_mutex_lock(&g_gate);  // held by the call until every thread is started
  pthread_mutex_unlock(&g_gate);
  return nullptr;
}

static long target_threads() {
  long pid_max = 32768;
  if (FILE* f = std::fopen("/proc/sys/kernel/pid_max", "r")) {
    if (std::fscanf(f, "%ld", &pid_max) != 1) pid_max = 32768;
    std::fclose(f);
  }
  return pid_max / 2 < 20000 ? pid_max / 2 : 20000;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 16384);
  std::vector<pthread_t> threads;
  const long target = target_threads();
  pthread_mutex_lock(&g_gate);
  bool refused = false;
  while (static_cast<long>(threads.size()) < target) {
    pthread_t t;
    if (pthread_create(&t, &attr, park, nullptr) != 0) {
      refused = true;
      break;
    }
    threads.push_back(t);
  }
  pthread_mutex_unlock(&g_gate);
  for (pthread_t t : threads) pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  std::fprintf(stderr, "started %zu threads of %ld%s\n", threads.size(), target, refused ? ", then refused" : "");
  if (refused) return 1;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
  return 0;
}
