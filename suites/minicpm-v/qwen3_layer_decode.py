"""One Qwen3-8B decoder layer for one decode step: each sequence's new token attends to its KV cache and itself; returns the layer output and the new token's key (normed, roped) and value; bf16.

    h = RMSNorm(x);  q, k, v = h Wq^T, h Wk^T, h Wv^T         32 query, 8 key/value heads of 128
    q, k = RoPE(HeadRMSNorm(q)), RoPE(HeadRMSNorm(k))          theta 1e6, position T
    a = softmax(q [K_cache; k]^T / sqrt(128)) [V_cache; v]     T + 1 keys; each kv head serves 4 query heads
    x = x + a Wo^T
    y = x + (silu(g) * u) Wd^T,  g, u = RMSNorm(x) Wg^T, RMSNorm(x) Wu^T     4096 -> 12288 -> 4096

x is (batch, 1, 4096), bf16, normal with std 2 (the residual stream); the
caches are (batch, 8, T, 128), bf16, normal (keys as stored: normed and
roped). Outputs: y (batch, 1, 4096), RMS about 2.05, and the new k and v
(batch, 8, 1, 128), RMS 1, which a serving engine appends to the cache.
Layer math, rounding and initialization are those of qwen3_layer_prefill,
except Wo's std, attn_gain/sqrt(4096): the attention output averages ~T/3
cached values (scores with std about 1), so it comes out ~1/50 of v and
the gain makes the attention branch RMS ~0.3. Eager PyTorch appends to the
cache by concatenation (a copy of the cache, as a growing cache does),
copies it 4x more for the repeated kv heads, then reads the copies in two
batched GEMVs: ~12 GB in all. A fused decode reads the 1.07 GB cache once
(flash-decoding, the 4 query heads of a group sharing each K/V row) and
the 386 MB of weights once, in GEMVs with the norms, RoPE, SiLU-and-multiply
and residuals in their prologues and epilogues.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
kv_len = 8192  # eager moves ~12 GB (cache concatenated, repeated 4x, read twice) + 386 MB of weights: about 3.5 ms
hidden = 4096
q_heads = 32
kv_heads = 8
head_dim = 128
intermediate = 12288
theta = 1e6
eps = 1e-6
attn_gain = 15.0  # Wo std attn_gain / sqrt(q_heads * head_dim); about sqrt(kv_len) / 6


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
    def __init__(self, hidden, q_heads, kv_heads, head_dim, intermediate, theta, eps, attn_gain):
        super().__init__()
        self.q_heads, self.kv_heads, self.head_dim, self.theta = q_heads, kv_heads, head_dim, theta
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
    return [hidden, q_heads, kv_heads, head_dim, intermediate, theta, eps, attn_gain]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 3, "kv_len": 40, "hidden": 128, "q_heads": 4, "kv_heads": 2, "head_dim": 32,
                           "intermediate": 256, "attn_gain": 1.0}}
