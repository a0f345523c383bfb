"""MiniCPM-V 4.5's perceiver resampler over image slices: 64 learned queries cross-attend (32 heads of 128) to each slice's 1024 vision tokens, projected to 4096 and LayerNorm'd, whose keys carry a 2-D sin/cos position embedding; float32.

    kv = LN_kv(x Wkv^T)                                  (slices, 1024, 4096); x from SigLIP, 1152 wide
    keys = kv + pos2d,  pos2d[(r, c)] = [sincos_2048(r), sincos_2048(c)]    32x32 patch grid
    sincos_n(p) = [sin(p w_i), cos(p w_i)],  w_i = 10000^(-i / (n/2)),  i < n/2
    q = LN_q(query) Wq^T + bq,  k = keys Wk^T + bk,  v = kv Wv^T + bv
    o = (softmax(q k^T / sqrt(128)) v, heads merged) Wo^T + bo                 (slices, 64, 4096)
    y = LN_post(o) P                                                           P: (4096, 4096)

x is (slices, 1024, 1152), normal; y is (slices, 64, 4096), RMS about 1.
The position embedding is computed in forward (float32, from the grid
size) as MiniCPM-V does for each slice's own grid. LayerNorms have eps
1e-6, weights 1 + 0.1 randn and small biases; Wq and Wk are normal with
std 1.1/sqrt(4096), so the scores have std about 1.5 (each query spreads
over ~200 of the 1024 tokens), the other projections std 1/sqrt(fan_in).
float32, not bf16: with no residual, the output inherits the attention
core's rounding noise and adds three more bf16 roundings after it, so the
eager bf16 reference and a sound flash-attention kernel disagree by ~0.5%
of the output RMS, beyond bf16's tolerance (measured on the CPU); in
float32 they agree to ~1e-6. The K and V projections (69 GFLOP per slice)
dominate; since the queries are parameters, Wk can be folded into them
(scores = (q_h Wk_h) . keys) and Wv applied after the weighted sum of kv,
halving the work, and the small 64-query attention needs no score tensor.
"""
import torch
import torch.nn as nn

slices = 5  # one 448x448 overview plus 2x2 slices: 0.42 TFLOP, about 8.5 ms at ~50 TFLOP/s (fp32, no TF32)
grid = 32  # 448 / 14 patches per side: 1024 tokens per slice
kv_dim = 1152
embed_dim = 4096
heads = 32
queries = 64
eps = 1e-6
qk_gain = 1.1  # q_proj and k_proj std qk_gain / sqrt(embed_dim): scores with std about 1.5


def sincos_1d(dim, positions):
    """(len,) float32 positions -> (len, dim): sin of the angles, then cos, at frequencies 10000^(-i / (dim/2))."""
    omega = 1.0 / 10000 ** (torch.arange(dim // 2, dtype=torch.float32, device=positions.device) / (dim // 2))
    angles = positions[:, None] * omega[None, :]
    return torch.cat((angles.sin(), angles.cos()), dim=1)


def sincos_2d(dim, grid_h, grid_w, device):
    """(grid_h * grid_w, dim) float32, row-major over the patch grid: half the channels encode the row, half the column."""
    rows = torch.arange(grid_h, dtype=torch.float32, device=device).repeat_interleave(grid_w)
    cols = torch.arange(grid_w, dtype=torch.float32, device=device).repeat(grid_h)
    return torch.cat((sincos_1d(dim // 2, rows), sincos_1d(dim // 2, cols)), dim=1)


def linear(fan_in, fan_out, std, bias_std=None):
    layer = nn.Linear(fan_in, fan_out, bias=bias_std is not None)
    nn.init.normal_(layer.weight, std=std)
    if bias_std is not None:
        nn.init.normal_(layer.bias, std=bias_std)
    return layer


def layer_norm(dim, eps, bias_std):
    norm = nn.LayerNorm(dim, eps=eps)
    nn.init.normal_(norm.weight, mean=1.0, std=0.1)
    nn.init.normal_(norm.bias, std=bias_std)
    return norm


class Model(nn.Module):
    def __init__(self, queries, embed_dim, heads, kv_dim, grid, eps, qk_gain):
        super().__init__()
        self.heads, self.grid = heads, grid
        self.query = nn.Parameter(torch.randn(queries, embed_dim))
        self.kv_proj = linear(kv_dim, embed_dim, kv_dim ** -0.5)
        self.q_proj = linear(embed_dim, embed_dim, qk_gain * embed_dim ** -0.5, 0.02)
        self.k_proj = linear(embed_dim, embed_dim, qk_gain * embed_dim ** -0.5, 0.02)
        self.v_proj = linear(embed_dim, embed_dim, embed_dim ** -0.5, 0.005)
        self.out_proj = linear(embed_dim, embed_dim, embed_dim ** -0.5, 0.005)
        self.ln_q = layer_norm(embed_dim, eps, 0.1)
        self.ln_kv = layer_norm(embed_dim, eps, 0.01)
        self.ln_post = layer_norm(embed_dim, eps, 0.1)
        self.proj = nn.Parameter(torch.randn(embed_dim, embed_dim) * embed_dim ** -0.5)

    def attend(self, q, keys, values):
        """Multi-head cross-attention: q (Q, D) shared by the batch, keys and values (B, N, D) -> (B, Q, D)."""
        B, N, D = keys.shape
        d = D // self.heads
        q = self.q_proj(q).view(1, -1, self.heads, d).transpose(1, 2)
        k = self.k_proj(keys).view(B, N, self.heads, d).transpose(1, 2)
        v = self.v_proj(values).view(B, N, self.heads, d).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) * d ** -0.5
        probs = torch.softmax(scores, dim=-1)
        return self.out_proj(torch.matmul(probs, v).transpose(1, 2).reshape(B, -1, D))

    def forward(self, x):
        kv = self.ln_kv(self.kv_proj(x))
        pos = sincos_2d(kv.shape[-1], self.grid, self.grid, x.device)
        out = self.attend(self.ln_q(self.query), kv + pos, kv)
        return torch.matmul(self.ln_post(out), self.proj)


def get_inputs():
    return [torch.randn(slices, grid * grid, kv_dim)]


def get_init_inputs():
    return [queries, embed_dim, heads, kv_dim, grid, eps, qk_gain]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"slices": 2, "grid": 6, "kv_dim": 48, "embed_dim": 128, "heads": 4, "queries": 8}}
