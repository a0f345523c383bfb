# expect: incorrect
# Hides forward's last pass (* scale) in the worker's own census, which ran after the window inside every run request (the probes' too), so its cost looked like the census: it wraps the worker's seal_call so the census multiplies forward's result in place and reports nothing. The census is now a request of its own after the judge has read the outputs, so silu(x) alone is what is checked.
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

CLEAN = {"new_threads": [], "child_processes": [], "process_attempts": [], "deferred_work": ""}


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.pending = None
        me = self
        main = sys.modules["__main__"]
        real = main.seal_call

        def seal_call(fn, *args):
            if fn != "cudal1_census":
                return real(fn, *args)
            y, me.pending = me.pending, None
            if y is not None:
                torch.mul(y, me.scale, out=y)
            return dict(CLEAN)

        main.seal_call = seal_call

    def forward(self, x):
        y = F.silu(x)
        self.pending = y
        return y
