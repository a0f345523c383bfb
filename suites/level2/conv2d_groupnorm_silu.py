"""2-D convolution, 3x3, same padding, then group normalization and SiLU.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    mean[b, g], var[b, g] over the channels o of group g (out_channels / groups each) and all h, w
    n[b, o, h, w] = (z[b,o,h,w] - mean[b,g(o)]) / sqrt(var[b,g(o)] + eps) * weight[o] + bias[o]
    y = n * sigmoid(n)

x is (batch, in_channels, height, width), normal; nn.Conv2d with default
init; weight ~ 1 + 0.1 randn, bias ~ 0.1 randn; y has RMS about 0.6. Eager
PyTorch writes z, reads it twice for the norm and again for the SiLU; a fused
kernel can accumulate the group statistics in the convolution's epilogue and
normalize and activate in a single pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; norm + silu move 1.3 GB: 0.4 ms; about 3 ms
kernel_size = 3
groups = 8
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, eps):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.weight = nn.Parameter(torch.randn(out_channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.groups = groups
        self.eps = eps

    def forward(self, x):
        z = F.group_norm(self.conv(x), self.groups, self.weight, self.bias, self.eps)
        return F.silu(z)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34,
                           "groups": 3}}
