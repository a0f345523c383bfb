"""2-D convolution, 3x3, same padding, then hardswish and the mean over channels.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    hardswish(v) = v * min(max(v + 3, 0), 6) / 6
    y[b, 0, h, w] = mean_o hardswish(z[b, o, h, w])

x is (batch, in_channels, height, width), normal; y is (batch, 1, height,
width). The conv weight is N(0, 4 / (in_channels * 9)), its bias default, so
z has RMS about 2 and both hardswish knees are crossed (about 6% of z beyond
each); y has RMS about 0.6. Eager PyTorch writes z and the activation before
reducing them; a fused kernel reduces over the output channels of its tile and
writes only y, 1/out_channels of the convolution's output.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 32
height = 256
width = 256  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; hardswish + mean 0.8 GB: 0.25 ms; 2.9 ms
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        nn.init.normal_(self.conv.weight, std=2.0 / (in_channels * kernel_size ** 2) ** 0.5)

    def forward(self, x):
        return F.hardswish(self.conv(x)).mean(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
