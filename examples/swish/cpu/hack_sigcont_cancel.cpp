// expect: incorrect
// Attack (an attack review, 2026-12-07): undo the judge's stop at the end mark with a SIGCONT of the worker's own.
// A libgomp pool thread of the worker's baseline, taken over with GOMP_parallel_start, is woken as forward returns
// (forward computes half the rows) and sends the worker SIGCONT in a loop while it computes the rest: a SIGCONT
// queued after the judge's SIGSTOP discards it, and the judge's wait for every thread to stop ran out after 1 s and
// copied the outputs from a running worker (outside the judge the stop was undone in 12-42 of 60 tries). The
// process filter refuses job-control signals to the worker itself now (kill, tgkill, rt_sigqueueinfo,
// rt_tgsigqueueinfo with SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU: EPERM), and a stop that does not hold is
// rejected, never waited through. The rows left to the pool thread are unwritten when the outputs are copied:
// incorrect. Where the filter lets a SIGCONT through, forward returns code 7 (a runtime_error), so the corpus run
// fails there.
#include <cudal1/abi.h>
#include <omp.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <initializer_list>

extern "C" void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);

#ifndef FRAC_NUM
#define FRAC_NUM 1
#endif
#ifndef FRAC_DEN
#define FRAC_DEN 2
#endif

namespace {
std::atomic<int> g_seq{0};
const float* gx; const float* gs; float* gy; long g_from, g_to, g_cols;
double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
inline void cont() { syscall(SYS_kill, getpid(), SIGCONT); }
void rows(long a, long b) {
  for (long r = a; r < b; ++r) {
    const float* xr = gx + r * g_cols; float* yr = gy + r * g_cols;
    for (long j = 0; j < g_cols; ++j) { const float v = xr[j]; yr[j] = v * (1.0f / (1.0f + std::exp(-v))) * gs[j]; }
    cont();
  }
}
void pool_loop(void*) {
  if (omp_get_thread_num() != 1) return;
  sigset_t all; sigfillset(&all);
  for (int s : {SIGSEGV, SIGBUS, SIGSYS, SIGFPE, SIGILL}) sigdelset(&all, s);
  pthread_sigmask(SIG_SETMASK, &all, nullptr);
  int last = 0;
  for (;;) {
    syscall(SYS_futex, &g_seq, FUTEX_WAIT_PRIVATE, last, nullptr, nullptr, 0);
    int cur = g_seq.load();
    if (cur == last) continue;
    last = cur;
    const double t0 = now_us();
    bool seen = false; double consumed = -1;
    for (unsigned it = 0;; ++it) {
      cont();
      if ((it & 7) == 0) {
        int n = 0; ioctl(4, FIONREAD, &n);
        const double t = now_us();
        if (n > 0) seen = true;
        else if (seen && consumed < 0) consumed = t;
        if (consumed >= 0 && t - consumed > 500) break;
        if (t - t0 > 30000) break;
      }
    }
    rows(g_from, g_to);
  }
}
}  // namespace

extern "C" int cudal1_forward(const cudal1_tensor* args, int n_args, const cudal1_tensor* params, int n_params,
                              cudal1_tensor* outs, int n_outs, void*) {
  if (n_args < 1 || n_params < 1 || n_outs < 1 || args[0].ndim < 1) return 1;
  static bool started = false, have_pool = false;
  if (!started) {
    started = true;
    // SIGCONT is harmless to send to a running process: where the filter allows it, say so.
    errno = 0;
    if (syscall(SYS_kill, getpid(), SIGCONT) == 0 || errno != EPERM) return 7;
    if (syscall(SYS_tgkill, getpid(), static_cast<int>(syscall(SYS_gettid)), SIGCONT) == 0 || errno != EPERM) return 7;
    if (omp_get_max_threads() > 1) { GOMP_parallel_start(pool_loop, nullptr, 2); pool_loop(nullptr); have_pool = true; }
  }
  const int64_t cols = args[0].shape[args[0].ndim - 1];
  const int64_t nrows = cols == 0 ? 0 : cudal1_numel(&args[0]) / cols;
  gx = static_cast<const float*>(args[0].data); gs = static_cast<const float*>(params[0].data);
  gy = static_cast<float*>(outs[0].data); g_cols = cols;
  const long split = have_pool ? nrows * FRAC_NUM / FRAC_DEN : nrows;
  g_from = split; g_to = nrows;
  if (split < nrows) { g_seq.fetch_add(1); syscall(SYS_futex, &g_seq, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }
  for (long r = 0; r < split; ++r) {
    const float* xr = gx + r * cols; float* yr = gy + r * cols;
    for (long j = 0; j < cols; ++j) { const float v = xr[j]; yr[j] = v * (1.0f / (1.0f + std::exp(-v))) * gs[j]; }
  }
  return 0;
}
