# expect: compile_error
# Names its parameter differently from the task's Model ("weight", not "scale"): the reference's state cannot be given to it.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.weight
