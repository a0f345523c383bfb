"""Cross-entropy loss over class logits, mean over the batch (row-wise
log-sum-exp, then a full reduction to a scalar).

    loss = (1 / batch_size) * sum_i (logsumexp_c logits[i, c] - logits[i, targets[i]])

logits are (batch_size, num_classes), normal times a random factor s in [1, 2)
drawn per call, so the loss (about log(num_classes) + s^2 / 2, 7.4 to 8.9) moves
between calls by far more than the tolerance; targets are (batch_size,) int64
from randint. The output is a 0-d float32 tensor. A fused kernel reads each row
once (online max-and-sum), picks the target logit, and reduces across rows;
PyTorch eager writes the whole log-softmax out first.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# GPU: 2^19 * 1000 float32 logits = 2 GiB; eager log_softmax reads ~2x and
# writes once, nll_loss gathers: ~6 GiB, ~2 ms on an H200.
batch_size = 524288
num_classes = 1000


class Model(nn.Module):
    def forward(self, logits, targets):
        return F.cross_entropy(logits, targets)


def get_inputs():
    s = 1 + torch.rand(())
    return [torch.randn(batch_size, num_classes) * s, torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 600, "num_classes": 1000}}
