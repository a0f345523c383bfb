# expect: compile_error
# While it is built (the one import that may run compilers), leaves links in its build folder to files of the judge's; a build holding anything but folders and plain files is refused, so nothing of the judge's is copied to it.
import os
import sys

import torch
import torch.nn as nn

if "--build" in sys.argv:
    for name, target in {"status": "/proc/self/status", "home": os.path.expanduser("~root"), "etc": "/etc/shadow"}.items():
        try:
            os.symlink(target, name)
        except OSError:
            pass


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale
