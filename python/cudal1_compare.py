"""cudal1's output comparison, run by the reference worker next to the data.

compare() gives the error figures of a candidate's output against the
reference output; passes() applies the judge's rule to them (the judge, in
src/check/tolerance.cc, decides; the worker needs the rule for its replay
test); Fingerprints recognizes an output replayed from an earlier call.
"""
import ctypes
import math
import os
import struct

import torch

# Elements per comparison chunk. On the GPU it bounds the temporaries (a few
# x 256 MB). On the CPU the temporaries are fresh memory for every chunk, and
# a chunk of 64M elements paid its page faults on every operation: on the
# 2-core VM compare() of 12M floats took 2.5 s with 1 << 26, 1.5-2.9 s with
# 1 << 22, 0.06-0.07 s with 1 << 20 and 0.05 s with 1 << 18 (cache-sized,
# reused by the allocator); a trial's check of a 48 MB output took 10 s.
CHUNK_GPU = 1 << 26
CHUNK_CPU = 1 << 18


def chunk_of(t):
    return CHUNK_GPU if t.is_cuda else CHUNK_CPU


class DeviceCheck:
    """compare()'s fast path and bitwise_equal() as fused CUDA kernels
    (src/check/compare_kernels.cu, built into share/cudal1/kernels/
    compare.fatbin), loaded with the driver API into torch's context and
    launched on torch's current stream. Each reads its operands once, where
    the same figures as PyTorch operations take a dozen passes over the
    output: every timed call's output is checked, so this is most of what
    checking costs."""

    KERNEL_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
    THREADS = 256

    def __init__(self, path):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        torch.cuda.synchronize()  # makes torch's context current on this thread
        with open(path, "rb") as f:
            image = f.read()
        self._image = ctypes.create_string_buffer(image, len(image))
        self.module = ctypes.c_void_p()
        self._check(self.cuda.cuModuleLoadData(ctypes.byref(self.module), self._image), "cuModuleLoadData")
        self.functions = {}
        for name in [f"cudal1_{op}_{k}" for op in ("sum_sq", "compare") for k in self.KERNEL_DTYPES.values()] + [
                "cudal1_bytes_differ"]:
            fn = ctypes.c_void_p()
            self._check(self.cuda.cuModuleGetFunction(ctypes.byref(fn), self.module, name.encode()), name)
            self.functions[name] = fn
        device = torch.cuda.current_device()
        self.device = torch.device("cuda", device)
        self.max_blocks = 8 * torch.cuda.get_device_properties(device).multi_processor_count
        # [0] sum of squares (float64); [1] error sum of squares (float64);
        # [2] elements passing; [3] largest error, largest relative error
        # (two float32); [4] bytes differ
        self.scratch = torch.zeros(5, dtype=torch.int64, device=self.device)

    @staticmethod
    def _check(rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed (CUresult {rc})")

    def _launch(self, name, n, *args):
        holders = []
        for a in args:
            if isinstance(a, torch.Tensor):
                holders.append(ctypes.c_uint64(a.data_ptr()))
            elif isinstance(a, float):
                holders.append(ctypes.c_float(a))
            else:
                holders.append(ctypes.c_int64(a))
        params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        blocks = max(1, min(self.max_blocks, -(-n // (self.THREADS * 8))))
        stream = ctypes.c_void_p(torch.cuda.current_stream(self.device).cuda_stream)
        self._check(self.cuda.cuLaunchKernel(self.functions[name], blocks, 1, 1, self.THREADS, 1, 1, 0, stream,
                                             params, None), name)

    def usable(self, *tensors, dtypes=KERNEL_DTYPES):
        """Whether the kernels take these flat tensors (one dtype they know,
        this device, dense)."""
        return all(t.device == self.device and t.dtype == tensors[0].dtype and t.is_contiguous() for t in tensors) \
            and tensors[0].dtype in dtypes

    def sum_sq(self, r_flat):
        s = self.scratch[0:1]
        s.zero_()
        self._launch(f"cudal1_sum_sq_{self.KERNEL_DTYPES[r_flat.dtype]}", r_flat.numel(), r_flat, r_flat.numel(), s)
        return s.view(torch.float64).item()

    def errors(self, c_flat, r_flat, rtol, atol):
        """(elements passing, float64 sum of squared errors, largest error,
        largest relative error), as compare()'s PyTorch loop computes them."""
        s = self.scratch[1:4]
        s.zero_()
        n = r_flat.numel()
        self._launch(f"cudal1_compare_{self.KERNEL_DTYPES[r_flat.dtype]}", n, c_flat, r_flat, n, float(rtol),
                     float(atol), s)
        err_sq_bits, passed, maxima = s.tolist()
        max_abs, max_rel = struct.unpack("<2f", struct.pack("<q", maxima))
        return passed, struct.unpack("<d", struct.pack("<q", err_sq_bits))[0], max_abs, max_rel

    def bytes_differ(self, a, b):
        s = self.scratch[4:5]
        s.zero_()
        nbytes = a.numel() * a.element_size()
        self._launch("cudal1_bytes_differ", nbytes // 16 + 1, a, b, nbytes, s)
        return s.item() != 0


_device_check = None
_device_check_note = None


def device_check(*tensors):
    """The DeviceCheck where these tensors are on the GPU and the kernels
    load, else None (CPU tensors, no fatbin, CUDAL1_DEVICE_CHECK=0)."""
    global _device_check, _device_check_note
    if not all(t.is_cuda for t in tensors):
        return None
    if _device_check is None and _device_check_note is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "compare.fatbin")
        if os.environ.get("CUDAL1_DEVICE_CHECK", "1") == "0":
            _device_check_note = "PyTorch operations (CUDAL1_DEVICE_CHECK=0)"
        elif not os.path.exists(path):
            _device_check_note = f"PyTorch operations (no {os.path.normpath(path)})"
        else:
            try:
                _device_check = DeviceCheck(path)
                _device_check_note = "fused CUDA kernels"
            except Exception as e:  # an older driver, another context: the PyTorch path still serves
                _device_check_note = f"PyTorch operations ({type(e).__name__}: {e})"
    return _device_check


def output_check_note():
    """How outputs on the GPU are checked in this process (after a check)."""
    return _device_check_note or "not yet used"


def finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else None


class Fingerprints:
    """Samples of the reference outputs of recent calls (the same random
    positions every call), to recognize a candidate output replayed from an
    earlier call without keeping whole outputs."""

    KEEP = 64
    SAMPLES = 4096

    def __init__(self):
        self.positions = None  # per output: flat indices
        self.history = []      # (call number, [per output: sampled values])
        self.calls = 0

    def sample(self, i, t):
        flat = t.reshape(-1)
        return flat[self.positions[i].to(flat.device)].double().cpu()

    def add(self, outs):
        self.calls += 1
        if self.positions is None:
            gen = torch.Generator().manual_seed(12345)
            self.positions = [torch.randint(0, max(o.numel(), 1), (min(self.SAMPLES, o.numel()),), generator=gen)
                              for o in outs]
        self.history.append((self.calls, [self.sample(i, o) for i, o in enumerate(outs)]))
        del self.history[:-self.KEEP]

    def match(self, i, cand, rtol, atol):
        """The number of an earlier call whose reference the candidate's
        output i matches at every sampled position, or None."""
        if self.positions is None or self.positions[i].numel() == 0:
            return None
        c = self.sample(i, cand)
        for call, samples in reversed(self.history):
            r = samples[i]
            if bool(((c - r).abs() <= atol + rtol * r.abs()).all()):
                return call
        return None


def passes(figures, rel_norm):
    """The judge's rule (src/check/tolerance.cc), for the replay test here."""
    return figures["bad"] == 0 and figures["unwritten"] == 0 and figures["rel_norm"] is not None \
        and figures["rel_norm"] <= rel_norm


def finite_sum_sq(flat):
    """The sum of squares of the finite values of a flat tensor, in float64
    by chunks: over the element count, the square of the tolerances' scale."""
    sum_sq = flat.new_zeros((), dtype=torch.float64)
    step = chunk_of(flat)
    for i in range(0, flat.numel(), step):
        r = flat[i:i + step].double()
        sum_sq += torch.where(torch.isfinite(r), r * r, torch.zeros_like(r)).sum()
    return sum_sq.item()


def within_fraction(cand, ref, rtol, atol_rel):
    """The fraction of elements within |c - r| <= atol_rel * scale + rtol * |r|
    (scale: the RMS of the finite reference values); NaN counts as outside.
    Lower-precision arithmetic leaves nearly every element within its
    precision's tolerance; a wrong result leaves some far outside."""
    c_flat, r_flat = cand.reshape(-1), ref.reshape(-1)
    n = r_flat.numel()
    if n == 0:
        return 1.0
    atol = atol_rel * math.sqrt(finite_sum_sq(r_flat) / n)
    inside = 0
    step = chunk_of(r_flat)
    for i in range(0, n, step):
        c, r = c_flat[i:i + step].double(), r_flat[i:i + step].double()
        inside += int(((c - r).abs() <= atol + rtol * r.abs()).sum().item())  # NaN compares false
    return inside / n


def enlarging_fraction(cand, ref):
    """Of the elements where cand differs from ref, the fraction where it is
    larger in magnitude (the error points away from zero). Rounding to
    nearest leaves about half; a systematic error (a sum that skips a term,
    a wrong scale) leaves nearly all or none."""
    c_flat, r_flat = cand.reshape(-1), ref.reshape(-1)
    enlarging = differing = 0
    step = chunk_of(r_flat)
    for i in range(0, r_flat.numel(), step):
        c, r = c_flat[i:i + step].double(), r_flat[i:i + step].double()
        d = (c - r) * r
        enlarging += int((d > 0).sum().item())
        differing += int((d != 0).sum().item())  # NaN differs from nothing here: not counted
    return enlarging / differing if differing else 0.5


def bitwise_equal(a, b):
    if a.numel() == 0:
        return True
    a_bytes, b_bytes = a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8)
    if a_bytes.numel() != b_bytes.numel():
        return False
    dev = device_check(a_bytes, b_bytes)
    if dev is not None and dev.usable(a_bytes, b_bytes, dtypes=(torch.uint8,)):
        return not dev.bytes_differ(a_bytes, b_bytes)
    return torch.equal(a_bytes, b_bytes)


def compare(cand, ref, rtol, atol_rel):
    """Error figures of cand against ref (see compare_precise for the rule).

    The fast path runs in the output's precision (float32 for half types,
    sums in float64) with few passes, since every call's output is checked.
    It is exact whenever every element passes; anything else (a failing
    element, NaN or infinity anywhere) is recomputed by compare_precise.
    """
    c_flat, r_flat = cand.reshape(-1), ref.reshape(-1)
    n = r_flat.numel()
    if n == 0 or not (ref.is_floating_point() and cand.is_floating_point()):
        return compare_precise(cand, ref, rtol, atol_rel)
    dev = device_check(c_flat, r_flat)
    if dev is not None and not dev.usable(c_flat, r_flat):
        dev = None
    ref_sq = dev.sum_sq(r_flat) if dev is not None else torch_sum_sq(r_flat)
    if not math.isfinite(ref_sq):
        return compare_precise(cand, ref, rtol, atol_rel)
    scale = math.sqrt(ref_sq / n)
    atol = atol_rel * scale if scale > 0 else atol_rel
    passed, err_sq, max_abs, max_rel = (dev.errors if dev is not None else torch_errors)(c_flat, r_flat, rtol, atol)
    if passed != n or not math.isfinite(err_sq):
        return compare_precise(cand, ref, rtol, atol_rel)
    err_norm, ref_norm = math.sqrt(err_sq), math.sqrt(ref_sq)
    rel_norm = err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else math.inf)
    return {"numel": n, "bad": 0, "unwritten": 0, "max_abs": finite_or_none(max_abs),
            "max_rel": finite_or_none(max_rel), "rel_norm": finite_or_none(rel_norm), "scale": scale}


def work_dtype(t):
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def torch_sum_sq(r_flat):
    """compare()'s sum of squared reference values, as PyTorch operations."""
    work, sum_sq = work_dtype(r_flat), r_flat.new_zeros((), dtype=torch.float64)
    step = chunk_of(r_flat)
    for i in range(0, r_flat.numel(), step):
        r = r_flat[i:i + step].to(work)
        sum_sq += torch.sum(r * r, dtype=torch.float64)
    return sum_sq.item()


def torch_errors(c_flat, r_flat, rtol, atol):
    """compare()'s error figures as PyTorch operations (DeviceCheck.errors
    fuses them): elements passing, sum of squared errors, largest error,
    largest error relative to |r| + atol."""
    work = work_dtype(r_flat)
    passed, err_sq = r_flat.new_zeros((), dtype=torch.int64), r_flat.new_zeros((), dtype=torch.float64)
    max_abs, max_rel = r_flat.new_zeros((), dtype=work), r_flat.new_zeros((), dtype=work)
    step = chunk_of(r_flat)
    for i in range(0, r_flat.numel(), step):
        c, r = c_flat[i:i + step].to(work), r_flat[i:i + step].to(work)  # may alias: never modify r
        d = (c - r).abs_()
        r_abs = r.abs()
        passed += (d <= r_abs * rtol + atol).sum()  # NaN fails
        err_sq += torch.sum(d * d, dtype=torch.float64)
        max_abs = torch.maximum(max_abs, d.max())
        max_rel = torch.maximum(max_rel, d.div_(r_abs.add_(atol)).max())
    return passed.item(), err_sq.item(), max_abs.item(), max_rel.item()


def compare_precise(cand, ref, rtol, atol_rel):
    """Error figures of cand against ref, computed in float64 in chunks.

    Tolerance per element: |c - r| <= atol + rtol * |r|, with
    atol = atol_rel * scale and scale the RMS of the finite reference values,
    so the absolute tolerance follows the output's magnitude and an all-zero
    output cannot pass a task whose outputs are merely small. NaN where the
    reference has none counts as unwritten (outputs are NaN-prefilled).
    """
    c_flat, r_flat = cand.reshape(-1), ref.reshape(-1)
    n = r_flat.numel()
    sum_sq = finite_sum_sq(r_flat)
    scale = math.sqrt(sum_sq / n) if n else 0.0
    atol = atol_rel * scale if scale > 0 else atol_rel
    zero = r_flat.new_zeros((), dtype=torch.float64)
    bad, unwritten, err_sq, max_abs, max_rel = zero.clone(), zero.clone(), zero.clone(), zero.clone(), zero.clone()
    step = chunk_of(r_flat)
    # Integers and booleans are compared exactly, in their own type: float64
    # holds integers exactly only up to 2**53, and an int64 output rounded
    # through it passed with "max abs 0" (an attack review, 2026-12-07:
    # 65468 of 65536 elements off by up to 512 near 2**61, judged correct).
    exact = not ref.is_floating_point() and not cand.is_floating_point()
    for i in range(0, n, step):
        c, r = c_flat[i:i + step].double(), r_flat[i:i + step].double()
        nan_c, nan_r = torch.isnan(c), torch.isnan(r)
        unwritten += (nan_c & ~nan_r).sum()
        same = (c == r) | (nan_c & nan_r)  # also equal infinities
        diff = torch.where(same, torch.zeros_like(c), (c - r).abs())
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
        if exact:
            if cand.dtype == torch.bool:
                # A byte that is neither 0 nor 1 is no bool a kernel wrote:
                # the stage's sentinel (0xFF or 0x5A), which torch reads as
                # True, so an unwritten element matched a True one.
                unwritten += (c_flat[i:i + step].view(torch.uint8) > 1).sum()
            differ = c_flat[i:i + step] != r_flat[i:i + step]
            diff = torch.where(differ & (diff == 0), torch.ones_like(diff), diff)  # distinct integers differ by 1 at least
            bad += differ.sum()
        else:
            bad += (diff > atol + rtol * r.abs()).sum()
        finite = torch.isfinite(diff)
        fd = torch.where(finite, diff, torch.zeros_like(diff))
        err_sq += (fd * fd).sum()
        if fd.numel():
            max_abs = torch.maximum(max_abs, fd.max())
            rel = torch.where(fd == 0, torch.zeros_like(fd), fd / (r.abs() + atol))  # 0/0 (exact integers) is no error
            max_rel = torch.maximum(max_rel, rel.max())
        if not bool(finite.all()):
            max_abs = torch.full_like(max_abs, math.inf)
            max_rel = torch.full_like(max_rel, math.inf)
    ref_norm = math.sqrt(sum_sq)
    err_norm = math.sqrt(err_sq.item())
    rel_norm = err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else math.inf)
    if max_abs.item() == math.inf:
        rel_norm = math.inf
    return {"numel": n, "bad": int(bad.item()), "unwritten": int(unwritten.item()),
            "max_abs": finite_or_none(max_abs.item()), "max_rel": finite_or_none(max_rel.item()),
            "rel_norm": finite_or_none(rel_norm), "scale": scale}
