"""1-layer bidirectional GRU over a sequence (nn.GRU, batch_first), all hidden states.

    per direction and step t (gates r, z, n):
        r = sigmoid(x_t W_ir^T + b_ir + h W_hr^T + b_hr)
        z = sigmoid(x_t W_iz^T + b_iz + h W_hz^T + b_hz)
        n = tanh(x_t W_in^T + b_in + r * (h W_hn^T + b_hn))
        h_t = (1 - z) * n + z * h_{t-1}
    the forward direction runs t = 0 .. S-1, the backward one t = S-1 .. 0; h_0 = 0.

Weights are uniform in +-3/sqrt(hidden) (three times PyTorch's default
bound) so the gates are not all near 0.5; biases default. x is
(batch, seq_len, input_size), normal; y is (batch, seq_len, 2 * hidden):
forward states in the first half of the last dimension, backward states in
the second, RMS about 0.5. Apart from one input-projection GEMM, the time
is seq_len dependent steps (the two directions are independent and can run
concurrently) of a (batch x hidden) @ (hidden x 3*hidden) GEMM plus gate
math: a persistent kernel keeping W_hh on chip wins by cutting per-step
launch and reload costs.
"""
import torch
import torch.nn as nn

batch = 32
seq_len = 320  # 512 steps measured 17.6 ms on the H200: about 11 ms
input_size = 256
hidden = 512  # 2 dirs * 2*B*S*3H*(I + H) = 24 GFLOP, and one dependent step after another (time in the seq_len comment)


class Model(nn.Module):
    def __init__(self, input_size, hidden):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden, batch_first=True, bidirectional=True)
        with torch.no_grad():
            for name, p in self.gru.named_parameters():
                if name.startswith("weight"):
                    p.uniform_(-3 / hidden ** 0.5, 3 / hidden ** 0.5)

    def forward(self, x):
        return self.gru(x)[0]


def get_inputs():
    return [torch.randn(batch, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "seq_len": 40, "input_size": 24, "hidden": 48}}
