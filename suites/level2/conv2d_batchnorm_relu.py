"""2-D convolution, 3x3, same padding, then batch normalization (batch statistics) and ReLU.

    z[b, o, h, w] = conv_bias[o] + sum_{c, i, j} wt[o, c, i, j] * x[b, c, h + i - 1, w + j - 1]
    mean[o] = mean_{b,h,w} z[b,o,h,w],   var[o] = mean_{b,h,w} (z[b,o,h,w] - mean[o])^2
    y[b, o, h, w] = max((z[b,o,h,w] - mean[o]) / sqrt(var[o] + eps) * weight[o] + bias[o], 0)

F.batch_norm(..., training=True) without running statistics, so the module
behaves the same under .eval(). x is (batch, in_channels, height, width),
normal; nn.Conv2d with default init; weight ~ 1 + 0.1 randn, bias ~ 0.1 randn;
y has RMS about 0.7. Eager PyTorch writes z, reads it twice for the norm and
again for the ReLU; a fused kernel can reduce the per-channel sums in the
convolution's epilogue and apply normalization and ReLU in one pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 64
out_channels = 128
height = 128
width = 128  # conv 77 GFLOP: 2.6 ms at 30 TFLOP/s; norm + relu move 1.3 GB: 0.4 ms; about 3 ms
kernel_size = 3
eps = 1e-5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, eps):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.weight = nn.Parameter(torch.randn(out_channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)
        self.eps = eps

    def forward(self, x):
        z = F.batch_norm(self.conv(x), None, None, self.weight, self.bias,
                         training=True, eps=self.eps)
        return torch.relu(z)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 8, "out_channels": 12, "height": 30, "width": 34}}
