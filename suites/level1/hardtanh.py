"""HardTanh (elementwise clamp).

    y[i, j] = min(max(x[i, j], min_val), max_val)

x is (batch_size, dim), normal; min_val = -0.75 and max_val = 0.75
(constructor arguments), so about 23% of the elements are clipped on each side.
Pure bandwidth: one read, one write, two compares per element.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384
min_val = -0.75
max_val = 0.75


class Model(nn.Module):
    def __init__(self, min_val, max_val):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x):
        return F.hardtanh(x, min_val=self.min_val, max_val=self.max_val)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [min_val, max_val]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
