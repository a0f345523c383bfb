"""KL divergence of a target distribution from a predicted one, per batch row
(full reduction to a scalar).

    loss = (1 / batch_size) * sum_{i,j} t[i, j] * (log t[i, j] - log_p[i, j])

log_p is log_softmax of a normal (batch_size, dim) tensor (log-probabilities,
F.kl_div's input); t is softmax of a normal tensor times a random factor s in
[0.5, 1.5) drawn per call (probabilities, the target), so the loss (about
(1 + s^2) / 2) moves between calls by far more than the tolerance. The output is
a 0-d float32 tensor ('batchmean'). Two big reads, a log per element and a
grid-wide reduction; PyTorch eager writes the pointwise terms out first.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: two 2^28-element (1 GiB) inputs; eager reads 2 GiB, writes and rereads
# 1 GiB: ~1.3 ms on an H200.
batch_size = 32768
dim = 8192


class Model(nn.Module):
    def forward(self, log_predictions, targets):
        return F.kl_div(log_predictions, targets, reduction="batchmean")


def get_inputs():
    s = 0.5 + torch.rand(())
    log_p = torch.log_softmax(torch.randn(batch_size, dim), dim=-1)
    return [log_p, torch.softmax(torch.randn(batch_size, dim) * s, dim=-1)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 300, "dim": 1000}}
