"""Inclusive prefix product along the last dimension (row-wise scan).

    y[i, j] = prod_{k <= j} x[i, k]

x is (batch_size, length) with x = 1 + 0.01 * normal, so log y is a random walk
with step 0.01: y stays between ~0.1 and ~10 (RMS about 1). A multiplicative
scan: same structure as cumsum (warp-shuffle scan, carried block products),
with rounding that compounds along the row.
"""
import torch
import torch.nn as nn

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3-2 ms on an H200.
batch_size = 131072
length = 4096


class Model(nn.Module):
    def forward(self, x):
        return torch.cumprod(x, dim=-1)


def get_inputs():
    return [1 + 0.01 * torch.randn(batch_size, length)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 150, "length": 4000}}
