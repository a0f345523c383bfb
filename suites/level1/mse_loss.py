"""Mean squared error loss (full reduction to a scalar).

    loss = mean_{i,j} (predictions[i, j] - targets[i, j])^2

predictions and targets are (batch_size, dim), normal; targets are scaled by a
random factor s in [0.5, 1.5) drawn per call, so the loss (about 1 + s^2) moves
between calls by far more than the tolerance and no hard-coded constant passes.
The output is a 0-d float32 tensor. Two big reads feed one number: the kernel is
a memory-bound grid-wide reduction, and PyTorch eager writes the squared
differences out before reducing them.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: two 2 GiB inputs; eager reads 4 GiB, writes and rereads 2 GiB: ~2.5 ms on an H200.
batch_size = 32768
dim = 16384


class Model(nn.Module):
    def forward(self, predictions, targets):
        return F.mse_loss(predictions, targets)


def get_inputs():
    s = 0.5 + torch.rand(())
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim) * s]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 300, "dim": 1000}}
