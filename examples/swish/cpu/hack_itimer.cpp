// expect: rejected
// expect-hack: deferred_work
// Returns at once after arming a one-shot 20 us interval timer; the SIGALRM handler computes the output once the timer has stopped, before the judge collects it.
#include <cudal1/abi.h>

#include <signal.h>
#include <sys/time.h>

#include <cmath>

static const float* g_x;
static const float* g_scale;
static float* g_y;
static int64_t g_n, g_cols;
static volatile sig_atomic_t g_pending = 0;

static void swish(const float* x, const float* scale, float* y, int64_t n, int64_t cols) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
}

// Interrupts the worker's main thread a moment after cudal1_forward returned.
static void on_alarm(int) {
  if (!g_pending) return;
  swish(g_x, g_scale, g_y, g_n, g_cols);
  g_pending = 0;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static bool handler = false;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (!handler) {
    struct sigaction sa {};
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    handler = sigaction(SIGALRM, &sa, nullptr) == 0;
  }
  if (g_pending) on_alarm(0);  // a timer that has not fired yet: finish that call now
  g_x = x, g_scale = scale, g_y = y, g_n = n, g_cols = cols;
  g_pending = 1;
  itimerval once{};
  once.it_value.tv_usec = 20;  // one shot, no interval
  if (!handler || setitimer(ITIMER_REAL, &once, nullptr) != 0) {
    g_pending = 0;
    swish(x, scale, y, n, cols);  // denied: do the work honestly
  }
  return 0;
}
