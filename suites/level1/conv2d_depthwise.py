"""Depthwise 2-D convolution, 3x3, stride 1, same padding, with bias.

    y[b, c, h, w] = bias[c] + sum_{i, j} wt[c, 0, i, j] * x[b, c, h + i - 1, w + j - 1]

nn.Conv2d with groups = channels: each channel is filtered by its own 3x3
kernel. x is (batch, channels, height, width), normal; weight (channels, 1,
3, 3) and bias use PyTorch's default init, so y has RMS about 0.6. Only 9
multiply-adds per output: memory-bound, so the kernel should read each input
pixel once (shared-memory tile with a halo) and write each output once.
"""
import torch
import torch.nn as nn

batch = 32
channels = 256
height = 256
width = 256  # x and y are 2.1 GB each, 4.3 GB moved: about 1.2 ms at 3.5 TB/s
kernel_size = 3


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=kernel_size // 2,
                              groups=channels)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "channels": 12, "height": 40, "width": 36}}
