"""Transposed 2-D convolution, 3x3, stride 2, then batch normalization (batch statistics) and tanh.

    z[b, o, p, q] = conv_bias[o] + sum over c, i, j with p = 2h - 1 + i, q = 2w - 1 + j
                    of x[b, c, h, w] * wt[c, o, i, j]
    mean[o] = mean_{b,p,q} z[b,o,p,q],   var[o] = mean_{b,p,q} (z[b,o,p,q] - mean[o])^2
    y[b, o, p, q] = tanh((z[b,o,p,q] - mean[o]) / sqrt(var[o] + eps) * weight[o] + bias[o])

nn.ConvTranspose2d(in_channels, out_channels, 3, stride=2, padding=1,
output_padding=1) with default init; F.batch_norm(..., training=True) without
running statistics; weight ~ 1 + 0.1 randn, bias ~ 0.1 randn. x is (batch,
in_channels, H, W), normal; y is (batch, out_channels, 2H, 2W) with RMS about
0.6. Eager PyTorch writes the upsampled z and reads it three more times; a
fused kernel can sum per channel in the epilogue and normalize and apply tanh
in one pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 128
out_channels = 64
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; norm + tanh move 2.7 GB: 0.8 ms; about 3.4 ms
kernel_size = 3
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2,
                                       padding=kernel_size // 2, output_padding=1)
        self.weight = nn.Parameter(torch.randn(out_channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.eps = eps

    def forward(self, x):
        z = F.batch_norm(self.conv(x), None, None, self.weight, self.bias,
                         training=True, eps=self.eps)
        return torch.tanh(z)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 12, "out_channels": 8, "height": 20, "width": 22}}
