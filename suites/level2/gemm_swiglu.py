"""SwiGLU feed-forward block: two parallel projections gated by SiLU, then a
down projection (no biases, as in LLaMA-style MLPs).

    g[b, j] = sum_k x[b, k] * W1[j, k],   u[b, j] = sum_k x[b, k] * W3[j, k]
    a[b, j] = g[b, j] / (1 + exp(-g[b, j])) * u[b, j]
    y[b, i] = sum_j a[b, j] * W2[i, j]

x is (batch, dim), normal; W1, W3 (hidden, dim) and W2 (dim, hidden) are
randn / sqrt(fan_in), so g and u have RMS about 1 and y about 0.6. Eager runs
three GEMMs plus silu and multiply passes over (batch, hidden); a fused
kernel computes g and u from one read of x (W1 and W3 as one GEMM) and
applies the gate in the epilogue, writing a once (or never).
"""
import torch
import torch.nn as nn

batch = 4096
dim = 2048
hidden = 5632  # 3 * 2 * B * dim * hidden = 283 GFLOP: about 5.7 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(hidden, dim) / dim ** 0.5)
        self.w3 = nn.Parameter(torch.randn(hidden, dim) / dim ** 0.5)
        self.w2 = nn.Parameter(torch.randn(dim, hidden) / hidden ** 0.5)

    def forward(self, x):
        a = torch.nn.functional.silu(x @ self.w1.t()) * (x @ self.w3.t())
        return a @ self.w2.t()


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, hidden]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 64, "dim": 96, "hidden": 160}}
