# expect: correct
# Honest: a fused swish built with load_inline and parallelised with OpenMP over the CPUs it sees (omp_get_num_procs), as CPU kernel authors write it. libgomp starts its pool at the first parallel region of a size and keeps it parked; a false-rejection review (2026-12-06) found it rejected as background_thread 2 of 2, the pool's thread started after the worker's baseline. The worker now starts that pool before its baseline (warm_openmp).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <omp.h>
#include <cmath>

torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale) {
  auto xc = x.contiguous();
  auto out = torch::empty_like(xc);
  const float* px = xc.data_ptr<float>();
  const float* ps = scale.data_ptr<float>();
  float* po = out.data_ptr<float>();
  const int64_t cols = scale.numel(), rows = xc.numel() / cols;
  #pragma omp parallel for num_threads(omp_get_num_procs()) schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = px[r * cols + c];
      po[r * cols + c] = v / (1.0f + std::exp(-v)) * ps[c];
    }
  return out;
}
"""

swish = load_inline(name="cudal1_example_swish_omp", cpp_sources=[source], functions=["swish_scale"],
                    extra_cflags=["-O3", "-fopenmp"], extra_ldflags=["-fopenmp"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return swish.swish_scale(x, self.scale)
