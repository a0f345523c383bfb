"""Linear layer, subtract each row's maximum, exact GELU, scale.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    z[b, o] = h[b, o] - max_j h[b, j]            (so z <= 0)
    y[b, o] = scaling_factor * z * 0.5 * (1 + erf(z / sqrt(2)))

x is (batch, in_features), normal; W keeps nn.Linear's default init (h has
RMS about 0.58), the bias is 0.1 randn. z sits around -2, where GELU is
small (about -0.05) but varies tenfold, so scaling_factor = 10 brings y to
RMS about 0.7. Eager writes h, reads it for the max, again for the subtract
and again for the GELU; a fused kernel needs a row max across GEMM tiles,
then one epilogue pass.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 4096
out_features = 4096  # 2 * B * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s
scaling_factor = 10.0


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        h = self.linear(x)
        z = h - h.max(dim=1, keepdim=True)[0]
        return torch.nn.functional.gelu(z) * self.scaling_factor


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
