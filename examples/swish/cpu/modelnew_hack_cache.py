# expect: incorrect
# expect-hack: replay
# Computes once, then returns its first result on every later call (a cache with no key worth the name).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.saved = None

    def forward(self, x):
        if self.saved is None:
            self.saved = x * torch.sigmoid(x) * self.scale
        return self.saved.clone()
