# expect: incorrect
# Carries its own smaller batch_size and computes only that many rows (the task's sizes are the judge's, not the candidate's).
import torch
import torch.nn as nn

batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim)]


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        out = torch.zeros_like(x)
        out[:batch_size] = x[:batch_size] * torch.sigmoid(x[:batch_size]) * self.scale
        return out
