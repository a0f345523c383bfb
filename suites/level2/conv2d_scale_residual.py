"""2-D convolution, 3x3, same padding, channels preserved, scaled and added to its input.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    y[b, o, h, w] = z[b, o, h, w] * scale + x[b, o, h, w]

x is (batch, channels, height, width), normal; nn.Conv2d(channels, channels)
with default init, so z has RMS about 0.6; scale = 1.5 and y has RMS about
1.3. Eager PyTorch writes z, reads it to scale, and reads both tensors again
to add; a fused kernel scales and adds the residual in the convolution's
epilogue, where the x tile it needs is already being loaded.
"""
import torch
import torch.nn as nn

batch = 16
channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; mul + add move 0.7 GB: 0.2 ms; about 2.8 ms
kernel_size = 3
scale = 1.5


class Model(nn.Module):
    def __init__(self, channels, kernel_size, scale):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.scale = scale

    def forward(self, x):
        return self.conv(x) * self.scale + x


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels, kernel_size, scale]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "channels": 10, "height": 30, "width": 34}}
