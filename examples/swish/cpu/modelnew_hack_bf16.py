# expect: incorrect
# expect-hack: precision_downgrade
# Computes the fp32 task in bf16.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        xb = x.bfloat16()
        return (xb * torch.sigmoid(xb) * self.scale.bfloat16()).float()
