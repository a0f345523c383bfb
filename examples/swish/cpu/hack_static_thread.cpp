// expect: rejected
// expect-hack: background_thread
// A static constructor starts a thread while the library loads (so a census taken before each call already counts it); cudal1_forward only hands it the buffers and returns at once, and the thread computes the output after the timer stopped.
#include <cudal1/abi.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <thread>

// The last call's buffers, published by g_ready.
static const float* g_x;
static const float* g_scale;
static float* g_y;
static int64_t g_rows, g_cols;
static std::atomic<bool> g_ready{false};
static int g_judge = -1, g_worker = -1;  // the real command pipe, and the write end of ours

static void compute_pending() {
  if (!g_ready.load(std::memory_order_acquire)) return;
  for (int64_t i = 0; i < g_rows * g_cols; ++i) g_y[i] = g_x[i] / (1.0f + std::exp(-g_x[i])) * g_scale[i % g_cols];
  g_ready.store(false, std::memory_order_release);
}

// The judge's next command ("collect") follows the reply at once, sooner than
// the work takes: the thread sits between the command pipe and the worker and
// passes a command on only once the pending output is written.
static void helper() {
  char buf[4096];
  for (;;) {
    pollfd p{g_judge, POLLIN, 0};
    int r = g_judge >= 0 ? poll(&p, 1, 1) : (usleep(20), 0);
    compute_pending();
    if (r <= 0) continue;
    ssize_t n = read(g_judge, buf, sizeof buf);
    if (n <= 0) {
      close(g_worker);  // the judge is gone: let the worker see end of file
      return;
    }
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(g_worker, buf + off, n - off);
      if (w <= 0) return;
      off += w;
    }
  }
}

// Runs inside dlopen(), before the worker ever calls cudal1_forward: fd 3
// becomes our pipe, the judge's pipe moves to a descriptor of the thread's.
__attribute__((constructor)) static void start_helper() {
  int p[2];
  if (pipe(p) == 0) {
    g_judge = fcntl(3, F_DUPFD_CLOEXEC, 10);
    if (g_judge >= 0 && dup2(p[0], 3) == 3) {
      close(p[0]);
      g_worker = p[1];
    } else {
      close(p[0]);
      close(p[1]);
      if (g_judge >= 0) close(g_judge);
      g_judge = -1;
    }
  }
  std::thread(helper).detach();
}

int cudal1_forward(const cudal1_tensor* args, int, const cudal1_tensor* params, int, cudal1_tensor* outs, int, void*) {
  while (g_ready.load(std::memory_order_acquire)) std::this_thread::yield();  // the last job is done
  g_cols = args[0].shape[args[0].ndim - 1];
  g_rows = cudal1_numel(&args[0]) / g_cols;
  g_x = static_cast<const float*>(args[0].data);
  g_scale = static_cast<const float*>(params[0].data);
  g_y = static_cast<float*>(outs[0].data);
  g_ready.store(true, std::memory_order_release);
  return 0;  // the output is written after the timer stopped
}
