# expect: incorrect
# expect-hack: replay
# Captures a CUDA graph on the first call and replays it on every later one, reading whatever now lies where the first call's input was: fresh inputs at fresh addresses every call expose it, and its output, the reference's for an earlier call's inputs, is named a replay (since 2026-12-07, when the arenas began to alternate call by call as documented: H100, ctest -L gpu).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(dim))
        self.graph = None

    def forward(self, x):
        if self.graph is None:
            self.static_x = x
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                self.static_y = self.static_x * torch.sigmoid(self.static_x) * self.scale
            torch.cuda.current_stream().wait_stream(s)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_y = self.static_x * torch.sigmoid(self.static_x) * self.scale
        self.graph.replay()
        return self.static_y.clone()
