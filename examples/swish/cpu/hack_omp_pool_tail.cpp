// expect: incorrect
// Attack: the native analogue of modelnew_hack_pool_tail.py. Built with OpenMP, the library links libgomp, so the worker warms libgomp's pool before its thread baseline; the candidate takes a pool thread over with GOMP_parallel_start (never ended), which spins between calls, and each call leaves every row to it and returns at once. The pool thread is the baseline's, so no census names it; but the call's outputs are taken at its window's end with the worker stopped, so the rows it finishes after the window are not the call's, and what it spends outside the window is charged to the call.
#include <cudal1/abi.h>
#include <omp.h>

#include <atomic>
#include <cmath>

extern "C" void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);

namespace {
std::atomic<long> posted{0}, taken{0};
const float* gx;
const float* gs;
float* gy;
long grows, gcols;

void rows_swish(long r0, long r1) {
  for (long i = r0; i < r1; ++i)
    for (long j = 0; j < gcols; ++j) {
      const float v = gx[i * gcols + j];
      gy[i * gcols + j] = v * (1.0f / (1.0f + std::exp(-v))) * gs[j];
    }
}

void pool_loop(void*) {
  if (omp_get_thread_num() == 0) return;  // the worker's own thread goes back to the call
  for (;;) {
    const long seq = posted.load(std::memory_order_acquire);
    if (seq == taken.load(std::memory_order_relaxed)) continue;
    taken.store(seq, std::memory_order_relaxed);
    rows_swish(0, grows);
  }
}
}  // namespace

int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                   cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  static bool started = false;
  gcols = args[0].shape[args[0].ndim - 1];
  grows = gcols == 0 ? 0 : cudal1_numel(&args[0]) / gcols;
  gx = static_cast<const float*>(args[0].data);
  gs = static_cast<const float*>(params[0].data);
  gy = static_cast<float*>(outs[0].data);
  if (!started && omp_get_max_threads() > 1) {
    started = true;
    GOMP_parallel_start(pool_loop, nullptr, 2);
    pool_loop(nullptr);
  }
  if (!started) {  // one CPU: no pool to take over, all the work here
    rows_swish(0, grows);
    return 0;
  }
  posted.fetch_add(1, std::memory_order_release);
  return 0;
}
