"""Instance normalization with affine parameters (F.instance_norm).

    mu[b,c] = mean_{h,w} x[b,c,h,w],   var[b,c] = mean_{h,w} (x[b,c,h,w] - mu[b,c])^2
    y[b,c,h,w] = (x[b,c,h,w] - mu[b,c]) / sqrt(var[b,c] + eps) * weight[c] + bias[c]

weight ~ 1 + 0.1 randn and bias ~ 0.1 randn are parameters; statistics always
come from the input (use_input_stats=True), so .eval() changes nothing. x is
(batch, channels, H, W), normal scaled by 2 with a per-(b, c) offset; y has
RMS about 1. One reduction per (b, c) plane of H*W = 262144 contiguous
elements: a long, contiguous row, larger than a block can hold in registers.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
channels = 64
height = 512
width = 512  # x is 2.1 GB; read twice + write once, 6.4 GB: about 1.8 ms at 3.5 TB/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, channels, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels) * 0.1 + 1)
        self.bias = nn.Parameter(torch.randn(channels) * 0.1)
        self.eps = eps

    def forward(self, x):
        return F.instance_norm(x, weight=self.weight, bias=self.bias, eps=self.eps)


def get_inputs():
    return [torch.randn(batch, channels, height, width) * 2 + torch.randn(batch, channels, 1, 1)]


def get_init_inputs():
    return [channels, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "channels": 6, "height": 40, "width": 34}}
