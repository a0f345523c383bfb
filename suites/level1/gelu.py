"""GELU, exact (erf) form (elementwise).

    y[i, j] = 0.5 * x[i, j] * (1 + erf(x[i, j] / sqrt(2)))

x is (batch_size, dim), normal. Still memory-bound on an H200, but erf costs
enough instructions that a sloppy kernel becomes compute-bound; the tanh
approximation is off by up to ~5e-4 and fails the float32 tolerance.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, x):
        return F.gelu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
