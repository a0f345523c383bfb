"""Swish with a learned per-feature scale (elementwise).

    y[i, j] = x[i, j] * sigmoid(x[i, j]) * scale[j]

x is (batch_size, dim), normal; scale is a (dim,) parameter, normal. PyTorch
eager runs three kernels (sigmoid, two multiplies) and so moves the tensor
seven times; a fused kernel reads x once and writes y once.
"""
import torch
import torch.nn as nn

batch_size = 16384
dim = 16384


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 256, "dim": 1024}}
