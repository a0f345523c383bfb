"""ViT front end: 16x16 patch embedding, one pre-norm transformer encoder block, final LayerNorm, mean pool.

    t = flatten(conv16x16/16(x)) + pos          (B, T, d), T = (H/16) * (W/16)
    a = LN1(t);  q, k, v = split(a @ Wqkv^T + bqkv)            each (B, heads, T, d/heads)
    t = t + (softmax(q k^T / sqrt(d/heads)) v, heads merged) @ Wo^T + bo
    t = t + GELU(LN2(t) @ W1^T + b1) @ W2^T + b2               MLP d -> 4d -> d
    y = mean_T(LN3(t))                          (B, d)

The patch embedding is nn.Conv2d(3, d, 16, stride=16) with default init;
pos is a learned (1, T, d) embedding ~ 0.02 randn; Wqkv is normal with std
1.4/sqrt(d) so attention is selective; exact GELU; default LayerNorms.
x is (batch, 3, H, W): normal noise plus a per-image colour offset, so the
pooled features differ from image to image; y is (batch, d_model), RMS
about 0.8. The block's GEMMs (B*T = 12544 rows) dominate; the patch
embedding is a GEMM over non-overlapping 16x16 patches (an im2col that is
a pure reshape), and the mean pool fuses into the final LN.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 64
image_size = 224
d_model = 768
num_heads = 12  # patch GEMM 2*B*T*768*d + block 24*B*T*d^2 + 4*B*T^2*d = 200 GFLOP: about 4 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self, image_size, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.patch = nn.Conv2d(3, d_model, 16, stride=16)
        self.pos = nn.Parameter(0.02 * torch.randn(1, (image_size // 16) ** 2, d_model))
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        nn.init.normal_(self.qkv.weight, std=1.4 / d_model ** 0.5)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)
        self.ln3 = nn.LayerNorm(d_model)

    def attention(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.num_heads, D // self.num_heads).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (D // self.num_heads) ** 0.5
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.proj(out.transpose(1, 2).reshape(B, T, D))

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        t = t + self.attention(self.ln1(t))
        t = t + self.fc2(F.gelu(self.fc1(self.ln2(t))))
        return self.ln3(t).mean(dim=1)


def get_inputs():
    return [torch.randn(batch, 3, image_size, image_size) + torch.randn(batch, 3, 1, 1)]


def get_init_inputs():
    return [image_size, d_model, num_heads]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "image_size": 64, "d_model": 64, "num_heads": 4}}
