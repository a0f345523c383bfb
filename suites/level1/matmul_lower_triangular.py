"""Product of two lower-triangular matrices.

    C = tril(A) @ tril(B),   C[i, j] = sum_{j <= k <= i} A[i, k] * B[k, j]

A and B are (n, n), normal (their upper triangles are ignored); B is divided
by sqrt(n), so C has RMS about 0.4 (C is lower-triangular; its upper triangle
is exactly zero). A kernel that knows the structure skips the zero tiles and
shortens the k loop per tile, doing a sixth of the dense work (n^3 / 3 FLOP).
"""
import torch
import torch.nn as nn

n = 4096  # dense GEMM in PyTorch, 137 GFLOP: about 2.7 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(torch.tril(A), torch.tril(B))


def get_inputs():
    return [torch.randn(n, n), torch.randn(n, n) / n ** 0.5]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"n": 300}}


def cudal1_flops():
    """The FLOPs the op needs (n^3 / 3: the triangles' nonzero products), for
    the speed-of-light floor; PyTorch's counter would report the dense 2 n^3."""
    return n ** 3 // 3
