"""Attention scores: batched Q K^T, scaled by 1/sqrt(d), softmax over keys,
scaled by the key count.

    s[b, i, j] = sum_c q[b, i, c] * k[b, j, c] / sqrt(head_dim)
    y[b, i, j] = seq_len * exp(s[b, i, j]) / sum_t exp(s[b, i, t])

q and k are (batch, seq_len, head_dim), normal, so s has RMS about 1; the
factor seq_len makes each row average 1 (y has RMS about 1.6). Eager writes
the (batch, seq_len, seq_len) scores, rescales them, runs the softmax and
multiplies again: about eight passes over a 1 GB tensor. A fused kernel
computes a row block of scores in registers, softmaxes it (the row of 2048
fits on chip) and writes y once.
"""
import torch
import torch.nn as nn

batch = 64
seq_len = 2048
head_dim = 64  # bmm 34 GFLOP (~0.7 ms) + ~8 passes over 1.07 GB (~2.5 ms): about 3.2 ms


class Model(nn.Module):
    def forward(self, q, k):
        s = torch.bmm(q, k.transpose(1, 2)) / q.shape[2] ** 0.5
        return torch.softmax(s, dim=-1) * s.shape[-1]


def get_inputs():
    return [torch.randn(batch, seq_len, head_dim), torch.randn(batch, seq_len, head_dim)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 3, "seq_len": 128, "head_dim": 16}}
