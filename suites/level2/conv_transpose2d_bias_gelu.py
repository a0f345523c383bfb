"""Transposed 2-D convolution, 3x3, stride 2 (2x upsampling), then a per-channel bias and GELU.

    z[b, o, p, q] = conv_bias[o] + sum over c, i, j with p = 2h - 1 + i, q = 2w - 1 + j
                    of x[b, c, h, w] * wt[c, o, i, j]
    v = z[b, o, p, q] + bias[o],   y[b, o, p, q] = v * (1 + erf(v / sqrt(2))) / 2

nn.ConvTranspose2d(in_channels, out_channels, 3, stride=2, padding=1,
output_padding=1) with default init; x is (batch, in_channels, H, W), normal;
y is (batch, out_channels, 2H, 2W); bias (out_channels, 1, 1) ~ 0.1 randn; y
has RMS about 0.25. Eager PyTorch writes the upsampled z (4x the input) and
reads and writes it again for each of the add and the GELU; a fused kernel
applies both in the epilogue and writes y once.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 128
out_channels = 64
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; add + gelu move 2.1 GB: 0.6 ms; about 3.2 ms
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2,
                                       padding=kernel_size // 2, output_padding=1)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.1)

    def forward(self, x):
        return F.gelu(self.conv(x) + self.bias)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 12, "out_channels": 8, "height": 20, "width": 22}}
