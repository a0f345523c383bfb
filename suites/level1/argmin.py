"""Argmin over the middle dimension (strided reduction to int64 indices).

    y[b, k] = argmin_j x[b, j, k]   (the first index on ties, as PyTorch)

x is (batch_size, dim1, dim2), normal; y is int64 and must match exactly. The
reduced axis is strided: threads map to k for coalesced loads and keep a
running (value, index) pair while walking j.
"""
import torch
import torch.nn as nn

# GPU: 56 * 4096 * 4096 float32 = 3.5 GiB read once, tiny output: ~1.1 ms on an H200.
batch_size = 56
dim1 = 4096
dim2 = 4096
reduce_dim = 1


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.argmin(x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 8, "dim1": 500, "dim2": 150}}
