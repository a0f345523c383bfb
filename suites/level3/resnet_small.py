"""Small ResNet: 3x3 stem conv, 4 basic residual blocks, global average pool, linear head.

    h = ReLU(BN0(conv0(x)))                                  3 -> channels
    4 x:  h = ReLU(h + BN2(conv2(ReLU(BN1(conv1(h))))))      channels -> channels
    y = mean_{H,W}(h) @ W^T + b                              channels -> num_classes

Every conv is 3x3, stride 1, padding 1, bias-free; every BN uses batch
statistics (F.batch_norm with training=True, learned weight and bias, no
running stats), so eval mode changes nothing. x is (batch, 3, H, W): normal
noise plus a per-image colour offset so that images differ after pooling;
y is (batch, num_classes) with RMS about 0.8. The 9 convolutions (8 of them
channels -> channels) dominate as implicit GEMMs; each BN needs a
per-channel reduction over the whole batch before its normalize + residual
add + ReLU, which can be fused into the next conv's prologue or the
producing conv's epilogue (partial sums per tile).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 64
channels = 64
height = 64
width = 64  # 8 * 2*B*H*W*C*C*9 = 155 GFLOP (+ stem): about 5.2 ms at 30 TFLOP/s
num_classes = 1000


class BatchNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))
        self.bias = nn.Parameter(torch.zeros(c))

    def forward(self, x):
        return F.batch_norm(x, None, None, self.weight, self.bias, training=True)


def conv3x3(cin, cout):
    return nn.Conv2d(cin, cout, 3, padding=1, bias=False)


class Model(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, channels), BatchNorm(channels), nn.ReLU())
        self.blocks = nn.ModuleList(
            nn.Sequential(conv3x3(channels, channels), BatchNorm(channels), nn.ReLU(),
                          conv3x3(channels, channels), BatchNorm(channels))
            for _ in range(4))
        self.head = nn.Linear(channels, num_classes)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = F.relu(h + block(h))
        return self.head(h.mean(dim=(2, 3)))


def get_inputs():
    return [torch.randn(batch, 3, height, width) + torch.randn(batch, 3, 1, 1)]


def get_init_inputs():
    return [channels, num_classes]


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch": 4, "channels": 16, "height": 20, "width": 18, "num_classes": 50}}
