"""One Qwen3-8B decoder layer over a prompt (prefill): RMSNorm, grouped-query causal self-attention with per-head q/k RMSNorm and RoPE, RMSNorm, SwiGLU MLP, residuals; bf16.

    h = RMSNorm(x);  q, k, v = h Wq^T, h Wk^T, h Wv^T         32 query, 8 key/value heads of 128
    q, k = RoPE(HeadRMSNorm(q)), RoPE(HeadRMSNorm(k))          theta 1e6, positions 0..S-1
    a = softmax(q k^T / sqrt(128), causal) v                   each kv head serves 4 query heads
    x = x + a Wo^T
    y = x + (silu(g) * u) Wd^T,  g, u = RMSNorm(x) Wg^T, RMSNorm(x) Wu^T     4096 -> 12288 -> 4096

x is (batch, seq, 4096), bf16, normal with std 2 (the residual stream); y
likewise, RMS about 2.05. No biases (Qwen3 has none). Every RMSNorm (eps
1e-6) is computed in float32 and rounded to bf16 once, and so are the q/k
norm and RoPE (cos/sin computed in forward, as in qwen3_qk_norm_rope);
attention is the eager formulation (kv heads repeated, bf16 scores, a
boolean causal mask, softmax in float32, probabilities in bf16). The
projections are normal with std 1/sqrt(fan_in), except Wo (std
2/sqrt(4096)) and Wd (std 0.5/sqrt(12288), MLP branch RMS ~0.3); norm
weights are 1 + 0.1 randn, so the scores have std about 1 and token i's
attention output is an average over ~i/3 tokens: the attention branch adds
RMS ~2 at the first token, ~0.3 by the 100th, ~0.05 at the last. The
branches are small next to the residual stream (as in a trained model),
so that any two sound bf16 implementations agree within bf16's tolerance,
yet skipping either fails. The GEMMs (1.6 TFLOP) dominate; eager
attention also writes the (32, S, S) score tensor in bf16 and float32 and
makes ~5 passes over it, which causal flash attention skips; RMSNorm, q/k
norm + RoPE, SiLU-and-multiply and the residual adds fold into GEMM
prologues and epilogues.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 1
seq_len = 4096  # GEMMs 1.58 TFLOP ~3 ms at ~550 TFLOP/s bf16, attention 0.27 TFLOP + ~10 GB of score traffic ~3 ms: ~6 ms
hidden = 4096
q_heads = 32
kv_heads = 8
head_dim = 128
intermediate = 12288
theta = 1e6
eps = 1e-6
attn_gain = 2.0  # Wo std attn_gain / sqrt(q_heads * head_dim)


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

    def forward(self, x):
        B, S, _ = x.shape
        D = self.head_dim
        h = self.input_norm(x)
        cos, sin = rope_cos_sin(torch.arange(S, device=x.device), D, self.theta)
        q = self.norm_rope(self.q_proj(h).view(B, S, self.q_heads, D), self.q_norm, cos, sin)
        k = self.norm_rope(self.k_proj(h).view(B, S, self.kv_heads, D), self.k_norm, cos, sin)
        v = self.v_proj(h).view(B, S, self.kv_heads, D).transpose(1, 2)
        groups = self.q_heads // self.kv_heads
        scores = torch.matmul(q, repeat_kv(k, groups).transpose(2, 3)) * D ** -0.5
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).triu(1)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1, dtype=torch.float32).to(x.dtype)
        a = torch.matmul(probs, repeat_kv(v, groups)).transpose(1, 2).reshape(B, S, self.q_heads * D)
        x = x + self.o_proj(a)
        h = self.post_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def get_inputs():
    return [(2 * torch.randn(batch, seq_len, hidden)).to(torch.bfloat16)]


def get_init_inputs():
    return [hidden, q_heads, kv_heads, head_dim, intermediate, theta, eps, attn_gain]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"seq_len": 48, "hidden": 128, "q_heads": 4, "kv_heads": 2, "head_dim": 32,
                           "intermediate": 256, "attn_gain": 1.0}}
