"""2-D convolution, 3x3, same padding, then an extra per-channel bias and ReLU.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    y[b, o, h, w] = max(z[b, o, h, w] + bias[o], 0)

x is (batch, in_channels, height, width), normal; nn.Conv2d with PyTorch's
default init; bias (out_channels, 1, 1) ~ 0.1 randn. y has RMS about 0.4.
Eager PyTorch runs the convolution, the add and the ReLU as three kernels and
writes z twice; a fused kernel applies bias and ReLU in the GEMM epilogue.
"""
import torch
import torch.nn as nn

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; add + relu move 1.1 GB: 0.3 ms; about 2.9 ms
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.1)

    def forward(self, x):
        return torch.relu(self.conv(x) + self.bias)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
