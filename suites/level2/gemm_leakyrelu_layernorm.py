"""Linear layer, LeakyReLU, then layer normalization over the features.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    a[b, o] = h[b, o] if h[b, o] > 0 else negative_slope * h[b, o]
    y[b, o] = (a[b, o] - mean_j a[b, j]) / sqrt(var_j a[b, j] + eps) * gamma[o] + beta[o]

x is (batch, in_features), normal; W keeps nn.Linear's default init, the
linear bias is 0.1 randn, negative_slope = 0.1, gamma ~ 1 + 0.1 randn and
beta ~ 0.1 randn (variance biased, as in nn.LayerNorm); y has RMS about 1.
Eager writes h, rewrites it through the activation and reads it twice more
for the norm; a fused kernel applies the activation in the GEMM epilogue and
reduces the row statistics across output tiles.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
negative_slope = 0.1
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_features, out_features, negative_slope, eps):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.act = nn.LeakyReLU(negative_slope)
        self.norm = nn.LayerNorm(out_features, eps=eps)
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)
            self.norm.weight.copy_(torch.randn(out_features) * 0.1 + 1)
            self.norm.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return self.norm(self.act(self.linear(x)))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, negative_slope, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
