"""Linear layer (GEMM plus bias), then exact (erf) GELU.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    y[b, o] = h * 0.5 * (1 + erf(h / sqrt(2)))

x is (batch, in_features), normal; W (out_features, in_features) is
randn / sqrt(in_features) so h has RMS about 1, and the bias is 0.1 randn;
y has RMS about 0.65. Eager writes h to memory and reads it back for the
GELU; a fused kernel evaluates erf in the GEMM epilogue and writes y once.
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
        return torch.nn.functional.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
