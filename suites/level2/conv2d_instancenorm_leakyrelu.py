"""2-D convolution, 3x3, same padding, then instance normalization and leaky ReLU.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    mean[b, o] = mean_{h,w} z[b,o,h,w],   var[b, o] = mean_{h,w} (z[b,o,h,w] - mean[b,o])^2
    n[b, o, h, w] = (z[b,o,h,w] - mean[b,o]) / sqrt(var[b,o] + eps) * weight[o] + bias[o]
    y = n if n >= 0 else negative_slope * n

x is (batch, in_channels, height, width), normal; nn.Conv2d with default
init; weight ~ 1 + 0.1 randn, bias ~ 0.1 randn, negative_slope = 0.1; y has
RMS about 0.7. Eager PyTorch writes z, reads it twice for the norm and again
for the activation; a fused kernel can sum each (b, o) plane in the
convolution's epilogue and normalize and activate in one pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; norm + activation 1.3 GB: 0.4 ms; 3 ms
kernel_size = 3
eps = 1e-5
negative_slope = 0.1


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps, negative_slope):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.weight = nn.Parameter(torch.randn(out_channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.eps = eps
        self.negative_slope = negative_slope

    def forward(self, x):
        z = F.instance_norm(self.conv(x), weight=self.weight, bias=self.bias, eps=self.eps)
        return F.leaky_relu(z, self.negative_slope)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, eps, negative_slope]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
