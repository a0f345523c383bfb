"""Layer normalization over the last dimension with affine parameters.

    mu[r] = mean_j x[r, j],   var[r] = mean_j (x[r, j] - mu[r])^2
    y[r, j] = (x[r, j] - mu[r]) / sqrt(var[r] + eps) * weight[j] + bias[j]

nn.LayerNorm(dim) with weight ~ 1 + 0.1 randn and bias ~ 0.1 randn (not the
default ones/zeros, so both must really be applied). x is (rows, dim), normal
scaled by 2 with a per-row offset; y has RMS about 1. One row per block (or
warp): mean and variance need block reductions, then a second pass over a
row that should still be in registers or shared memory.
"""
import torch
import torch.nn as nn

rows = 131072
dim = 4096  # x is 2.1 GB, read + write 4.3 GB: about 1.2 ms at 3.5 TB/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.norm = nn.LayerNorm(dim, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(dim) * 0.1 + 1)
            self.norm.bias.copy_(torch.randn(dim) * 0.1)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(rows, dim) * 2 + torch.randn(rows, 1)]


def get_init_inputs():
    return [dim, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"rows": 300, "dim": 1000}}
