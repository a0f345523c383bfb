"""check_bench: what checking one output costs in the reference worker, the
fused CUDA kernels (cudal1_compare.DeviceCheck) against the PyTorch
operations they replace, side by side in one run.

    python3 bench/check_bench.py [BUILD/share/cudal1/python] [--elements N] [--repeats N]

Default output: 16384 x 16384 float32 (1 GiB, the swish example's). Prints
milliseconds per compare() of a passing output and per bitwise_equal() of an
input (median, min, max; synchronized wall clock), for each path.
"""
import argparse
import statistics
import sys
import time

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("python_dir", nargs="?", default="build/share/cudal1/python",
                    help="the staged cudal1 Python folder (beside kernels/compare.fatbin)")
parser.add_argument("--elements", type=int, default=16384 * 16384)
parser.add_argument("--repeats", type=int, default=20)
opts = parser.parse_args()
sys.path.insert(0, opts.python_dir)
import torch  # noqa: E402

import cudal1_compare as cc  # noqa: E402


def timed(fn, repeats):
    fn()  # warm-up (loads the kernels, fills the caching allocator)
    out = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out), min(out), max(out)


def torch_compare(c, r, rtol, atol_rel):
    saved = cc._device_check
    cc._device_check = None  # device_check() then answers None: the PyTorch path
    try:
        return cc.compare(c, r, rtol, atol_rel)
    finally:
        cc._device_check = saved


def torch_equal(a, b):
    return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


def main():
    if not torch.cuda.is_available():
        sys.exit("check_bench: needs a GPU")
    if cc.device_check(torch.zeros(1, device="cuda")) is None:
        sys.exit(f"check_bench: the check kernels did not load: {cc.output_check_note()}")
    gen = torch.Generator(device="cuda").manual_seed(0)
    r = torch.randn(opts.elements, device="cuda", generator=gen)
    c = r + 1e-6 * torch.randn(opts.elements, device="cuda", generator=gen)
    pristine = r.clone()
    fused, plain = cc.compare(c, r, 1e-4, 1e-4), torch_compare(c, r, 1e-4, 1e-4)
    assert cc.bitwise_equal(r, pristine) and not cc.bitwise_equal(r, c)
    assert fused["bad"] == plain["bad"] == 0 and abs(fused["rel_norm"] - plain["rel_norm"]) <= 1e-9 * plain["rel_norm"]
    gib = opts.elements * 4 / 2**30
    print(f"check_bench: {torch.cuda.get_device_name()}, {opts.elements} float32 elements ({gib:.2f} GiB) per tensor, "
          f"{opts.repeats} repeats")
    print("| operation | path | median ms | min ms | max ms |\n|---|---|---|---|---|")
    rows = [("compare (output vs reference)", "fused CUDA kernels", lambda: cc.compare(c, r, 1e-4, 1e-4)),
            ("compare (output vs reference)", "PyTorch operations", lambda: torch_compare(c, r, 1e-4, 1e-4)),
            ("bitwise_equal (input vs pristine)", "fused CUDA kernels", lambda: cc.bitwise_equal(r, pristine)),
            ("bitwise_equal (input vs pristine)", "PyTorch operations", lambda: torch_equal(r, pristine))]
    for op, path, fn in rows:
        med, lo, hi = timed(fn, opts.repeats)
        print(f"| {op} | {path} | {med:.3f} | {lo:.3f} | {hi:.3f} |")


main()
