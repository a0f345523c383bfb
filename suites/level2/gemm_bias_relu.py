"""Linear layer (GEMM plus bias), then ReLU.

    y[b, o] = max(0, sum_k x[b, k] * W[o, k] + bias[o])

x is (batch, in_features), normal; W (out_features, in_features) keeps
nn.Linear's default init (pre-activation RMS about 0.58) and the bias is
0.1 randn, so a kernel that drops it fails; y has RMS about 0.4. Eager runs
the GEMM (bias in its epilogue) and then a separate ReLU pass that reads and
writes y again; a fused kernel applies the ReLU in the GEMM epilogue.
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
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 96, "in_features": 200, "out_features": 300}}
