"""Depthwise 3x3 conv, pointwise (1x1) conv, then ReLU6: a MobileNet block without residual.

    d[b, c, h, w] = dw_bias[c] + sum_{i, j} dw[c, 0, i, j] * x[b, c, h + i - 1, w + j - 1]
    z[b, o, h, w] = pw_bias[o] + sum_c pw[o, c, 0, 0] * d[b, c, h, w]
    y[b, o, h, w] = min(max(z[b, o, h, w], 0), 6)

x is (batch, in_channels, height, width), normal; y is (batch, out_channels,
height, width). The depthwise weight is 2 randn (no batch norm in between), so
z has RMS about 3.3 and the cap at 6 clips about 4% of y; the other weights
use PyTorch's default init; y has RMS about 2.2. Eager PyTorch writes d and z
to memory; a fused kernel computes d for a pixel tile in shared memory, feeds
it straight into the 1x1 GEMM and clamps in the epilogue.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 128
out_channels = 256
height = 128
width = 128  # 1x1 conv 34 GFLOP: 1.1 ms at 30 TFLOP/s; depthwise + relu6 1.6 GB: 0.45 ms; 1.6 ms
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.depthwise = nn.Conv2d(in_channels, in_channels, kernel_size, padding=kernel_size // 2,
                                   groups=in_channels)
        self.pointwise = nn.Conv2d(in_channels, out_channels, 1)
        nn.init.normal_(self.depthwise.weight, std=2.0)

    def forward(self, x):
        return F.relu6(self.pointwise(self.depthwise(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 12, "out_channels": 16, "height": 30, "width": 34}}
