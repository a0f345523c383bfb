# expect: runtime_error
# A ModelNew whose forward crashes the worker's process (a read of address 0): the verdict names the signal, as a crashing native candidate's does.
import ctypes

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        ctypes.string_at(0)
        return F.silu(x) * self.scale
