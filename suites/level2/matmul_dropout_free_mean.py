"""Linear layer over a sequence, then the mean over the sequence dimension
(a pooling head; no dropout).

    h[b, t, o] = sum_k x[b, t, k] * W[o, k] + bias[o]
    y[b, o] = mean_t h[b, t, o]

x is (batch, seq_len, in_features): normal noise plus a per-(batch, feature)
offset shared by all seq_len positions, so the mean keeps an O(1) signal
instead of shrinking like 1/sqrt(seq_len). W keeps nn.Linear's default init
and the bias is 0.1 randn; y has RMS about 0.6. Eager runs the full GEMM and
writes h before averaging; since the mean is linear, a kernel may average x
over t first (one read of x) and run a GEMM seq_len times smaller.
"""
import torch
import torch.nn as nn

batch = 256
seq_len = 32
in_features = 4096
out_features = 4096  # 2 * B * T * in * out = 275 GFLOP: about 5.5 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.linear.bias.copy_(torch.randn(out_features) * 0.1)

    def forward(self, x):
        return self.linear(x).mean(dim=1)


def get_inputs():
    return [torch.randn(batch, seq_len, in_features) + torch.randn(batch, 1, in_features)]


def get_init_inputs():
    return [in_features, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 12, "seq_len": 8, "in_features": 200, "out_features": 300}}


def cudal1_flops():
    """The FLOPs the op needs, for the speed-of-light floor: the mean is linear,
    so averaging x over the sequence first (batch * seq_len * in_features adds)
    leaves a GEMM seq_len times smaller than the one PyTorch's counter counts."""
    return batch * seq_len * in_features + 2 * batch * in_features * out_features
