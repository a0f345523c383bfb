"""Argmax over the last dimension (row-wise reduction to int64 indices).

    y[i] = argmax_j x[i, j]   (the first index on ties, as PyTorch)

x is (batch_size, dim), normal; y is int64 and must match exactly. Each thread
carries a (value, index) pair through a warp/block tree reduction; a long
contiguous row per output, read once.
"""
import torch
import torch.nn as nn

# GPU: 24576 * 49152 float32 = 4.5 GiB read once, tiny output.
batch_size = 24576  # 4.8 GB read: 16384 rows measured 0.94 ms on the H200, so about 1.4 ms
dim = 49152


class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 300, "dim": 2000}}
