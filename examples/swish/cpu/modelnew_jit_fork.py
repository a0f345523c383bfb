# expect: correct
# TorchScript task parallelism: torch.jit.fork over two halves of the rows, torch.jit.wait, cat. Honest: the
# fork runs on torch's inter-op pool, which the worker starts before its thread census's baseline (as the intra-op one).
from typing import List

import torch
import torch.nn as nn


@torch.jit.script
def half(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x) * scale


@torch.jit.script
def both(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    h = x.shape[0] // 2
    futs: List[torch.jit.Future[torch.Tensor]] = []
    futs.append(torch.jit.fork(half, x[:h], scale))
    futs.append(torch.jit.fork(half, x[h:], scale))
    return torch.cat([torch.jit.wait(f) for f in futs], 0)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return both(x, self.scale)
