# expect: correct
# Returns the imaginary part of a conjugate view: torch keeps it lazily, with the negative bit set (is_neg()) over memory that holds -y. The worker resolves the bit inside the window (on the CPU the judge reads the output's bytes), so the honest value is what is checked.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        y = F.silu(x) * self.scale
        z = torch.complex(torch.zeros_like(y), -y)
        return z.conj().imag
