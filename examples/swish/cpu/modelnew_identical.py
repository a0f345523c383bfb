# expect: correct
# Honest: the reference's own forward as a ModelNew. Its speedup should be about 1; how far it is from that is the
# judge's bias against a Python candidate (the reference's warm call, the judge's clock from the span).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale
