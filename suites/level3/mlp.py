"""4-layer MLP with LayerNorm and GELU between the layers.

    h1 = GELU(LN1(x  @ W1^T + b1))     in_features -> hidden
    h2 = GELU(LN2(h1 @ W2^T + b2))     hidden -> hidden
    h3 = GELU(LN3(h2 @ W3^T + b3))     hidden -> hidden
    y  = h3 @ W4^T + b4                hidden -> out_features

nn.Linear layers with PyTorch's default init, nn.LayerNorm(hidden) with
default affine parameters, exact (erf) GELU. x is (batch, in_features),
normal; y is (batch, out_features) with RMS about 0.4 (the LayerNorms keep
every hidden activation O(1)). Almost all of the time is in the four GEMMs;
LayerNorm and GELU are row-wise epilogues that can be fused into the GEMM
that produces their input (a full row of `hidden` per output tile, or a
split reduction), saving three round trips of the activations.
"""
import torch
import torch.nn as nn

batch = 8192
in_features = 1024
hidden = 2048
out_features = 1024  # 2*batch*(in*h + 2*h*h + h*out) = 206 GFLOP: about 4.1 ms at 50 TFLOP/s


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        dims = [in_features, hidden, hidden, hidden]
        self.linears = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))
        self.norms = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(3))
        self.head = nn.Linear(hidden, out_features)
        self.act = nn.GELU()

    def forward(self, x):
        for linear, norm in zip(self.linears, self.norms):
            x = self.act(norm(linear(x)))
        return self.head(x)


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 64, "in_features": 96, "hidden": 160, "out_features": 80}}
