"""Transposed 3-D convolution, 3x3x3, stride 2 (2x upsampling), then a scale and a clamp.

    z[b, o, p, q, r] = conv_bias[o] + sum over c, i, j, k with p = 2d - 1 + i, q = 2h - 1 + j,
                       r = 2w - 1 + k of x[b, c, d, h, w] * wt[c, o, i, j, k]
    y[b, o, p, q, r] = min(max(z[b, o, p, q, r] * scale, clamp_min), clamp_max)

nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1,
output_padding=1) with default init; x is (batch, in_channels, D, H, W),
normal; y is (batch, out_channels, 2D, 2H, 2W). With scale = 4, clamp_min =
-1 and clamp_max = 1.5, about 16% of y is clipped below and 8% above; y has
RMS about 0.8. Eager PyTorch writes the 8x-larger z and moves it twice more
for the scale and the clamp; a fused kernel applies both before its one write.
"""
import torch
import torch.nn as nn

batch = 16
in_channels = 64
out_channels = 32
depth = 32
height = 32
width = 32  # conv 58 GFLOP: 1.9 ms at 30 TFLOP/s; mul + clamp move 2.1 GB: 0.6 ms; about 2.5 ms
kernel_size = 3
scale = 4.0
clamp_min = -1.0
clamp_max = 1.5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale, clamp_min, clamp_max):
        super().__init__()
        self.conv = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=2,
                                       padding=kernel_size // 2, output_padding=1)
        self.scale, self.clamp_min, self.clamp_max = scale, clamp_min, clamp_max

    def forward(self, x):
        return torch.clamp(self.conv(x) * self.scale, self.clamp_min, self.clamp_max)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, scale, clamp_min, clamp_max]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 6,
                           "depth": 6, "height": 7, "width": 8}}
