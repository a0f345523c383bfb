"""Linear layer, then group normalization over feature groups, then HardTanh.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    with G = num_groups groups of C = out_features / G consecutive features,
    mu[b, g], var[b, g] = mean and biased variance of h[b, g*C : (g+1)*C]
    n[b, o] = (h[b, o] - mu[b, g]) / sqrt(var[b, g] + eps) * gamma[o] + beta[o]
    y[b, o] = min(max(n[b, o], min_val), max_val)

x is (batch, in_features), normal; W keeps nn.Linear's default init, the
linear bias is 0.1 randn, gamma ~ 1 + 0.1 randn, beta ~ 0.1 randn; the clamp
at +-1.5 cuts about 13% of values; y has RMS about 0.9. Eager writes h, reads
it twice for the norm and once more for the clamp; a GEMM tile covering
whole groups can normalize and clamp in its epilogue.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
num_groups = 32
eps = 1e-5
min_val = -1.5
max_val = 1.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, eps, min_val, max_val):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(num_groups, out_features, eps=eps)
        self.clamp = nn.Hardtanh(min_val, max_val)
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)
            self.norm.weight.copy_(torch.randn(out_features) * 0.1 + 1)
            self.norm.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return self.clamp(self.norm(self.linear(x)))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, eps, min_val, max_val]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 320, "num_groups": 8}}
