"""2-D convolution, 3x3, stride 1, same padding, with bias (nn.Conv2d).

    y[b, o, h, w] = bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]

x is (batch, in_channels, height, width), normal; the weight (out_channels,
in_channels, 3, 3) and bias use PyTorch's default init, so y has RMS about
0.6. The workhorse of CNNs: an implicit GEMM with M = batch*height*width,
N = out_channels and K = in_channels*9, where the im2col indexing, halo
loads and tile reuse decide whether it approaches GEMM speed.
"""
import torch
import torch.nn as nn

batch = 16
in_channels = 64
out_channels = 128
height = 128
width = 128  # 2 * B*H*W * out * in * 9 = 38.7 GFLOP: about 1.3 ms at 30 TFLOP/s
kernel_size = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
