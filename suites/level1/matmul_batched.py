"""Batched matrix product (torch.bmm).

    C[b] = A[b] @ B[b],   C[b, i, j] = sum_k A[b, i, k] * B[b, k, j]

A is (batch, m, k), B is (batch, k, n), normal; B is divided by sqrt(k) so C
has RMS about 1. Many independent medium-sized GEMMs: the grid gains a batch
dimension, and each matrix is too small to fill the GPU on its own.
"""
import torch
import torch.nn as nn

batch = 128
m = 512
k = 1024
n = 768  # 2 * batch * m * k * n = 103 GFLOP: about 2.1 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.bmm(A, B)


def get_inputs():
    return [torch.randn(batch, m, k), torch.randn(batch, k, n) / k ** 0.5]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 6, "m": 96, "k": 160, "n": 112}}
