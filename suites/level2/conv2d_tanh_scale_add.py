"""2-D convolution, 3x3, same padding, then tanh, a scale and a per-channel bias.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    y[b, o, h, w] = tanh(z[b, o, h, w]) * scale + bias[o]

x is (batch, in_channels, height, width), normal; nn.Conv2d with default
init; scale = 2, bias (out_channels, 1, 1) ~ 0.1 randn; y has RMS about 1.
Eager PyTorch runs tanh, multiply and add as three passes over the
convolution's output; a fused kernel applies all three in the epilogue and
writes y once.
"""
import torch
import torch.nn as nn

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; 3 passes move 1.6 GB: 0.46 ms; about 3.1 ms
kernel_size = 3
scale = 2.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.1)
        self.scale = scale

    def forward(self, x):
        return torch.tanh(self.conv(x)) * self.scale + self.bias


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, scale]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
