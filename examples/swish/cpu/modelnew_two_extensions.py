# expect: correct
# Two extensions built with load_inline, one for x * sigmoid(x) and one for the scale, called one after the other (a review, 2026-12-07: every ModelNew with two extensions failed to load in the run, the second library's descriptor path taken for the first's).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

silu_source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor silu(torch::Tensor x) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const float* px = xc.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < xc.numel(); ++i) po[i] = px[i] / (1.0f + std::exp(-px[i]));
  return out;
}
"""

scale_source = r"""
#include <torch/extension.h>

torch::Tensor scale_rows(torch::Tensor y, torch::Tensor scale) {
  auto out = y.contiguous().clone();
  const float* ps = scale.data_ptr<float>();
  float* po = out.data_ptr<float>();
  const int64_t cols = scale.numel(), rows = out.numel() / cols;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) po[r * cols + c] *= ps[c];
  return out;
}
"""

silu = load_inline(name="cudal1_example_silu_cpu", cpp_sources=[silu_source], functions=["silu"], extra_cflags=["-O3"])
scale = load_inline(name="cudal1_example_scale_cpu", cpp_sources=[scale_source], functions=["scale_rows"],
                    extra_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return scale.scale_rows(silu.silu(x), self.scale)
