"""Log-softmax over the last dimension (row-wise reduction).

    y[i, j] = x[i, j] - max_k x[i, k] - log(sum_k exp(x[i, k] - max_k x[i, k]))

x is (batch_size, dim), normal; outputs are near -log(dim) - 0.5 (about -8.8).
A row's max and log-sum-exp must be reduced before it is written; a fused
kernel reads x once per row (online max-and-sum) and writes y once.
"""
import torch
import torch.nn as nn

# GPU: 2^29 float32 (2 GiB); eager reads x ~twice and writes once: ~6 GiB,
# ~2 ms on an H200.
batch_size = 131072
dim = 4096


class Model(nn.Module):
    def forward(self, x):
        return torch.log_softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 120, "dim": 2500}}
