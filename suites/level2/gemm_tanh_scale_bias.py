"""Linear layer, tanh, scale, then a second learned per-feature bias.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    y[b, o] = tanh(h[b, o]) * scaling_factor + bias2[o]

x is (batch, in_features), normal; W is randn / sqrt(in_features) (h has
RMS about 1), bias and bias2 are 0.1 randn and 0.2 randn, scaling_factor = 2,
so y has RMS about 1.3. Eager runs the GEMM and three elementwise passes (tanh,
multiply, add), each reading and writing the full output; a fused kernel
does all three in the GEMM epilogue.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
scaling_factor = 2.0


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bias2 = nn.Parameter(torch.randn(out_features) * 0.2)
        self.scaling_factor = scaling_factor
        with torch.no_grad():
            self.linear.weight.copy_(torch.randn(out_features, in_features) / in_features ** 0.5)
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return torch.tanh(self.linear(x)) * self.scaling_factor + self.bias2


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
