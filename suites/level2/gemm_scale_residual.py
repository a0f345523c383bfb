"""Linear layer, then a scaled copy of itself added back (y * s + y).

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    y[b, o] = h[b, o] * scaling_factor + h[b, o]

x is (batch, in_features), normal; W keeps nn.Linear's default init (h has
RMS about 0.58), the bias is 0.1 randn and scaling_factor = 0.5, so y has RMS
about 0.9. Eager runs the GEMM, a multiply and an add, each moving the full
(batch, out_features) tensor; a fused kernel folds (1 + s) into the epilogue.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
scaling_factor = 0.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        y = self.linear(x)
        return y * self.scaling_factor + y


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
