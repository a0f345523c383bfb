"""3-D convolution, 3x3x3, stride 1, same padding, with bias (nn.Conv3d).

    y[b, o, d, h, w] = bias[o] + sum_{c, i, j, k} wt[o, c, i, j, k] * x[b, c, d+i-1, h+j-1, w+k-1]

x is (batch, in_channels, depth, height, width), normal; the weight
(out_channels, in_channels, 3, 3, 3) and bias use PyTorch's default init, so
y has RMS about 0.6. As conv2d but with a 27-tap window: the reduction is
in_channels * 27 long, and the halo around a 3-D tile is large, so input
reuse across neighbouring outputs matters even more.
"""
import torch
import torch.nn as nn

batch = 8
in_channels = 32
out_channels = 64
depth = 64
height = 64
width = 64  # 2 * B*D*H*W * out * in * 27 = 58 GFLOP: about 2 ms at 30 TFLOP/s
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 4, "out_channels": 6,
                           "depth": 10, "height": 12, "width": 14}}
