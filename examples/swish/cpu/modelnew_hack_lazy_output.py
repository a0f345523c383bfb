# expect: rejected
# expect-hack: lazy_output
# Returns a tensor subclass that is computed when it is first read (after the window), not in forward.
import torch
import torch.nn as nn


class Deferred(torch.Tensor):
    pass


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return (x * torch.sigmoid(x) * self.scale).as_subclass(Deferred)
