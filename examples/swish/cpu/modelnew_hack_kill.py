# expect: correct
# Tries to stop every process it can find (the judge, the reference, the server) and to read the judge's environment; the sealed worker sees none of them, so its honest result stands.
import os
import signal

import torch
import torch.nn as nn


def sabotage():
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                os.kill(int(name), signal.SIGSTOP)
            except OSError:
                pass
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except OSError:
        pass


sabotage()


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        sabotage()
        return x * torch.sigmoid(x) * self.scale
