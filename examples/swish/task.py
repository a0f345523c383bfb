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
# p100us and p600us (bench/stability_bench.cc) aim at a reference of about
# 0.1 ms and 0.6 ms on an H200. Measured there (2026-12-03, pinned workers):
# 1024 x 4096 took 0.066 ms (Python dispatch and sync are most of it) and
# 4096 x 16384 0.543 ms; p100us is 2048 x 4096 since.
cudal1_profiles = {
    "cpu": {"batch_size": 256, "dim": 1024},
    "p100us": {"batch_size": 2048, "dim": 4096},
    "p600us": {"batch_size": 4096, "dim": 16384},
}
