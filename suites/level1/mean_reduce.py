"""Mean over the last dimension (row-wise reduction).

    y[i] = (1 / dim) * sum_j x[i, j]

x is (batch_size, dim): normal noise plus a normal per-row offset, so the row
means are O(1) (about the offset) yet every element counts at the 1e-4
tolerance. One long contiguous row per output: a block (or warp) per row with a
tree reduction, reading x once at full bandwidth.
"""
import torch
import torch.nn as nn

# GPU: 32768 * 49152 float32 = 6 GiB read once, tiny output.
batch_size = 32768  # 6.4 GB read: 16384 rows measured 0.81 ms on the H200, so about 1.6 ms
dim = 49152


class Model(nn.Module):
    def forward(self, x):
        return torch.mean(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim) + torch.randn(batch_size, 1)]


def get_init_inputs():
    return []


# cudal1 metadata (optional; KernelBench ignores it): size profiles that
# override the module globals above. The CPU backend uses "cpu" by default.
cudal1_profiles = {"cpu": {"batch_size": 300, "dim": 2000}}
