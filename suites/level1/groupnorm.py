"""Group normalization with affine parameters (nn.GroupNorm).

    channels split into G groups of C/G; for each (b, g) over its channels and H*W:
    y[b,c,h,w] = (x[b,c,h,w] - mu[b,g]) / sqrt(var[b,g] + eps) * weight[c] + bias[c]

nn.GroupNorm(groups, channels) with weight ~ 1 + 0.1 randn and bias ~ 0.1
randn. x is (batch, channels, H, W), normal with a per-channel offset (so
groups are not zero-mean); y has RMS about 1. Each (sample, group) is a
contiguous slab of (C/G)*H*W = 1M elements: too long for one block, so the
statistics need a split reduction, and the affine step is per channel.
"""
import torch
import torch.nn as nn

batch = 64
channels = 128
groups = 8
height = 256
width = 256  # x is 2.1 GB; read twice + write once, 6.4 GB: about 1.8 ms at 3.5 TB/s
eps = 1e-5


class Model(nn.Module):
    def __init__(self, groups, channels, eps):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(torch.randn(channels) * 0.1 + 1)
            self.norm.bias.copy_(torch.randn(channels) * 0.1)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width) + torch.randn(1, channels, 1, 1)]


def get_init_inputs():
    return [groups, channels, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 3, "channels": 12, "groups": 4, "height": 20, "width": 18}}
