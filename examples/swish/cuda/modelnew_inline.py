# expect: correct
# A ModelNew with a fused CUDA kernel built by load_inline (once, outside the run sandbox, then cached).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void swish_scale_kernel(const float* __restrict__ x, const float* __restrict__ scale,
                                   float* __restrict__ y, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float v = x[i];
    y[i] = v / (1.0f + __expf(-v)) * scale[i % cols];
  }
}

torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale) {
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const int64_t n = xc.numel(), cols = scale.numel();
  const int threads = 256;
  const int blocks = (int)std::min<int64_t>((n + threads - 1) / threads, 132 * 32);
  swish_scale_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), scale.data_ptr<float>(), y.data_ptr<float>(), n, cols);
  return y;
}
"""
cpp_source = "torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale);"

swish = load_inline(name="cudal1_example_swish_cuda", cpp_sources=[cpp_source], cuda_sources=[cuda_source],
                    functions=["swish_scale"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return swish.swish_scale(x, self.scale)
