# expect: correct
# Does the work, but patches time.perf_counter so that windows measured with it shrink to a third; the worker bound its clock before the candidate loaded, so the honest time stands.
import time

import torch
import torch.nn as nn

_real = time.perf_counter
_state = {"last": None, "fake": 0.0}


def _slow_clock():
    now = _real()
    last = _state["last"]
    _state["last"] = now
    if last is not None:
        _state["fake"] += (now - last) / 3
    return _state["fake"]


time.perf_counter = _slow_clock


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale
