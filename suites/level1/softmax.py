"""Softmax over the last dimension, scaled by the row length (row-wise
reduction).

    y[i, j] = dim * exp(x[i, j]) / sum_k exp(x[i, k])

The factor dim makes every row average exactly 1 (plain softmax over 16384
columns is mostly below 1e-4). x is (batch_size, dim), normal. Each row needs a
max and a sum before any output can be written: a fused kernel keeps the row in
registers/shared memory (or uses an online max-and-sum) and reads x once.
"""
import torch
import torch.nn as nn

# GPU: 2^29 float32 (2 GiB); eager softmax reads ~2x and writes once, then the
# scaling reads and writes again: ~10 GiB, ~3 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1) * x.shape[-1]


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 120, "dim": 2500}}
