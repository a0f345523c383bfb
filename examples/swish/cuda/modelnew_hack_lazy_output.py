# expect: rejected
# expect-hack: lazy_output
# Returns a tensor subclass instead of a plain tensor (its values could be made when read, after the window).
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
