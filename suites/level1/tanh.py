"""Hyperbolic tangent (elementwise).

    y[i, j] = tanh(x[i, j])

x is (batch_size, dim), normal. Memory-bound; the hardware tanh.approx
instruction (relative error ~5e-4) misses the float32 tolerance, so the kernel
needs a full-precision tanh that still keeps up with the bandwidth.
"""
import torch
import torch.nn as nn

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
