"""Leaky ReLU (elementwise).

    y[i, j] = x[i, j] if x[i, j] >= 0 else negative_slope * x[i, j]

x is (batch_size, dim), normal; negative_slope is 0.1 (a constructor argument,
so a kernel must take it as a parameter rather than hard-code it). Memory-bound:
one read and one write per element is the whole cost.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384
negative_slope = 0.1


class Model(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [negative_slope]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
