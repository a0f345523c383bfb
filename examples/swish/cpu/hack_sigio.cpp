// expect: rejected
// expect-hack: deferred_work
// Returns at once and computes the output in a SIGIO handler that the judge's next command (collect) raises, by making the command pipe (fd 3) signal-driven.
#include <cudal1/abi.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>

// The last call's buffers; the handler writes its output.
static const float* volatile g_x;
static const float* g_scale;
static float* g_y;
static int64_t g_n, g_cols;
static volatile sig_atomic_t g_pending = 0;

static void swish(const float* x, const float* scale, float* y, int64_t n, int64_t cols) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i])) * scale[i % cols];
}

// Runs when a command lands on fd 3: after the timer stopped, before the
// worker reads the command that collects the outputs.
static void on_sigio(int) {
  if (!g_pending) return;
  swish(g_x, g_scale, g_y, g_n, g_cols);
  g_pending = 0;
}

// fd 3 owned by us with O_ASYNC: every new command raises SIGIO. Any refusal
// (the sandbox) leaves the honest path.
static bool arm() {
  struct sigaction sa {};
  sa.sa_handler = on_sigio;
  sa.sa_flags = SA_RESTART;  // the worker's blocked read of fd 3 goes on afterwards
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGIO, &sa, nullptr) != 0) return false;
  if (fcntl(3, F_SETOWN, getpid()) != 0) return false;
  int flags = fcntl(3, F_GETFL);
  if (flags < 0 || fcntl(3, F_SETFL, flags | O_ASYNC) != 0) return false;
  return (fcntl(3, F_GETFL) & O_ASYNC) != 0;
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  static int armed = -1;
  if (armed < 0) armed = arm() ? 1 : 0;
  const int64_t cols = args[0].shape[args[0].ndim - 1], n = cudal1_numel(&args[0]);
  auto x = static_cast<const float*>(args[0].data);
  auto scale = static_cast<const float*>(params[0].data);
  auto y = static_cast<float*>(outs[0].data);
  if (!armed) {
    swish(x, scale, y, n, cols);
    return 0;
  }
  if (g_pending) swish(g_x, g_scale, g_y, g_n, g_cols);  // no command came between two calls
  g_x = x, g_scale = scale, g_y = y, g_n = n, g_cols = cols;
  g_pending = 1;
  return 0;
}
