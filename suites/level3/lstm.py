"""2-layer LSTM over a sequence (nn.LSTM, batch_first), returning the top layer's hidden states.

    per layer and step t (gates i, f, g, o):
        [i, f, g, o] = x_t @ W_ih^T + b_ih + h_{t-1} @ W_hh^T + b_hh
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
        h_t = sigmoid(o) * tanh(c_t)
    layer 1 reads x, layer 2 reads layer 1's h; h_0 = c_0 = 0.

Weights are uniform in +-3/sqrt(hidden) (three times PyTorch's default
bound) and the forget-gate bias gets +1, so the gates are not all near 0.5
and the states do not fade; biases otherwise default.
x is (batch, seq_len, input_size), normal; y is (batch, seq_len, hidden),
layer 2's h_t for every t, RMS about 0.3. The input projections of a layer
are one big GEMM, but the recurrence is 2*seq_len dependent steps of a
small (batch x hidden) @ (hidden x 4*hidden) GEMM plus gate math: latency
bound, so the win is a persistent kernel that keeps W_hh on chip, fuses
the gates, and pipelines layer 2 one step behind layer 1.
"""
import torch
import torch.nn as nn

batch = 32
seq_len = 256
input_size = 256
hidden = 512  # 2*B*S*4H*(I + 3H) = 27 GFLOP, but 512 dependent steps at ~5-10 us: about 3-5 ms


class Model(nn.Module):
    def __init__(self, input_size, hidden):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, num_layers=2, batch_first=True)
        with torch.no_grad():
            for name, p in self.lstm.named_parameters():
                if name.startswith("weight"):
                    p.uniform_(-3 / hidden ** 0.5, 3 / hidden ** 0.5)
                elif name.startswith("bias_ih"):
                    p[hidden:2 * hidden] += 1.0  # forget gate

    def forward(self, x):
        return self.lstm(x)[0]


def get_inputs():
    return [torch.randn(batch, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "seq_len": 40, "input_size": 24, "hidden": 48}}
