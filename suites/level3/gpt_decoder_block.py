"""GPT-style pre-norm decoder block: causal self-attention with an explicit mask, then an MLP.

    a = LN1(x);  q, k, v = split(a @ Wqkv^T + bqkv)            each (B, heads, S, d/heads)
    s = q k^T / sqrt(d/heads), with s[i, j] = -inf where j > i  (causal mask)
    x = x + (softmax(s) v, heads merged) @ Wo^T + bo
    y = x + GELU(LN2(x) @ W1^T + b1) @ W2^T + b2               MLP d -> 4d -> d

The boolean mask is built explicitly (torch.triu) and applied with
masked_fill before the softmax; GELU is the tanh approximation as in GPT-2.
Wqkv is normal with std 1.4/sqrt(d) so attention is selective; other layers
use PyTorch's default init. x is (batch, seq_len, d_model), normal; y has
the same shape and RMS about 1.05. The GEMMs dominate; eager PyTorch also
spends the full S*S score tensor on the masked half and makes several
passes over it (scale, mask, softmax), which a causal flash-attention kernel
skips entirely.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 4
seq_len = 2048
d_model = 1024
num_heads = 16  # 24*B*S*d^2 + 4*B*S^2*d = 275 GFLOP: about 5.5 ms at 50 TFLOP/s, + ~1.5 ms over the 1 GB score tensor


class Model(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        nn.init.normal_(self.qkv.weight, std=1.4 / d_model ** 0.5)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)

    def attention(self, x):
        B, S, D = x.shape
        q, k, v = self.qkv(x).view(B, S, 3, self.num_heads, D // self.num_heads).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (D // self.num_heads) ** 0.5
        mask = torch.ones(S, S, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.proj(out.transpose(1, 2).reshape(B, S, D))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


def get_inputs():
    return [torch.randn(batch, seq_len, d_model)]


def get_init_inputs():
    return [d_model, num_heads]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "seq_len": 64, "d_model": 96, "num_heads": 4}}
