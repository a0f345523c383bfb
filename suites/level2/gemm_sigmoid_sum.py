"""Linear layer, then a centered sum of sigmoids over the output features.

    h[b, o] = sum_k x[b, k] * W[o, k] + bias[o]
    y[b, 0] = sum_o (sigmoid(h[b, o]) - 1/2) / sqrt(out_features)

The -1/2 removes the sum's constant part (out_features / 2, which would
otherwise dwarf the input-dependent ripple); 1/sqrt(out_features) keeps the
sum O(1). x is (batch, in_features), normal; W is 2 randn / sqrt(in_features)
(h has RMS about 2) and the bias 0.5 randn; y is (batch, 1) with RMS about
0.3. Eager writes h and the sigmoid to memory before reducing them; a fused
kernel reduces each GEMM tile's sigmoids in registers and writes one value
per row, never storing the (batch, out_features) product.
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
            self.linear.weight.copy_(torch.randn(out_features, in_features) * 2 / in_features ** 0.5)
            self.linear.bias.copy_(torch.randn(out_features) * 0.5)

    def forward(self, x):
        h = self.linear(x)
        return (torch.sigmoid(h) - 0.5).sum(dim=1, keepdim=True) / h.shape[1] ** 0.5


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
