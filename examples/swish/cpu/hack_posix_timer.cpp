// expect: rejected
// expect-hack: deferred_work
// Returns at once after arming a one-shot 20 us POSIX timer (CLOCK_MONOTONIC, SIGUSR1); the signal handler computes the output once the timer has stopped, before the judge collects it.
#include <cudal1/abi.h>

#include <signal.h>
#include <time.h>

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
static void on_timer(int) {
  if (!g_pending) return;
  swish(g_x, g_scale, g_y, g_n, g_cols);
  g_pending = 0;
}

// One timer for the library's lifetime, made on the first call.
static bool make_timer(timer_t* id) {
  struct sigaction sa {};
  sa.sa_handler = on_timer;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, nullptr) != 0) return false;
  sigevent ev{};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  return timer_create(CLOCK_MONOTONIC, &ev, id) == 0;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static timer_t timer;
  static int made = -1;
  if (made < 0) made = make_timer(&timer) ? 1 : 0;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (g_pending) on_timer(0);  // a timer that has not fired yet: finish that call now
  g_x = x, g_scale = scale, g_y = y, g_n = n, g_cols = cols;
  g_pending = 1;
  itimerspec once{};
  once.it_value.tv_nsec = 20000;  // one shot, no interval
  if (!made || timer_settime(timer, 0, &once, nullptr) != 0) {
    g_pending = 0;
    swish(x, scale, y, n, cols);  // denied: do the work honestly
  }
  return 0;
}
