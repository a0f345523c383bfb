"""Square matrix product (GEMM).

    C = A @ B,   C[i, j] = sum_k A[i, k] * B[k, j]

A and B are (n, n), normal; B is divided by sqrt(n) so C has RMS about 1.
The classic tiled-GEMM exercise: compute-bound, so shared-memory (or register)
tiling, double buffering and a good thread-to-tile mapping decide the speed.
"""
import torch
import torch.nn as nn

n = 4096  # 2 * n^3 = 137 GFLOP: about 2.7 ms at 50 TFLOP/s (fp32, no TF32)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(n, n), torch.randn(n, n) / n ** 0.5]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"n": 300}}
