"""One SigLIP-400M vision encoder layer (MiniCPM-V 4.5's vision tower) over the patch tokens of 448x448 image slices: pre-LayerNorm multi-head self-attention and a tanh-GELU MLP, with residuals, in bf16.

    a = LN1(x);  q, k, v = a Wq^T + bq, a Wk^T + bk, a Wv^T + bv       16 heads of 72
    x = x + (softmax(q k^T / sqrt(72)) v, heads merged) Wo^T + bo       no mask: all 1024 tokens
    y = x + GELU_tanh(LN2(x) W1^T + b1) W2^T + b2                       1152 -> 4304 -> 1152

x is (slices, 1024, 1152), bf16, normal with std 2 (the residual stream;
patch 14 makes a 448x448 slice 32x32 = 1024 tokens); y likewise, RMS about
2.1. LayerNorms have eps 1e-6, weights 1 + 0.1 randn and small biases;
projections are normal with std 1/sqrt(fan_in), except Wo (std
6/sqrt(1152): the attention output, a soft average over ~400 of the 1024
tokens, comes out ~1/20 of v, so the attention branch adds RMS ~0.37) and
W2 (std 0.5/sqrt(4304): MLP branch RMS ~0.33). The scores have std about
1. Attention is the eager formulation (bf16 scores, softmax in float32,
probabilities in bf16). The branches are small next to the residual stream
(as in a trained model), so that any two sound bf16 implementations agree
within bf16's tolerance, yet skipping either branch fails. The six GEMMs
(0.31 TFLOP) dominate; eager attention also writes the (slices, 16, 1024,
1024) score tensor in bf16 and float32 (~3 GB of traffic), which flash
attention skips; LayerNorm, GELU, bias and residual adds fold into GEMM
prologues and epilogues.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

slices = 10  # overview + 9 slices; GEMMs 0.36 TFLOP ~0.8 ms bf16 + ~3 GB of eager score traffic ~1 ms: about 2 ms
image_size = 448
patch = 14  # (448 / 14)^2 = 1024 tokens per slice
hidden = 1152
heads = 16  # head dim 72
mlp = 4304
eps = 1e-6
attn_gain = 6.0  # out_proj std attn_gain / sqrt(hidden)


def linear(fan_in, fan_out, std, bias_std):
    layer = nn.Linear(fan_in, fan_out)
    nn.init.normal_(layer.weight, std=std)
    nn.init.normal_(layer.bias, std=bias_std)
    return layer


def layer_norm(dim, eps, bias_std):
    norm = nn.LayerNorm(dim, eps=eps)
    nn.init.normal_(norm.weight, mean=1.0, std=0.1)
    nn.init.normal_(norm.bias, std=bias_std)
    return norm


class Model(nn.Module):
    def __init__(self, hidden, heads, mlp, eps, attn_gain):
        super().__init__()
        self.heads = heads
        self.ln1 = layer_norm(hidden, eps, 0.01)
        self.q_proj = linear(hidden, hidden, hidden ** -0.5, 0.1)
        self.k_proj = linear(hidden, hidden, hidden ** -0.5, 0.1)
        self.v_proj = linear(hidden, hidden, hidden ** -0.5, 0.005)
        self.out_proj = linear(hidden, hidden, attn_gain * hidden ** -0.5, 0.02)
        self.ln2 = layer_norm(hidden, eps, 0.1)
        self.fc1 = linear(hidden, mlp, hidden ** -0.5, 0.1)
        self.fc2 = linear(mlp, hidden, 0.5 * mlp ** -0.5, 0.02)
        self.to(torch.bfloat16)  # the model runs in bf16

    def attention(self, x):
        B, N, C = x.shape
        d = C // self.heads
        q = self.q_proj(x).view(B, N, self.heads, d).transpose(1, 2)
        k = self.k_proj(x).view(B, N, self.heads, d).transpose(1, 2)
        v = self.v_proj(x).view(B, N, self.heads, d).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) * d ** -0.5
        probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(x.dtype)
        return self.out_proj(torch.matmul(probs, v).transpose(1, 2).reshape(B, N, C))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


def get_inputs():
    tokens = (image_size // patch) ** 2
    return [(2 * torch.randn(slices, tokens, hidden)).to(torch.bfloat16)]


def get_init_inputs():
    return [hidden, heads, mlp, eps, attn_gain]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"slices": 2, "image_size": 84, "hidden": 64, "heads": 4, "mlp": 172, "attn_gain": 1.5}}
