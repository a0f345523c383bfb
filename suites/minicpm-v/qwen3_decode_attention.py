"""Qwen3-8B decode attention: one new query token per sequence against a KV cache, grouped-query (32 query heads share 8 key/value heads), eager formulation in bf16.

    k', v' = repeat each of the 8 kv heads 4 times           (B, 32, T, 128)
    s[b, h, t] = bf16(q[b, h] . k'[b, h, t]) * 1/sqrt(128)    rounded to bf16, as eager's matmul and multiply do
    p[b, h, :] = bf16(softmax_t(s[b, h, :]))                  softmax in float32
    y[b, 0, h, :] = sum_t p[b, h, t] v'[b, h, t, :]

q is (batch, 32, 1, 128) and k, v are (batch, 8, kv_len, 128) (the cache,
keys already normed and roped), all bf16; y is (batch, 1, 32, 128), bf16.
q and k are normal with std 0.7, so the scores have std about 0.5: the
softmax weights spread over thousands of cached tokens, as in a long
context with no dominant token, and still matter (a plain average of v is
~45% off). Larger scores would let eager's bf16 rounding of s (up to
2^-8 of |s|) grow until an exact float32 kernel fails bf16's tolerance
against it. v is normal with std sqrt(kv_len) / 3, so the output, an
average over ~kv_len values, has RMS about 0.4. Eager PyTorch copies the
cache 4x (repeat_kv: 4.3 GB written), then reads the copies in two batched
GEMVs, ~9.7 GB in all; a flash-decoding kernel reads the 1.07 GB cache
once, the 4 query heads of a group sharing each loaded K/V row, with the
sequence split across blocks and an online softmax whose partial results a
small second pass combines.
"""
import torch
import torch.nn as nn

batch = 32
kv_len = 8192  # cache 2 x 537 MB bf16: eager moves ~9.7 GB, about 2.5 ms (flash-decoding: ~0.25 ms)
q_heads = 32
kv_heads = 8
head_dim = 128


def repeat_kv(x, groups):
    """(B, kv_heads, T, D) -> (B, kv_heads * groups, T, D), each kv head repeated for its query heads."""
    b, h, t, d = x.shape
    return x[:, :, None, :, :].expand(b, h, groups, t, d).reshape(b, h * groups, t, d)


class Model(nn.Module):
    def forward(self, q, k, v):
        groups = q.shape[1] // k.shape[1]
        k = repeat_kv(k, groups)
        v = repeat_kv(v, groups)
        scores = torch.matmul(q, k.transpose(2, 3)) * q.shape[-1] ** -0.5
        probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(probs, v).transpose(1, 2)


def get_inputs():
    q = (0.7 * torch.randn(batch, q_heads, 1, head_dim)).to(torch.bfloat16)
    k = (0.7 * torch.randn(batch, kv_heads, kv_len, head_dim)).to(torch.bfloat16)
    v = (kv_len ** 0.5 / 3 * torch.randn(batch, kv_heads, kv_len, head_dim)).to(torch.bfloat16)
    return [q, k, v]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "kv_len": 200, "q_heads": 8, "kv_heads": 2, "head_dim": 32}}
