"""2-D average pooling, 3x3 window, stride 1, padding 1 (a box blur).

    y[b, c, h, w] = (1/9) * sum_{0 <= i, j < 3} x[b, c, h + i - 1, w + j - 1]

nn.AvgPool2d(3, stride=1, padding=1) with count_include_pad=True, so
out-of-range taps count as zeros and the divisor is always 9. x is (batch,
channels, H, W), normal; y has the same shape and RMS about 0.33. Memory-bound
stencil: a kernel that reloads each input pixel nine times from global memory
loses to one that tiles x (plus halo) in shared memory or registers.
"""
import torch
import torch.nn as nn

batch = 32
channels = 64
height = 512
width = 512  # x and y are 2.1 GB each, 4.3 GB moved: about 1.2 ms at 3.5 TB/s
kernel_size = 3


class Model(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size, stride=1, padding=kernel_size // 2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [kernel_size]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "channels": 8, "height": 50, "width": 46}}
