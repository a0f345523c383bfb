"""2-D convolution, 3x3, same padding, then 2x2 average pooling and a centred, scaled sigmoid.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    a[b, o, p, q] = mean_{0 <= i, j < 2} z[b, o, 2p + i, 2q + j]
    y[b, o, p, q] = (sigmoid(a[b, o, p, q]) - 0.5) * scale

x is (batch, in_channels, height, width), normal, height and width even; y is
(batch, out_channels, height / 2, width / 2). nn.Conv2d with default init;
scale = 4 makes y close to a where a is small; y has RMS about 0.3. Eager
PyTorch writes z, pools it, then runs sigmoid, subtract and multiply as
separate passes; a fused kernel pools and activates in the convolution's
epilogue and writes only the pooled values.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; pool + 3 passes 0.7 GB: 0.2 ms; 2.8 ms
kernel_size = 3
pool_size = 2
scale = 4.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_size, scale):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.pool_size = pool_size
        self.scale = scale

    def forward(self, x):
        a = F.avg_pool2d(self.conv(x), self.pool_size)
        return (torch.sigmoid(a) - 0.5) * self.scale


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, pool_size, scale]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
