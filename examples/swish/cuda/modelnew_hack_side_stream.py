# expect: correct
# Launches its work on a stream of its own and returns without waiting (CUDA-L1's most common hack); the window ends in a device-wide synchronization, so the work is timed.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.stream = None

    def forward(self, x):
        if self.stream is None:
            self.stream = torch.cuda.Stream()
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            y = x * torch.sigmoid(x) * self.scale
        return y
