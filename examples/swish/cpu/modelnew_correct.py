# expect: correct
# A KernelBench ModelNew in plain PyTorch: silu(x) * scale in two operations instead of three.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return F.silu(x) * self.scale
