"""Matrix-vector product (GEMV).

    y = A @ x,   y[i, 0] = sum_k A[i, k] * x[k, 0]

A is (M, K), x is (K, 1), both normal; x is divided by sqrt(K) so y has RMS
about 1; y is (M, 1). Every element of A is used once, so the kernel is
bound by reading A (about 4 GB): coalesced, vectorized loads and a fast
per-row reduction (warp shuffles) are what matter.
"""
import torch
import torch.nn as nn

M = 15000
K = 65536  # A is 3.9 GB, read once: about 1.1 ms at 3.5 TB/s


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, x):
        return torch.matmul(A, x)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, 1) / K ** 0.5]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"M": 1000, "K": 3000}}
