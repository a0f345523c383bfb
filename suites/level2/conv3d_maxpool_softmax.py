"""3-D convolution, 3x3x3, same padding, then 2x2x2 max pooling and a softmax over channels.

    z[b, o, d, h, w] = conv_bias[o] + sum_{c,i,j,k} wt[o,c,i,j,k] * x[b, c, d+i-1, h+j-1, w+k-1]
    m[b, o, p, q, r] = max_{0 <= i, j, k < 2} z[b, o, 2p + i, 2q + j, 2r + k]
    y[b, o, p, q, r] = out_channels * exp(m[b,o,p,q,r]) / sum_o' exp(m[b,o',p,q,r])

x is (batch, in_channels, depth, height, width), normal, every spatial size
even; y is (batch, out_channels, depth / 2, height / 2, width / 2), scaled by
the channel count so its mean is 1; nn.Conv3d with default init; y has RMS
about 1.07. Eager PyTorch writes the full-resolution z and reads it back to
pool; a fused kernel pools inside its tile, and with all output channels of a
pixel in one block it can finish the softmax before writing 1/8 of the values.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8
in_channels = 32
out_channels = 64
depth = 64
height = 64
width = 64  # conv 58 GFLOP: 1.9 ms at 30 TFLOP/s; pool, softmax, scale 0.9 GB: 0.25 ms; 2.2 ms
kernel_size = 3
pool_size = 2


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.pool_size = pool_size

    def forward(self, x):
        m = F.max_pool3d(self.conv(x), self.pool_size)
        return torch.softmax(m, dim=1) * m.shape[1]


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, pool_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 4, "out_channels": 6,
                           "depth": 10, "height": 12, "width": 14}}
