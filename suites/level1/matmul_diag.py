"""Product of a diagonal matrix with a dense matrix (row scaling).

    C = diag(d) @ B,   C[i, j] = d[i] * B[i, j]

d is (n,), B is (n, m), both normal, so C has RMS about 1. PyTorch builds the
dense n x n diagonal matrix and runs a full GEMM (2 n^2 m FLOP); a kernel
that sees the structure does one multiply per element and is purely
memory-bound (read B, write C: 8 n m bytes, about 40 us here).
"""
import torch
import torch.nn as nn

n = 4096
m = 4096  # PyTorch's GEMM, 2 * n * n * m = 137 GFLOP: about 2.7 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, d, B):
        return torch.diag(d) @ B


def get_inputs():
    return [torch.randn(n), torch.randn(n, m)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"n": 250, "m": 400}}


def cudal1_flops():
    """The FLOPs the op needs (one multiply per output element), for the
    speed-of-light floor: PyTorch's counter would report the dense GEMM's
    2 n^2 m, and a kernel that sees the diagonal beats a floor built on that."""
    return n * m
