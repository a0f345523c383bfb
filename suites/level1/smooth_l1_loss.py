"""Smooth L1 (Huber-like) loss, mean over all elements (full reduction to a
scalar).

    d = predictions - targets
    loss = mean(0.5 * d^2 / beta if |d| < beta else |d| - 0.5 * beta)

predictions and targets are (batch_size, dim), normal; targets are scaled by a
random factor s in [0.5, 1.5) drawn per call, so the loss moves between calls by
far more than the tolerance. beta = 1 (a constructor argument). The output is a
0-d float32 tensor. Memory-bound grid-wide reduction with a branch per element;
PyTorch eager writes the per-element losses out before reducing them.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: two 2 GiB inputs; eager reads 4 GiB, writes and rereads 2 GiB: ~2.5 ms on an H200.
batch_size = 32768
dim = 16384
beta = 1.0


class Model(nn.Module):
    def __init__(self, beta):
        super().__init__()
        self.beta = beta

    def forward(self, predictions, targets):
        return F.smooth_l1_loss(predictions, targets, beta=self.beta)


def get_inputs():
    s = 0.5 + torch.rand(())
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim) * s]


def get_init_inputs():
    return [beta]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 300, "dim": 1000}}
