"""One Qwen3-8B decoder layer for one decode step: the new token of each sequence attends to its KV cache plus itself; returns the layer output and the new token's key and value; bf16.

TODO
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
kv_len = 8192  # TODO
hidden = 4096
q_heads = 32
kv_heads = 8
head_dim = 128
intermediate = 12288
theta = 1e6
eps = 1e-6


class RMSNorm(nn.Module):
    """RMSNorm over the last dimension with a learned scale, in float32; keep_float32 skips the final rounding."""

    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x, keep_float32=False):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight.float()
        return y if keep_float32 else y.to(x.dtype)


def rope_cos_sin(positions, head_dim, theta):
    """cos and sin of the RoPE angles at int64 positions, (len, head_dim) float32, as eager PyTorch computes them."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=positions.device).float() / head_dim))
    angles = positions.float()[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return angles.cos(), angles.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def repeat_kv(x, groups):
    """(B, kv_heads, T, D) -> (B, kv_heads * groups, T, D), each kv head repeated for its query heads."""
    b, h, t, d = x.shape
    return x[:, :, None, :, :].expand(b, h, groups, t, d).reshape(b, h * groups, t, d)


def linear(fan_in, fan_out, std):
    layer = nn.Linear(fan_in, fan_out, bias=False)
    nn.init.normal_(layer.weight, std=std)
    return layer


class Model(nn.Module):
    def __init__(self, hidden, q_heads, kv_heads, head_dim, intermediate, theta, eps, kv_len):
        super().__init__()
        self.q_heads, self.kv_heads, self.head_dim, self.theta = q_heads, kv_heads, head_dim, theta
        attn_gain = kv_len ** 0.5 / 6  # the attention output averages ~kv_len values: RMS ~ 1.7 / sqrt(kv_len)
        self.input_norm = RMSNorm(hidden, eps)
        self.q_proj = linear(hidden, q_heads * head_dim, hidden ** -0.5)
        self.k_proj = linear(hidden, kv_heads * head_dim, hidden ** -0.5)
        self.v_proj = linear(hidden, kv_heads * head_dim, hidden ** -0.5)
        self.o_proj = linear(q_heads * head_dim, hidden, attn_gain * (q_heads * head_dim) ** -0.5)
        self.q_norm = RMSNorm(head_dim, eps)
        self.k_norm = RMSNorm(head_dim, eps)
        self.post_norm = RMSNorm(hidden, eps)
        self.gate_proj = linear(hidden, intermediate, hidden ** -0.5)
        self.up_proj = linear(hidden, intermediate, hidden ** -0.5)
        self.down_proj = linear(intermediate, hidden, 0.5 * intermediate ** -0.5)
        self.to(torch.bfloat16)  # the model runs in bf16

    def norm_rope(self, x, norm, cos, sin):
        """(B, S, heads, D) -> (B, heads, S, D): head RMSNorm and RoPE in float32, rounded once."""
        x_f = norm(x, keep_float32=True).transpose(1, 2)
        return (x_f * cos + rotate_half(x_f) * sin).to(x.dtype)

    def forward(self, x, k_cache, v_cache):
        B, S, _ = x.shape  # S = 1: the new token, at position T
        T = k_cache.shape[2]
        D = self.head_dim
        h = self.input_norm(x)
        cos, sin = rope_cos_sin(torch.arange(T, T + S, device=x.device), D, self.theta)
        q = self.norm_rope(self.q_proj(h).view(B, S, self.q_heads, D), self.q_norm, cos, sin)
        k = self.norm_rope(self.k_proj(h).view(B, S, self.kv_heads, D), self.k_norm, cos, sin)
        v = self.v_proj(h).view(B, S, self.kv_heads, D).transpose(1, 2)
        keys = torch.cat((k_cache, k), dim=2)  # as a growing (dynamic) cache appends: a copy of the cache
        values = torch.cat((v_cache, v), dim=2)
        groups = self.q_heads // self.kv_heads
        scores = torch.matmul(q, repeat_kv(keys, groups).transpose(2, 3)) * D ** -0.5
        probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(x.dtype)
        a = torch.matmul(probs, repeat_kv(values, groups)).transpose(1, 2).reshape(B, S, self.q_heads * D)
        x = x + self.o_proj(a)
        h = self.post_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h)), k, v


def get_inputs():
    x = 2 * torch.randn(batch, 1, hidden)
    k_cache = torch.randn(batch, kv_heads, kv_len, head_dim)
    v_cache = torch.randn(batch, kv_heads, kv_len, head_dim)
    return [x.to(torch.bfloat16), k_cache.to(torch.bfloat16), v_cache.to(torch.bfloat16)]


def get_init_inputs():
    return [hidden, q_heads, kv_heads, head_dim, intermediate, theta, eps, kv_len]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 3, "kv_len": 40, "hidden": 128, "q_heads": 4, "kv_heads": 2, "head_dim": 32,
                           "intermediate": 256}}
