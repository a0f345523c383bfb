# expect: correct
# Honest, written as generated code often is (a false-rejection review,
# 2026-12-07, found each of these rejected): the extension's name made unique
# per process, its build folder from tempfile, its source written to a
# temporary file and built with load(), and a persistent buffer of its own
# (a precomputed table) beside the task's parameter. The build and the run
# see different names, folders and paths for the same library; the table is
# not the task's Model's, and load_state_dict leaves it as __init__ made it.
import os
import tempfile
import uuid

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load

source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale, torch::Tensor one) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const float* px = xc.data_ptr<float>();
  const float* ps = scale.data_ptr<float>();
  const float u = one.item<float>();
  float* po = out.data_ptr<float>();
  const int64_t cols = scale.numel(), rows = xc.numel() / cols;
  at::parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        float v = px[r * cols + c];
        po[r * cols + c] = v / (u + std::exp(-v)) * ps[c];
      }
  });
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("swish_scale", &swish_scale); }
"""

work = tempfile.mkdtemp(prefix="swish-")
path = os.path.join(work, "swish.cpp")
with open(path, "w") as f:
    f.write(source)
swish = load(name="swish_" + uuid.uuid4().hex[:8], sources=[path], extra_cflags=["-O3"],
             build_directory=tempfile.mkdtemp(prefix="swish-build-"))


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.register_buffer("one", torch.ones(()))  # persistent: in state_dict, not the task's

    def forward(self, x):
        return swish.swish_scale(x, self.scale, self.one)
