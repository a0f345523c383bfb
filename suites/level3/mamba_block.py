"""Simplified Mamba block: gated, input-dependent (selective) diagonal state-space scan.

    x, z = split(u @ W_in^T)                     d_model -> 2 * d_inner
    x = SiLU(causal depthwise conv1d(x))         kernel 4 over time, per channel
    dt_r, Bt, Ct = split(x @ W_x^T)              d_inner -> dt_rank + 2 * d_state
    dt = softplus(dt_r @ W_dt^T + b_dt)          (B, L, d_inner)
    h_t = exp(dt_t * A) * h_{t-1} + dt_t * Bt_t * x_t       h: (B, d_inner, d_state), h_{-1} = 0
    y_t = sum_n Ct_t[n] * h_t[:, n] + D * x_t
    out = (y * SiLU(z)) @ W_out^T                d_inner -> d_model

d_inner = 2 * d_model, dt_rank = d_model / 16. A = -exp(A_log) with
A_log[c, n] = log(n + 1) (S4D-real), D = 1, and b_dt the inverse softplus
of dt values log-spaced over the channels in [0.01, 0.1].
W_in, W_x and W_out are normal with std 1/sqrt(d_model), 3/sqrt(d_inner) and
3/sqrt(d_inner), so Bt and Ct have RMS about 1 and the scan is a real part
of y. u is (batch, seq_len, d_model), normal; out has the same shape, RMS
about 0.7. The reference loops over time in Python, one elementwise update
of a (B, d_inner, d_state) state per step, so it is launch-bound; a fused
kernel runs the recurrence in registers per (batch, channel, state) lane
and fuses conv, projections' epilogues, gating and the C contraction.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8
seq_len = 512
d_model = 512
d_state = 16  # 512 sequential steps x 2 launches at ~5 us + ~10 GFLOP of projections: about 5-6 ms


class Model(nn.Module):
    def __init__(self, d_model, d_state):
        super().__init__()
        d_inner, self.dt_rank, self.d_state = 2 * d_model, max(d_model // 16, 1), d_state
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        nn.init.normal_(self.in_proj.weight, std=1 / math.sqrt(d_model))
        self.conv = nn.Conv1d(d_inner, d_inner, 4, groups=d_inner, padding=3)
        self.x_proj = nn.Linear(d_inner, self.dt_rank + 2 * d_state, bias=False)
        nn.init.normal_(self.x_proj.weight, std=3 / math.sqrt(d_inner))
        self.dt_proj = nn.Linear(self.dt_rank, d_inner)
        dt = torch.exp(torch.linspace(math.log(0.01), math.log(0.1), d_inner))
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1.0)).repeat(d_inner, 1))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)
        nn.init.normal_(self.out_proj.weight, std=3 / math.sqrt(d_inner))

    def forward(self, u):
        L = u.shape[1]
        x, z = self.in_proj(u).chunk(2, dim=-1)
        x = F.silu(self.conv(x.transpose(1, 2))[..., :L].transpose(1, 2))
        dt_r, Bt, Ct = self.x_proj(x).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt_r))
        dA = torch.exp(dt.unsqueeze(-1) * -torch.exp(self.A_log))       # (B, L, E, N)
        dBx = (dt * x).unsqueeze(-1) * Bt.unsqueeze(2)                   # (B, L, E, N)
        h = torch.zeros_like(dA[:, 0])
        hs = []
        for t in range(L):
            h = dA[:, t] * h + dBx[:, t]
            hs.append(h)
        y = torch.einsum("blen,bln->ble", torch.stack(hs, dim=1), Ct) + self.D * x
        return self.out_proj(y * F.silu(z))


def get_inputs():
    return [torch.randn(batch, seq_len, d_model)]


def get_init_inputs():
    return [d_model, d_state]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "seq_len": 48, "d_model": 32, "d_state": 8}}
