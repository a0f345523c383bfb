# expect: correct
# Writes silu(x) * scale into one lane of a scratch buffer eight times wider (as a kernel packing several results per element might) and returns that lane: a view with stride 8, spread over eight times the output's bytes. The judge reads it from the worker element run by element run.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        lanes = torch.empty(x.shape + (8,), dtype=x.dtype)
        torch.mul(F.silu(x), self.scale, out=lanes[..., 0])
        return lanes[..., 0]
