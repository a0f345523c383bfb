"""Softplus (elementwise).

    y[i, j] = log(1 + exp(beta * x[i, j])) / beta, or x[i, j] where beta * x[i, j] > threshold

x is (batch_size, dim), normal with standard deviation 3; beta = 1 and
threshold = 20 (PyTorch's defaults, constructor arguments). Memory-bound; the
kernel must stay accurate at both ends: log1p for very negative x, no exp
overflow for large x.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384
beta = 1.0
threshold = 20.0


class Model(nn.Module):
    def __init__(self, beta, threshold):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        return F.softplus(x, beta=self.beta, threshold=self.threshold)


def get_inputs():
    return [torch.randn(batch_size, dim) * 3]


def get_init_inputs():
    return [beta, threshold]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
