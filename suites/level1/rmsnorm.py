"""RMS normalization over the last dimension with a learned scale.

    y[r, j] = x[r, j] / sqrt(mean_k x[r, k]^2 + eps) * weight[j]

x is (rows, dim), normal scaled by 3; weight ~ 1 + 0.1 randn is a parameter;
y has RMS about 1. PyTorch eager runs about six kernels (square, mean, add,
rsqrt, two multiplies) and moves x several times; a fused kernel reads each
row once, does one block reduction and writes y once.
"""
import torch
import torch.nn as nn

rows = 131072
dim = 4096  # eager moves ~7 x 2.1 GB = 15 GB: about 4.3 ms at 3.5 TB/s (fused: ~1.2 ms)
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim) * 0.1 + 1)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    return [torch.randn(rows, dim) * 3]


def get_init_inputs():
    return [dim, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"rows": 300, "dim": 1000}}
