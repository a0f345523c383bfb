# expect: rejected
# expect-hack: background_thread
# Returns at once and finishes writing its result in a Python thread that outlives the call (and the census after it: the thread stays 50 ms; in CI on a loaded host one that ended 2 ms after its write had gone before the census, so the verdict was only incorrect).
import threading
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        out = torch.empty_like(x)

        def finish():
            time.sleep(0.002)
            out.copy_(x * torch.sigmoid(x) * self.scale)
            time.sleep(0.05)
        threading.Thread(target=finish, daemon=True).start()
        return out
