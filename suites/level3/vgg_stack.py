"""VGG-style feature stack: 3 stages of (3x3 conv + ReLU) x 2, then 2x2 max pool.

    stage s (channels c_in -> c_s, c_s = width * 2^s for s = 0, 1, 2):
        h = ReLU(conv_b(ReLU(conv_a(h))))     conv_a: c_in -> c_s, conv_b: c_s -> c_s
        h = MaxPool2d(2)(h)                   halves H and W

All convs 3x3, stride 1, padding 1, with bias; weights use Kaiming-normal
init (fan_in, ReLU gain) and zero bias so activations stay O(1) through the
six layers. x is (batch, in_channels, H, W), normal; y is
(batch, 4 * width, H / 8, W / 8), non-negative, RMS about 2. The convs are
the time (implicit GEMMs, K = c_in * 9); the ReLU belongs in each conv's
epilogue and the max pool can be fused into the epilogue of the second conv
of each stage, so the pre-pool activation is never written.
"""
import torch
import torch.nn as nn

batch = 32
in_channels = 3
width = 64
height = 128
image_width = 128  # 2*B*H*W*9*(3*64 + 64*64 + (64*128 + 128*128)/4 + (128*256 + 256*256)/16) = 156 GFLOP: about 5.2 ms at 30 TFLOP/s


class Model(nn.Module):
    def __init__(self, in_channels, width):
        super().__init__()
        layers = []
        c_in = in_channels
        for s in range(3):
            c = width * 2 ** s
            for conv in (nn.Conv2d(c_in, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)):
                nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
                nn.init.zeros_(conv.bias)
                layers += [conv, nn.ReLU()]
                c_in = c
            layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)

    def forward(self, x):
        return self.features(x)


def get_inputs():
    return [torch.randn(batch, in_channels, height, image_width)]


def get_init_inputs():
    return [in_channels, width]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 2, "width": 8, "height": 32, "image_width": 40}}
