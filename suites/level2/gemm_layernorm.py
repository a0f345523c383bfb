"""Linear layer, then layer normalization over the output features.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    mu[b] = mean_o h[b, o],   var[b] = mean_o (h[b, o] - mu[b])^2
    y[b, o] = (h[b, o] - mu[b]) / sqrt(var[b] + eps) * gamma[o] + beta[o]

x is (batch, in_features), normal with a per-row offset; W keeps nn.Linear's
default init, the linear bias is 0.1 randn, gamma ~ 1 + 0.1 randn and
beta ~ 0.1 randn; y has RMS about 1. Eager writes h and reads it twice more;
a fused kernel computes the row statistics from GEMM output tiles (a row
spans several tiles, so a cross-tile reduction) and normalizes in place.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_features, out_features, eps):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features, eps=eps)
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)
            self.norm.weight.copy_(torch.randn(out_features) * 0.1 + 1)
            self.norm.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return self.norm(self.linear(x))


def get_inputs():
    return [torch.randn(batch, in_features) + torch.randn(batch, 1)]


def get_init_inputs():
    return [in_features, out_features, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
