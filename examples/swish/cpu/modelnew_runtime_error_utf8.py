# expect: runtime_error
# A ModelNew whose forward raises, after writing bytes that are not UTF-8 to stderr at import: the verdict quotes the worker's log and must still be written as JSON (an attack review, 2026-12-07: no verdict).
import sys

import torch
import torch.nn as nn

sys.stderr.buffer.write(b"\xff\xfe not UTF-8\n")
sys.stderr.flush()


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        raise RuntimeError("no kernel yet")
