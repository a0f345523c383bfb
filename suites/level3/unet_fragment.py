"""One level of a U-Net: encoder convs, max pool, bottleneck, transposed-conv upsampling, skip concat, decoder conv.

    s = ReLU(conv2(ReLU(conv1(x))))          in_channels -> c -> c, at H x W  (skip)
    b = ReLU(conv3(MaxPool2d(2)(s)))         c -> 2c, at H/2 x W/2           (bottleneck)
    u = up(b)                                ConvTranspose2d(2c, c, 2, stride 2), back to H x W
    y = ReLU(conv4(cat([u, s], dim=1)))      2c -> c, at H x W

conv1..conv4 are 3x3, padding 1, with Kaiming-normal weights (ReLU gain)
and zero bias so activations stay O(1); the transposed conv uses PyTorch's
default init. x is (batch, in_channels, H, W), normal; y is
(batch, c, H, W), non-negative, RMS about 1. conv2 and conv4 (c*c*9 and
2c*c*9 per pixel at full resolution) dominate; the max pool can be fused
into conv2's epilogue, and the concat need never be materialized: conv4 can
read its K dimension from the two tensors (or compute u on the fly, since
each output pixel of the stride-2 transposed conv sees one input pixel).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 32
in_channels = 32
channels = 64
height = 128
width = 128  # 2*B*H*W*c*9*(32 + 64 + 128 + 128/4) + convT 2*B*H*W*2c*c = 163 GFLOP: about 5.4 ms at 30 TFLOP/s


def conv3x3(cin, cout):
    conv = nn.Conv2d(cin, cout, 3, padding=1)
    nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
    nn.init.zeros_(conv.bias)
    return conv


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv1 = conv3x3(in_channels, channels)
        self.conv2 = conv3x3(channels, channels)
        self.conv3 = conv3x3(channels, 2 * channels)
        self.up = nn.ConvTranspose2d(2 * channels, channels, 2, stride=2)
        self.conv4 = conv3x3(2 * channels, channels)

    def forward(self, x):
        s = F.relu(self.conv2(F.relu(self.conv1(x))))
        b = F.relu(self.conv3(F.max_pool2d(s, 2)))
        return F.relu(self.conv4(torch.cat([self.up(b), s], dim=1)))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "in_channels": 4, "channels": 8, "height": 32, "width": 28}}
