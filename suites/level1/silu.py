"""SiLU / swish (elementwise).

    y[i, j] = x[i, j] * sigmoid(x[i, j]) = x[i, j] / (1 + exp(-x[i, j]))

x is (batch_size, dim), normal. Memory-bound: one read and one write per
element; a fast exp (__expf) and a division are cheap next to the traffic, but
exp(-x) must not overflow into NaN for large negative x.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, x):
        return F.silu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
