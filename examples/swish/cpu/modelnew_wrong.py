# expect: incorrect
# Forgets the learned scale: x * sigmoid(x) only.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x)
