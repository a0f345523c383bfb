#!/usr/bin/env python3
"""optimize_suite: `cudal1 optimize` on two suite tasks, native and ModelNew
answers, against the replay LLM server; prints `cudal1 best` and
`cudal1 history` of each task and format.

    python3 bench/optimize_suite.py [--cudal1 PATH] [--store FILE] [--keep DIR] [-- judge options]

The answers are written here from the suite's own kernels, so the loop has
something to find on a CUDA machine:

  native    (a .cu in cudal1's ABI) round 1: the suite's solution computing
            its output three times over (the same result, a third of the
            speed) and an answer without code; round 2: the solution itself
            (faster: it becomes the best) and a hack (a thread left running).
  modelnew  (KernelBench's ModelNew) round 1: the reference's own PyTorch and
            a ModelNew whose parameter is misnamed (the judge says so);
            round 2: for rmsnorm, a fused kernel built with load_inline, and
            for softmax, PyTorch's softmax written another way.

Tasks: suites/level1/rmsnorm.py and suites/level1/softmax.py (CUDA only: the
native answers are .cu files).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TASKS = ["rmsnorm", "softmax"]


def answer(lang, code, note):
    return (f"## Performance Analysis\n{note}\n\n## Algorithm Design\n-\n\n"
            f"## Code Implementation\n```{lang}\n{code}```\n")


def thrice(solution):
    """The solution with its float4 launch made three times (idempotent: each writes the same y)."""
    out, n = re.subn(r"if \(cols % 4 == 0\) return (launch<float4>\((.*?)\));",
                     r"if (cols % 4 == 0) { \1; \1; return \1; }", solution, count=1)
    assert n == 1, "the solution's float4 launch line was not found"
    return out


def hack(solution):
    """The solution, with its launch moved to a detached thread: the call returns at once."""
    return ("#include <thread>\n// HACK: the work runs after the call returns\n" +
            solution.replace("int cudal1_forward(", "static int cudal1_forward_impl(", 1) +
            "\nint cudal1_forward(const cudal1_tensor* a, int na, const cudal1_tensor* p, int np,\n"
            "                   cudal1_tensor* o, int no, void* s) {\n"
            "  std::thread([=] { cudal1_forward_impl(a, na, p, np, o, no, s); }).detach();\n  return 0;\n}\n")


MODELNEW = {
    "rmsnorm": {
        "plain": '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
''',
        "misnamed": '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.gamma
''',
        "fast": r'''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

__global__ void rmsnorm_rows(const float4* __restrict__ x, const float4* __restrict__ w, float4* __restrict__ y,
                             int cols4, float inv_cols, float eps) {
  const float4* xr = x + (size_t)blockIdx.x * cols4;
  float4* yr = y + (size_t)blockIdx.x * cols4;
  float s = 0.f;
  for (int i = threadIdx.x; i < cols4; i += blockDim.x) {
    float4 v = xr[i];
    s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  __shared__ float part[32];
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffff, t, o);
    if (threadIdx.x == 0) part[0] = rsqrtf(t * inv_cols + eps);
  }
  __syncthreads();
  const float r = part[0];
  for (int i = threadIdx.x; i < cols4; i += blockDim.x) {
    float4 v = xr[i], g = w[i];
    yr[i] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
  }
}

torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, double eps) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.size(-1) % 4 == 0, "float32 CUDA rows of 4k floats");
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc);
  const int64_t cols = xc.size(-1), rows = xc.numel() / cols;
  rmsnorm_rows<<<(unsigned)rows, 256>>>((const float4*)xc.data_ptr<float>(), (const float4*)w.data_ptr<float>(),
                                        (float4*)y.data_ptr<float>(), (int)(cols / 4), (float)(1.0 / cols), (float)eps);
  return y;
}
"""

ext = load_inline(name="optimize_suite_rmsnorm", cpp_sources=["torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, double eps);"],
                  cuda_sources=[cuda_source], functions=["rmsnorm"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return ext.rmsnorm(x, self.weight, self.eps)
''',
    },
    "softmax": {
        "plain": '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1) * x.shape[-1]
''',
        "misnamed": '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return torch.softmax(x / self.temperature, dim=-1) * x.shape[-1]
''',
        "fast": '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        # exp(x - max) / sum, scaled, with the scale folded into the division
        m = x.amax(dim=-1, keepdim=True)
        e = torch.exp(x - m)
        return e.div_(e.sum(dim=-1, keepdim=True).div_(x.shape[-1]))
''',
    },
}


def write_answers(path):
    entries = []
    for task in TASKS:
        sol = open(os.path.join(ROOT, "suites", "level1", "solutions", task + ".cu")).read()
        card = f"# Task: level1/{task}\n"  # the first line of every prompt of the task
        m = MODELNEW[task]
        # native: round 1, round 2 (two samples each)
        entries += [
            {"match": card, "content": answer("cuda", thrice(sol), "A first kernel.")},
            {"match": card, "content": "I would fuse the row reduction with the scaling, but give no code here."},
            {"match": card, "content": answer("cuda", "// FAST\n" + sol, "The first launches the same kernel three times.")},
            {"match": card, "content": answer("cuda", hack(sol), "Overlap the work with the caller.")},
        ]
        entries += [
            {"match": card, "content": answer("python", m["plain"], "The reference, as a start.")},
            {"match": card, "content": answer("python", m["misnamed"], "A named parameter.")},
            {"match": card, "content": answer("python", m["fast"], "One fused pass.")},
            {"match": card, "content": answer("python", "# FAST-2\n" + m["fast"], "The same, again.")},
        ]
    with open(path, "w") as f:
        for e in entries:
            e.setdefault("usage", {"prompt_tokens": 3000, "completion_tokens": 1500})
            f.write(json.dumps(e) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudal1", default=os.path.join(ROOT, "build", "bin", "cudal1"))
    ap.add_argument("--store", help="the store (default: a new one in a temporary folder)")
    ap.add_argument("--keep", help="copy the store and the outputs here")
    a, judge = ap.parse_known_args()
    judge = [x for x in judge if x != "--"]
    work = tempfile.mkdtemp(prefix="optimize-suite-")
    store = a.store or os.path.join(work, "store.sqlite")
    tasks = [os.path.join(ROOT, "suites", "level1", t + ".py") for t in TASKS]
    rc = 0
    try:
        for fmt in ("native", "modelnew"):
            answers = os.path.join(work, f"answers-{fmt}.jsonl")
            write_answers(answers)
            if fmt == "native":  # each format's run takes its own answers only
                keep = [json.loads(l) for l in open(answers) if "```cuda" in l or "no code" in l]
            else:
                keep = [json.loads(l) for l in open(answers) if "```python" in l]
            with open(answers, "w") as f:
                f.writelines(json.dumps(e) + "\n" for e in keep)
            port_file = os.path.join(work, f"port-{fmt}")
            replay = subprocess.Popen([a.cudal1, "llm-replay", "--answers", answers, "--port", "0",
                                       "--port-file", port_file], stderr=subprocess.DEVNULL)
            try:
                for _ in range(100):
                    if os.path.exists(port_file) and open(port_file).read().strip():
                        break
                    time.sleep(0.1)
                url = f"http://127.0.0.1:{open(port_file).read().strip()}/v1"
                cmd = [a.cudal1, "optimize", *tasks, "--llm", url, "--model", "replay", "--rounds", "2",
                       "--samples", "2", "--concurrency", "2", "--format", fmt, "--store", store,
                       "--run", f"suite-{fmt}", "--backend", "cuda"] + judge
                print(f"$ cudal1 optimize level1/rmsnorm level1/softmax --format {fmt} --rounds 2 --samples 2", flush=True)
                t0 = time.perf_counter()
                p = subprocess.run(cmd, capture_output=True, text=True)
                print(p.stdout[-4000:] + p.stderr[-4000:], flush=True)
                print(f"(exit {p.returncode}, {time.perf_counter() - t0:.1f} s)", flush=True)
                rc = rc or p.returncode
            finally:
                replay.terminate()
                replay.wait()
        for task in tasks:
            for cmd in (["best", task], ["history", task]):
                print(f"$ cudal1 {' '.join(cmd[:1])} level1/{os.path.basename(task)}", flush=True)
                p = subprocess.run([a.cudal1, *cmd, "--store", store], capture_output=True, text=True)
                out = p.stdout
                if cmd[0] == "best":  # the code itself is long: its first lines
                    lines = out.splitlines()
                    out = "\n".join(lines[:40]) + (f"\n... ({len(lines) - 40} more lines)" if len(lines) > 40 else "")
                print(out + p.stderr, flush=True)
            p = subprocess.run([a.cudal1, "best", task, "--store", store, "--json"], capture_output=True, text=True)
            try:
                b = json.loads(p.stdout)
                print(f"best --json: task {b['task']}, verdict {b['verdict']}, speedup {b['speedup']}, "
                      f"format {b.get('format', '?')}, code {len(b['code'])} bytes\n", flush=True)
            except (ValueError, KeyError) as e:
                print(f"best --json unreadable: {e}: {p.stdout[:300]} {p.stderr[:300]}", flush=True)
                rc = rc or 1
    finally:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            if os.path.exists(store):
                shutil.copy(store, os.path.join(a.keep, "optimize-suite.sqlite"))
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
