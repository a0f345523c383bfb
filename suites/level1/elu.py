"""ELU (elementwise).

    y[i, j] = x[i, j] if x[i, j] > 0 else alpha * (exp(x[i, j]) - 1)

x is (batch_size, dim), normal; alpha is 1.3 (a constructor argument). Memory-
bound; the negative branch wants expm1 (not exp - 1) to keep its relative
accuracy for small |x|.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384
alpha = 1.3


class Model(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return F.elu(x, alpha=self.alpha)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [alpha]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
