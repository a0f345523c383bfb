# expect: incorrect
# Hides forward's last pass (the * scale) in the worker's copy of its result: it swaps the worker's bound copy function (found through gc) for a multiply into the judge's outputs, and forward returns silu(x) only. A copy after the window cost what the judge's probes paid, so the hidden pass looked like it; the judge now reads a CPU ModelNew's outputs from its stopped worker itself, so what forward returned is what is checked.
import gc

import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        me = self
        worker = next(o for o in gc.get_objects() if hasattr(o, "probe_results") and hasattr(o, "place_call"))

        def last_pass(want, got):
            torch.mul(got, me.scale, out=want)
            return want

        worker.raw_copy = last_pass

    def forward(self, x):
        return F.silu(x)
