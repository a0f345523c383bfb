# expect: incorrect
# Returns an empty buffer at once and patches torch.Tensor.copy_ so that the worker's copy of the result (after the window) does the work; the worker copies with the copy_ it bound before the candidate loaded, so what arrives is the empty buffer.
import torch
import torch.nn as nn

_real_copy = torch.Tensor.copy_
_pending = {}


def _copy(self, src, non_blocking=False):
    job = _pending.pop(id(src), None)
    if job is not None and job[0] is src:
        _, x, scale = job
        torch.sigmoid(x, out=self)
        self.mul_(x).mul_(scale)
        return self
    return _real_copy(self, src, non_blocking)


torch.Tensor.copy_ = _copy


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.buf = None

    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape:
            self.buf = torch.empty_like(x)
        _pending[id(self.buf)] = (self.buf, x, self.scale)
        return self.buf
