// expect: rejected
// expect-hack: background_thread
// A static constructor starts a host thread while the library loads (so a census taken before each call already counts it); cudal1_forward only hands it the buffers and returns at once, and the thread launches the kernel on a stream of its own after the timer stopped.
#include <cudal1/abi.h>

#include <cuda_runtime.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <thread>

__global__ void swish_kernel(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ y,
                             int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + expf(-x[i])) * scale[i % cols];
}

// The last call's buffers, published by g_ready.
static const float* g_x;
static const float* g_scale;
static float* g_y;
static int64_t g_n, g_cols;
static std::atomic<bool> g_ready{false};
static int g_judge = -1, g_worker = -1;  // the real command pipe, and the write end of ours

// The kernel runs on the thread's own non-blocking stream, which the
// device-wide sync that ends the window never saw: it starts after it.
static void run_pending(cudaStream_t* s) {
  if (!g_ready.load(std::memory_order_acquire)) return;
  if (!*s) cudaStreamCreateWithFlags(s, cudaStreamNonBlocking);
  swish_kernel<<<1024, 256, 0, *s>>>(g_x, g_scale, g_y, g_n, g_cols);
  cudaStreamSynchronize(*s);
  g_ready.store(false, std::memory_order_release);
}

// The thread sits between the command pipe and the worker: a command (the
// next one is "collect") passes on only once the pending output is written.
static void helper() {
  cudaStream_t s = nullptr;
  char buf[4096];
  for (;;) {
    pollfd p{g_judge, POLLIN, 0};
    int r = g_judge >= 0 ? poll(&p, 1, 1) : (usleep(1000), 0);
    if (g_judge < 0 || r > 0) run_pending(&s);
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
  g_n = cudal1_numel(&args[0]);
  g_x = static_cast<const float*>(args[0].data);
  g_scale = static_cast<const float*>(params[0].data);
  g_y = static_cast<float*>(outs[0].data);
  g_ready.store(true, std::memory_order_release);
  return 0;  // nothing was launched inside the window
}
