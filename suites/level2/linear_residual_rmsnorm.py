"""Square linear layer with a residual connection, then RMS normalization.

    h[b, j] = x[b, j] + sum_k x[b, k] * W[j, k] + bias[j]
    y[b, j] = h[b, j] / sqrt(mean_i h[b, i]^2 + eps) * weight[j]

x is (batch, dim), normal scaled by 2; W keeps nn.Linear's default init, the
bias is 0.1 randn and weight ~ 1 + 0.1 randn is a parameter; y has RMS about
1. Eager runs the GEMM, the residual add and about six kernels for the norm;
a fused kernel adds the residual in the GEMM epilogue, accumulates each
row's sum of squares across output tiles, and scales in one more light pass.
"""
import torch
import torch.nn as nn

batch = 8192
dim = 4096  # 2 * B * dim^2 = 275 GFLOP: about 5.5 ms at 50 TFLOP/s, plus ~1 ms of eager norm passes
eps = 1e-6


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.weight = nn.Parameter(torch.randn(dim) * 0.1 + 1)
        self.eps = eps
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(dim) * 0.1)

    def forward(self, x):
        h = x + self.linear(x)
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    return [torch.randn(batch, dim) * 2]


def get_init_inputs():
    return [dim, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "dim": 256}}
