"""3-D convolution, 3x3x3, same padding, then batch normalization (batch statistics) and ReLU.

    z[b, o, d, h, w] = conv_bias[o] + sum_{c,i,j,k} wt[o,c,i,j,k] * x[b, c, d+i-1, h+j-1, w+k-1]
    mean[o] = mean_{b,d,h,w} z[b,o,d,h,w],   var[o] = mean_{b,d,h,w} (z[b,o,d,h,w] - mean[o])^2
    y[b, o, d, h, w] = max((z[b,o,d,h,w] - mean[o]) / sqrt(var[o] + eps) * weight[o] + bias[o], 0)

F.batch_norm(..., training=True) without running statistics, so the module
behaves the same under .eval(). x is (batch, in_channels, depth, height,
width), normal; nn.Conv3d with default init; weight ~ 1 + 0.1 randn, bias ~
0.1 randn; y has RMS about 0.7. Eager PyTorch writes the 0.5 GB z and reads it
three more times (two for the norm, one for the ReLU); a fused kernel can sum
per channel in the convolution's epilogue and finish in one elementwise pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8
in_channels = 32
out_channels = 64
depth = 64
height = 64
width = 64  # conv 58 GFLOP: 1.9 ms at 30 TFLOP/s; norm + relu move 2.7 GB: 0.8 ms; about 2.7 ms
kernel_size = 3
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.weight = nn.Parameter(torch.randn(out_channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.eps = eps

    def forward(self, x):
        z = F.batch_norm(self.conv(x), None, None, self.weight, self.bias,
                         training=True, eps=self.eps)
        return torch.relu(z)


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 4, "out_channels": 6,
                           "depth": 10, "height": 12, "width": 14}}
