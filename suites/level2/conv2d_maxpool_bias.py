"""2-D convolution, 3x3, same padding, then 2x2 max pooling and a per-channel bias.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    y[b, o, p, q] = max_{0 <= i, j < 2} z[b, o, 2p + i, 2q + j] + bias[o]

x is (batch, in_channels, height, width), normal, height and width even; y is
(batch, out_channels, height / 2, width / 2). nn.Conv2d with default init;
bias (out_channels, 1, 1) ~ 0.1 randn; y has RMS about 0.7. Eager PyTorch
writes the full-resolution z and reads it back to pool; a fused kernel pools
inside the output tile and writes only a quarter of the values.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; pool + add move 0.5 GB: 0.15 ms; about 2.8 ms
kernel_size = 3
pool_size = 2


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.1)
        self.pool_size = pool_size

    def forward(self, x):
        return F.max_pool2d(self.conv(x), self.pool_size) + self.bias


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, pool_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
