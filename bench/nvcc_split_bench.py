#!/usr/bin/env python3
"""nvcc_split_bench: nvcc against cudal1_nvcc.py on a load_inline .cu.

    python3 bench/nvcc_split_bench.py [--python PY] [--runs N] [--arch 9.0] [--save DIR]

Writes the .cu that torch's load_inline writes for the swish CUDA example
(examples/swish/cuda/modelnew_inline.py, without its <torch/extension.h> as
cudal1's first try builds it) and torch's nvcc flags for it (read from the
build.ninja that PY's torch writes; its ninja run is skipped), then compiles
it --runs times with nvcc and with python/cudal1_nvcc.py, alternated (nvcc
first on odd rounds, the driver first on even ones), each into a fresh
object. Prints each compile's seconds, the median, min and max per mode, the
driver's branch figures, and whether the two objects' symbols agree; the raw
times go to DIR/nvcc-split-bench.json.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Run by PY: torch's load_inline writes cuda.cu and build.ninja into DIR;
# the ninja run is skipped. Prints torch's version.
WRITE = r"""
import re, sys
import torch, torch.utils.cpp_extension as ce
src, out = sys.argv[1], sys.argv[2]
cuda = re.search(r'cuda_source = r\"\"\"(.*?)\"\"\"', open(src).read(), re.S).group(1)
cuda = cuda.replace("#include <torch/extension.h>", "// cudal1: <torch/extension.h> left out here")
class Stop(Exception):
    pass
def stop(*a, **k):
    raise Stop()
ce._run_ninja_build = stop
try:
    ce.load_inline("nvcc_split_bench", ["torch::Tensor swish_scale(torch::Tensor x, torch::Tensor scale);"], [cuda],
                   functions=["swish_scale"], extra_cuda_cflags=["-O3"], build_directory=out)
except Stop:
    pass
print(torch.__version__)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=shutil.which("python3") or sys.executable, help="a Python with torch")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--arch", default="9.0", help="the GPU architecture (TORCH_CUDA_ARCH_LIST)")
    ap.add_argument("--driver", default=os.path.join(ROOT, "python", "cudal1_nvcc.py"))
    ap.add_argument("--save")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="nvcc-split-bench-")
    try:
        example = os.path.join(ROOT, "examples", "swish", "cuda", "modelnew_inline.py")
        arch = a.arch
        p = subprocess.run([a.python, "-c", WRITE, example, work], capture_output=True, text=True,
                           env=dict(os.environ, TORCH_CUDA_ARCH_LIST=arch))
        if p.returncode != 0 and "Unknown CUDA arch" in p.stderr:
            # An older torch that does not know this architecture: its flags
            # for 8.6, the architecture replaced.
            p = subprocess.run([a.python, "-c", WRITE, example, work], capture_output=True, text=True,
                               env=dict(os.environ, TORCH_CUDA_ARCH_LIST="8.6"))
        if p.returncode != 0:
            sys.exit(f"nvcc_split_bench: torch's load_inline did not write its build: {p.stderr[-800:]}")
        torch_version = p.stdout.strip().splitlines()[-1]
        ninja = {}
        with open(os.path.join(work, "build.ninja")) as f:
            for line in f:
                m = re.match(r"^(\w+) = (.*)$", line.rstrip("\n"))
                if m:
                    ninja.setdefault(m.group(1), m.group(2))
        nvcc = shlex.split(ninja["nvcc"])[0]
        want = arch.replace(".", "")
        flags = [re.sub(r"compute_\d+,code=sm_\d+", f"compute_{want},code=sm_{want}", f)
                 for f in shlex.split(ninja.get("cuda_cflags", "")) + shlex.split(ninja.get("cuda_post_cflags", ""))]
        # torch 1.x asks for C++14, which CUDA 13's headers refuse.
        flags = ["-std=c++17" if f == "-std=c++14" else f for f in flags]
        cu = os.path.join(work, "cuda.cu")
        log = os.path.join(work, "split.jsonl")
        print(f"nvcc_split_bench: {cu} (torch {torch_version}, sm_{want}), {a.runs} rounds, {os.cpu_count()} CPUs", flush=True)
        times = {"nvcc": [], "split": []}
        for i in range(a.runs):
            for mode in (["nvcc", "split"] if i % 2 == 0 else ["split", "nvcc"]):
                obj = os.path.join(work, f"{mode}-{i}.o")
                cmd = ([nvcc] if mode == "nvcc" else [sys.executable, "-I", a.driver, nvcc]) + flags + ["-c", cu, "-o", obj]
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=dict(os.environ, CUDAL1_NVCC_LOG=log))
                s = time.perf_counter() - t0
                if r.returncode != 0:
                    sys.exit(f"nvcc_split_bench: {mode} failed (exit {r.returncode}): {r.stderr[-1500:]}")
                times[mode].append(s)
                print(f"  round {i + 1} {mode:5s} {s:6.2f} s", flush=True)
        with open(log) as f:
            branches = [json.loads(x) for x in f if x.strip()]

        def symbols(path):
            """The object's symbol names, the module id (anonymous-namespace
            names) and nvcc's temporary file name (a static initializer's
            name) aside, and the mangling's lengths, which count them."""
            names = subprocess.run(["nm", "--format=just-symbols", path], capture_output=True, text=True).stdout.split()
            return sorted(re.sub(r"\d", "", re.sub(r"_GLOBAL__N__\w+?_cu_\w*", "ANON", re.sub(r"tmpxft_[0-9a-f]+_[0-9a-f]+[-_]\d+_", "", n)))
                          for n in names)
        same = symbols(os.path.join(work, "nvcc-0.o")) == symbols(os.path.join(work, "split-0.o"))
        out = {"torch": torch_version, "arch": arch, "cpus": os.cpu_count(), "flags": flags, "times_s": times,
               "branches": branches, "same_symbols": same}
        print()
        print("| compile of the .cu | median s | min | max | n |")
        print("|---|---|---|---|---|")
        for mode, label in (("nvcc", "nvcc"), ("split", "cudal1_nvcc.py")):
            v = times[mode]
            print(f"| {label} | {statistics.median(v):.2f} | {min(v):.2f} | {max(v):.2f} | {len(v)} |")
        h = statistics.median(b["host_s"] for b in branches)
        d = statistics.median(b["device_s"] for b in branches)
        fin = statistics.median(b["final_s"] for b in branches)
        print(f"\nthe driver's branches (medians): host {h:.2f} s, device {d:.2f} s, then the host compile {fin:.2f} s")
        print(f"ratio of medians nvcc / driver: {statistics.median(times['nvcc']) / statistics.median(times['split']):.2f}x; "
              f"symbols {'agree' if same else 'DIFFER'} (module ids aside)")
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            with open(os.path.join(a.save, "nvcc-split-bench.json"), "w") as f:
                json.dump(out, f, indent=1)
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
