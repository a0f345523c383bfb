"""Linear layer, then softmax over the output features, scaled by their count.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    y[b, o] = out_features * exp(h[b, o]) / sum_j exp(h[b, j])

x is (batch, in_features), normal; W is randn / sqrt(in_features) so the
logits h have RMS about 1, the bias is 0.1 randn; the factor out_features
makes each row average 1 (y has RMS about 1.6). Eager writes h, reads it for
the softmax (max, sum, normalize) and again for the scaling; a fused kernel
keeps per-row online max/sum across GEMM tiles and writes y once.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.linear.weight.copy_(torch.randn(out_features, in_features) / in_features ** 0.5)
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        h = self.linear(x)
        return torch.softmax(h, dim=1) * h.shape[1]


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
