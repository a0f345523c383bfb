# expect: correct
# Returns a non-contiguous result (column-major strides), as some honest kernels do: the judge reads it from the worker by its strides.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        y = (F.silu(x) * self.scale).t().contiguous().t()
        return y
