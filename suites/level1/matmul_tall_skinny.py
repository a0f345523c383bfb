"""Tall-skinny matrix product with a small inner dimension.

    C = A @ B,   C[i, j] = sum_k A[i, k] * B[k, j]

A is (M, K) with M huge and K small, B is (K, N), normal; B is divided by
sqrt(K) so C has RMS about 1. With K = 64 each output element costs only 64
multiply-adds, so writing the large C (2 GB) weighs as much as the
arithmetic: B fits in shared memory, and the kernel lives or dies by
streaming A in and C out at full bandwidth.
"""
import torch
import torch.nn as nn

M = 1048576
K = 64
N = 512  # 69 GFLOP (1.4 ms at 50 TFLOP/s) and 2.3 GB moved (0.7 ms): ~1.4 ms


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N) / K ** 0.5]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"M": 1500, "K": 40, "N": 250}}
