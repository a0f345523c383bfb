"""Qwen3-8B attention prologue: per-head RMSNorm of q and k with learned weights, then RoPE (theta 1e6, rotate-half) at positions 0..S-1, transposed to (batch, heads, seq, 128); bf16.

    n[b, s, h, :] = x[b, s, h, :] / sqrt(mean_j x[b, s, h, j]^2 + eps) * w       (w: q_norm or k_norm weight)
    inv_freq[i] = 1 / theta^(2i / 128),  a[s, i] = s * inv_freq[i]              i < 64, float32
    out[b, h, s, i]      = n[i] cos a[s, i] - n[i + 64] sin a[s, i]
    out[b, h, s, i + 64] = n[i + 64] cos a[s, i] + n[i] sin a[s, i]

q is (batch, seq, 32, 128) and k (batch, seq, 8, 128), bf16, normal (the
q_proj and k_proj outputs of Qwen3-8B: 32 query and 8 key/value heads of
128); the outputs are (batch, 32, seq, 128) and (batch, 8, seq, 128),
bf16, RMS about 1; the norm weights are 1 + 0.2 randn, eps 1e-6. cos and
sin are computed in forward as eager PyTorch does: inv_freq = 1 /
theta^(arange(0, 128, 2) / 128) in float32, angle = position * inv_freq
in float32 (up to seq - 1 = 8191 rad, so a kernel needs full-range
sincosf, not __sinf), cos and sin in float32. Norm and rotation are
computed in float32 and rounded to bf16 once, as a fused kernel does.
(Hugging Face's eager Qwen3 rounds to bf16 after the norm, after the
weight and after each RoPE product; where the rotation's two terms cancel,
that differs from the exact result by more than bf16's tolerance, so an
exact kernel would fail against it.) Eager PyTorch makes ~12 passes over
q and k (float32 copies, pow, mean, multiplies, rotate-half's slices, neg
and cat, the cast); a fused kernel reads each head row once, reduces it in
a warp, rotates it in registers and writes it once, transposed.
"""
import torch
import torch.nn as nn

batch = 4
seq_len = 8192
q_heads = 32
kv_heads = 8  # q 134M + k 34M elements: eager moves ~80 B each, 13 GB: about 4 ms (fused: 0.67 GB, ~0.2 ms)
head_dim = 128
theta = 1e6
eps = 1e-6


class HeadRMSNorm(nn.Module):
    """RMSNorm over the last dimension with a learned scale, in float32 (the result stays float32)."""

    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.2 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        x = x.float()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight.float()


def rope_cos_sin(seq_len, head_dim, theta, device):
    """cos and sin of the RoPE angles, (seq_len, head_dim) float32, as eager PyTorch computes them."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=device).float() / head_dim))
    positions = torch.arange(seq_len, dtype=torch.int64, device=device).float()
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos(), angles.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Model(nn.Module):
    def __init__(self, head_dim, theta, eps):
        super().__init__()
        self.theta = theta
        self.q_norm = HeadRMSNorm(head_dim, eps)
        self.k_norm = HeadRMSNorm(head_dim, eps)
        self.to(torch.bfloat16)  # the model runs in bf16

    def forward(self, q, k):
        cos, sin = rope_cos_sin(q.shape[1], q.shape[-1], self.theta, q.device)
        qn = self.q_norm(q).transpose(1, 2)  # (B, heads, S, D), float32
        kn = self.k_norm(k).transpose(1, 2)
        q_out = qn * cos + rotate_half(qn) * sin
        k_out = kn * cos + rotate_half(kn) * sin
        return q_out.to(q.dtype), k_out.to(k.dtype)


def get_inputs():
    q = torch.randn(batch, seq_len, q_heads, head_dim).to(torch.bfloat16)
    k = torch.randn(batch, seq_len, kv_heads, head_dim).to(torch.bfloat16)
    return [q, k]


def get_init_inputs():
    return [head_dim, theta, eps]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "seq_len": 40, "q_heads": 4, "kv_heads": 2, "head_dim": 32}}
