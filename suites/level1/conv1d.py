"""1-D convolution (nn.Conv1d, stride 1, same padding, with bias).

    y[b, o, l] = bias[o] + sum_{c, t} w[o, c, t] * x[b, c, l + t - padding]

x is (batch, in_channels, length), normal; w (out_channels, in_channels,
kernel_size) and bias use PyTorch's default init, so y has RMS about 0.6.
An implicit GEMM with a reduction of in_channels * kernel_size: neighbouring
outputs share input samples, so staging a tile of x (with its halo) in shared
memory saves most of the global reads.
"""
import torch
import torch.nn as nn

batch = 16
in_channels = 64
out_channels = 128
length = 65536  # 2 * batch * out * length * in * k = 51 GFLOP: about 1.7 ms at 30 TFLOP/s
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "in_channels": 16, "out_channels": 24, "length": 1000}}
