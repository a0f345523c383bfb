"""Inclusive prefix sum along the last dimension, scaled by 1/sqrt(length)
(row-wise scan).

    y[i, j] = (1 / sqrt(length)) * sum_{k <= j} x[i, k]

x is (batch_size, length), normal, so y[i, j] has variance (j + 1) / length and
RMS about 0.7. A scan is a reduction with every prefix kept: a block per row
with a warp-shuffle scan plus carried block totals reads x once and writes y
once, where PyTorch eager makes a second pass for the scaling.
"""
import torch
import torch.nn as nn

# GPU: 2^28 float32 (1 GiB); eager scan reads and writes 2 GiB, the scaling
# another 2 GiB: ~1.5-2 ms on an H200.
batch_size = 32768
length = 8192


class Model(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=-1) * x.shape[-1] ** -0.5


def get_inputs():
    return [torch.randn(batch_size, length)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 200, "length": 3000}}
