# expect: incorrect
# Attack (an attack review, 2026-12-06): a pool thread of the worker's own baseline (libgomp's, which the worker starts before its thread baseline), taken over with GOMP_parallel_start and never released, spins between calls. A hook on the worker's run handler hands it the fresh inputs before the window starts, and forward returns with the rows it measured it could leave to that thread after the window, while the worker answers. Judged correct at 1.14-1.98x against 0.50-0.92x for the same code working inside the window before the judge counted the worker's CPU time outside its window; now that time is charged to the calls (0.21-0.40x on the 2-core VM) and named. Since 2026-12-06 a call's inputs are staged in the pause at its window's mark, with the worker stopped: rows computed before the mark come from an older call's inputs, and the judgment is incorrect.
import sys

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <omp.h>
#include <atomic>
#include <climits>
#include <cmath>
#include <ctime>
#include <immintrin.h>

extern "C" void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);

namespace {
struct Shared {
  alignas(64) std::atomic<int64_t> seq{0};
  alignas(64) std::atomic<int64_t> next{0};
  alignas(64) std::atomic<int64_t> done{0};
  alignas(64) const float* x = nullptr;
  const float* s = nullptr;
  float* o = nullptr;
  int64_t rows = 0, cols = 0;
  std::atomic<int64_t> t_ret{0};
  std::atomic<int64_t> ret_seq{-1};
  std::atomic<int64_t> tail_min{LLONG_MAX};
  std::atomic<int64_t> tail_samples{0};
  std::atomic<int64_t> row_ns{0};
  std::atomic<int64_t> leave{0};
  std::atomic<int64_t> pool_rows{0};
  std::atomic<int64_t> late_rows_total{0};
};
Shared S;
bool started = false;

inline int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

inline void one_row(int64_t r) {
  const int64_t cols = S.cols;
  const float* __restrict a = S.x + r * cols;
  const float* __restrict sc = S.s;
  float* __restrict o = S.o + r * cols;
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) {
    float v = a[c];
    o[c] = v / (1.0f + expf(-v)) * sc[c];
  }
}

void pool_loop(void*) {
  if (omp_get_thread_num() == 0) return;
  int64_t seen = 0;
  for (;;) {
    int64_t q = S.seq.load(std::memory_order_acquire);
    if (q == seen) { _mm_pause(); continue; }
    seen = q;
    int64_t t0 = now_ns(), n = 0;
    for (;;) {
      int64_t r = S.next.fetch_add(1);
      if (r >= S.rows) break;
      one_row(r);
      S.done.fetch_add(1, std::memory_order_release);
      ++n;
    }
    int64_t t1 = now_ns();
    S.pool_rows.fetch_add(n);
    if (n >= 8) {
      int64_t per = (t1 - t0) / n, cur = S.row_ns.load();
      if (cur == 0 || per < cur) S.row_ns.store(per);
    }
    // Watch for the judge's SIGSTOP: a gap in our own clock while idle.
    int64_t prev = now_ns();
    for (;;) {
      if (S.seq.load(std::memory_order_acquire) != seen) break;
      int64_t t = now_ns();
      if (t - prev > 300000) {
        if (S.ret_seq.load(std::memory_order_acquire) == seen) {
          int64_t tail = prev - S.t_ret.load();
          if (tail > 0) {
            S.tail_samples.fetch_add(1);
            if (tail < S.tail_min.load()) S.tail_min.store(tail);
          }
        }
        break;
      }
      prev = t;
      _mm_pause();
    }
  }
}
}  // namespace

void start() {
  if (started) return;
  started = true;
  GOMP_parallel_start(pool_loop, nullptr, 2);
}

void kick(int64_t x, int64_t s, int64_t o, int64_t rows, int64_t cols) {
  S.x = reinterpret_cast<const float*>(x);
  S.s = reinterpret_cast<const float*>(s);
  S.o = reinterpret_cast<float*>(o);
  S.rows = rows;
  S.cols = cols;
  S.next.store(0);
  S.done.store(0);
  S.seq.fetch_add(1, std::memory_order_release);
}

// The master's share: rows until `leave` remain (leave < 0: the adaptive
// amount), then it returns; with 0 it waits until every row is written.
int64_t finish(int64_t leave_req) {
  int64_t leave = 0;
  if (leave_req < 0) {
    int64_t row = S.row_ns.load(), tail = S.tail_min.load();
    if (S.tail_samples.load() >= 6 && row > 0 && tail != LLONG_MAX)
      leave = (tail / 2) / (row * 3 / 2);
  } else {
    leave = leave_req;
  }
  S.leave.store(leave);
  for (;;) {
    if (S.rows - S.next.load() <= leave) break;
    int64_t r = S.next.fetch_add(1);
    if (r >= S.rows) break;
    one_row(r);
    S.done.fetch_add(1, std::memory_order_release);
  }
  if (leave == 0)
    while (S.done.load(std::memory_order_acquire) < S.rows) _mm_pause();
  S.late_rows_total.fetch_add(S.rows - S.done.load());
  S.t_ret.store(now_ns());
  S.ret_seq.store(S.seq.load(), std::memory_order_release);
  return leave;
}

std::vector<int64_t> stats() {
  return {S.tail_samples.load(), S.tail_min.load(), S.row_ns.load(), S.leave.load(), S.pool_rows.load(), S.late_rows_total.load()};
}

"""

ext = load_inline(name="cudal1_example_pool_tail", cpp_sources=[source], functions=["start", "kick", "finish", "stats"],
                  extra_cflags=["-O3", "-march=native", "-ffast-math", "-fopenmp"], extra_ldflags=["-fopenmp"])

CHEAT = True


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.out = None
        self.kicked = 0
        ext.start()
        if not CHEAT:
            return
        f = sys._getframe()
        while f is not None and f.f_code.co_name != "run_main":
            f = f.f_back
        if f is None:
            return
        handlers, worker = f.f_locals["handlers"], f.f_locals["worker"]
        real_run = handlers["run"]
        me = self
        base = [0]

        def run(cmd):
            if me.out is not None and "probe_ms" not in cmd:
                if not base[0]:
                    base[0] = worker.exchange.data_ptr() + worker.layout["inputs"][0]["offset"]
                me.kicked = base[0] + worker.arenas["offsets"][int(cmd["arena"])] + int(cmd["shift"])
                ext.kick(me.kicked, me.sptr, me.optr, me.rows, me.cols)
            return real_run(cmd)

        handlers["run"] = run

    def forward(self, x):
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.empty_like(x)
            self.optr = self.out.data_ptr()
            self.sptr = self.scale.data_ptr()
            self.cols = self.scale.numel()
            self.rows = x.numel() // self.cols
        if not CHEAT or x.data_ptr() != self.kicked or not x.is_contiguous():
            xc = x.contiguous()
            ext.kick(xc.data_ptr(), self.sptr, self.optr, self.rows, self.cols)
            ext.finish(0)
        else:
            ext.finish(-1)
        self.kicked = 0
        return self.out
