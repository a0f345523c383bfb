# expect: incorrect
# Wraps the worker's run handler (run_main's `handlers`, found through its frame): forward computes the first half of the rows inside the window and returns its output tensor; the wrapper computes the other half into that same tensor after the handler returns, so after the window's end mark and before the run reply goes out. A CPU ModelNew's outputs were read from its stopped worker after the reply, so they were complete there, and the work outside the window was bounded only by the worker's own request work it displaced. They are now read in the pause at the end mark, the worker stopped, at what the mark describes: half the rows are unwritten there.
import sys

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SOURCE = r"""
#include <torch/extension.h>
#include <cmath>
void silu_rows(int64_t x, int64_t s, int64_t o, int64_t r0, int64_t r1, int64_t cols) {
  const float* a = reinterpret_cast<const float*>(x);
  const float* sc = reinterpret_cast<const float*>(s);
  float* out = reinterpret_cast<float*>(o);
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = a[r * cols + c];
      out[r * cols + c] = v / (1.0f + std::exp(-v)) * sc[c];
    }
}
"""
_ext = load_inline(name="cudal1_corpus_finish_after", cpp_sources=[_SOURCE], functions=["silu_rows"], extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.left = None  # (input pointer, first row left, rows, cols) of the call in flight
        self._wrap_run_handler()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        cols = self.scale.numel()
        rows = x.numel() // cols
        half = rows // 2 if self.wrapped else rows
        _ext.silu_rows(x.data_ptr(), self.scale.data_ptr(), out.data_ptr(), 0, half, cols)
        self.left = (x, out, half, rows, cols)
        return out

    def _wrap_run_handler(self):
        self.wrapped = False
        f = sys._getframe()
        while f is not None and f.f_code.co_name != "run_main":
            f = f.f_back
        if f is None:
            return
        handlers = f.f_locals["handlers"]
        honest_run, me = handlers["run"], self

        def run(cmd):
            try:
                return honest_run(cmd)
            finally:
                if me.left is not None:  # after the end mark: the rows forward left
                    x, out, half, rows, cols = me.left
                    _ext.silu_rows(x.data_ptr(), me.scale.data_ptr(), out.data_ptr(), half, rows, cols)
                    me.left = None

        handlers["run"] = run
        self.wrapped = True
