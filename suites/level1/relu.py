"""ReLU (elementwise).

    y[i, j] = max(x[i, j], 0)

x is (batch_size, dim), normal, so half the elements are clipped and a copy of
the input does not pass. The simplest memory-bound op: the kernel's only job is
to read x once and write y once at full bandwidth (vector loads, enough bytes in
flight, a grid that covers the GPU).
"""
import torch
import torch.nn as nn

# GPU: 2^29 float32 (2 GiB) read + 2 GiB written = 4 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 250, "dim": 1200}}
