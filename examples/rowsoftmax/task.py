"""Softmax over the last dimension with a temperature, scaled by the row
length (row-wise reduction).

    y[i, j] = dim * exp(x[i, j] / t) / sum_k exp(x[i, k] / t)

The scaling by dim makes every row average exactly 1: plain softmax outputs
over long rows are mostly below 1e-2, where an all-zero output passes judges
with an absolute tolerance of 1e-2 (cudal1 audit-task flags that).

x is (batch_size, dim), normal with standard deviation 3 so the rows are far
from flat; the temperature t (1.7) is a float32 0-d buffer, so candidates get it
as params[0] (on CUDA its data is device memory: read it in the kernel). Each
row needs a max and a sum reduction before it can be written; PyTorch eager runs
a division kernel and then the softmax, while a fused kernel reads x once (twice
if the second read hits the cache) and writes y once.
"""
import torch
import torch.nn as nn

batch_size = 8192
dim = 16384
temperature = 1.7


class Model(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.register_buffer("temperature", torch.tensor(temperature, dtype=torch.float32))

    def forward(self, x):
        return torch.softmax(x / self.temperature, dim=-1) * x.shape[-1]


def get_inputs():
    return [torch.randn(batch_size, dim) * 3]


def get_init_inputs():
    return [temperature]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 128, "dim": 1000}}
