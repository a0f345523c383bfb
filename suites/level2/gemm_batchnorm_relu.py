"""Linear layer, then batch normalization with batch statistics, then ReLU.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    mu[o] = mean_b h[b, o],   var[o] = mean_b (h[b, o] - mu[o])^2   (biased)
    y[b, o] = max(0, (h[b, o] - mu[o]) / sqrt(var[o] + eps) * gamma[o] + beta[o])

x is (batch, in_features), normal; W keeps nn.Linear's default init, the
linear bias is 0.1 randn, gamma ~ 1 + 0.1 randn and beta ~ 0.1 randn;
F.batch_norm runs with training=True (no running buffers), so statistics come
from the batch; y has RMS about 0.7. The statistics are per column, over all
rows: a fused kernel accumulates column sums in the GEMM epilogue (a
grid-wide reduction), then one light pass normalizes and clamps.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_features, out_features, eps):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gamma = nn.Parameter(torch.randn(out_features) * 0.1 + 1)
        self.beta = nn.Parameter(torch.randn(out_features) * 0.1)
        self.eps = eps
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        h = self.linear(x)
        h = F.batch_norm(h, None, None, self.gamma, self.beta, training=True, eps=self.eps)
        return torch.relu(h)


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
