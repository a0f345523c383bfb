"""Batch normalization over (N, H, W) with batch statistics (training mode).

    mean[c] = mean_{b,h,w} x[b,c,h,w],   var[c] = mean_{b,h,w} (x[b,c,h,w] - mean[c])^2
    y[b,c,h,w] = (x[b,c,h,w] - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]

F.batch_norm(..., training=True) without running statistics, so the module
behaves the same under .eval(). x is (batch, channels, H, W), normal with a
per-channel offset; weight ~ 1 + 0.1 randn, bias ~ 0.1 randn; y has RMS about
1. Each channel's reduction spans the whole batch and spatial extent (NCHW:
strided slabs), so it needs a multi-block reduction before the elementwise pass.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 64
channels = 128
height = 256
width = 256  # x is 2.1 GB; read twice + write once, 6.4 GB: about 1.8 ms at 3.5 TB/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)
        self.eps = eps

    def forward(self, x):
        return F.batch_norm(x, None, None, self.weight, self.bias, training=True, eps=self.eps)


def get_inputs():
    return [torch.randn(batch, channels, height, width) + torch.randn(1, channels, 1, 1)]


def get_init_inputs():
    return [channels, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "channels": 12, "height": 30, "width": 26}}
