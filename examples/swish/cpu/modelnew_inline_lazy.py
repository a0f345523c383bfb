# expect: correct
# Honest: the extension built on the first call to forward, then kept, as
# generated code sometimes does. The run compiles nothing, so the build makes
# ModelNew once and calls it once on the task's get_inputs() (on the meta
# device where torch has it: the extension's own call then fails, after it is
# built); until 2026-12-07 such a candidate was refused at run time (a
# false-rejection review).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const float* px = xc.data_ptr<float>();
  const float* ps = scale.data_ptr<float>();
  float* po = out.data_ptr<float>();
  const int64_t cols = scale.numel(), rows = xc.numel() / cols;
  at::parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        float v = px[r * cols + c];
        po[r * cols + c] = v / (1.0f + std::exp(-v)) * ps[c];
      }
  });
  return out;
}
"""


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.ext = None

    def forward(self, x):
        if self.ext is None:
            self.ext = load_inline(name="cudal1_example_swish_lazy", cpp_sources=[source], functions=["swish_scale"],
                                   extra_cflags=["-O3"])
        return self.ext.swish_scale(x, self.scale)
