"""Transposed 1-D convolution, kernel 5, stride 2 (2x upsampling), with bias.

    y[b, o, p] = bias[o] + sum over c, t, l with p = 2l - 2 + t of x[b, c, l] * w[c, o, t]

nn.ConvTranspose1d(in_channels, out_channels, 5, stride=2, padding=2,
output_padding=1): x is (batch, in_channels, length), normal; y is (batch,
out_channels, 2 * length); weight (in_channels, out_channels, 5) and bias
use PyTorch's default init, so y has RMS about 0.4. Even outputs gather 3
taps and odd outputs 2, so a gather kernel must handle both phases.
"""
import torch
import torch.nn as nn

batch = 32
in_channels = 128
out_channels = 64
length = 16384  # 2 * B*L * in * out * 5 = 43 GFLOP: about 1.4 ms at 30 TFLOP/s
kernel_size = 5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=2,
                                       padding=kernel_size // 2, output_padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "in_channels": 16, "out_channels": 12, "length": 500}}
