"""cudal1's output comparison, run by the reference worker next to the data.

compare() gives the error figures of a candidate's output against the
reference output; passes() applies the judge's rule to them (the judge, in
src/check/tolerance.cc, decides; the worker needs the rule for its replay
test); Fingerprints recognizes an output replayed from an earlier call.
"""
import math

import torch

CHUNK = 1 << 26  # elements per comparison chunk: bounds the temporaries (a few x 256 MB)


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
    for i in range(0, flat.numel(), CHUNK):
        r = flat[i:i + CHUNK].double()
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
    for i in range(0, n, CHUNK):
        c, r = c_flat[i:i + CHUNK].double(), r_flat[i:i + CHUNK].double()
        inside += int(((c - r).abs() <= atol + rtol * r.abs()).sum().item())  # NaN compares false
    return inside / n


def enlarging_fraction(cand, ref):
    """Of the elements where cand differs from ref, the fraction where it is
    larger in magnitude (the error points away from zero). Rounding to
    nearest leaves about half; a systematic error (a sum that skips a term,
    a wrong scale) leaves nearly all or none."""
    c_flat, r_flat = cand.reshape(-1), ref.reshape(-1)
    enlarging = differing = 0
    for i in range(0, r_flat.numel(), CHUNK):
        c, r = c_flat[i:i + CHUNK].double(), r_flat[i:i + CHUNK].double()
        d = (c - r) * r
        enlarging += int((d > 0).sum().item())
        differing += int((d != 0).sum().item())  # NaN differs from nothing here: not counted
    return enlarging / differing if differing else 0.5


def bitwise_equal(a, b):
    if a.numel() == 0:
        return True
    return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


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
    work = torch.float64 if ref.dtype == torch.float64 else torch.float32
    f64 = torch.float64
    sum_sq = r_flat.new_zeros((), dtype=f64)
    for i in range(0, n, CHUNK):
        r = r_flat[i:i + CHUNK].to(work)
        sum_sq += torch.sum(r * r, dtype=f64)
    ref_sq = sum_sq.item()
    if not math.isfinite(ref_sq):
        return compare_precise(cand, ref, rtol, atol_rel)
    scale = math.sqrt(ref_sq / n)
    atol = atol_rel * scale if scale > 0 else atol_rel
    passed, err_sq = r_flat.new_zeros((), dtype=torch.int64), r_flat.new_zeros((), dtype=f64)
    max_abs, max_rel = r_flat.new_zeros((), dtype=work), r_flat.new_zeros((), dtype=work)
    for i in range(0, n, CHUNK):
        c, r = c_flat[i:i + CHUNK].to(work), r_flat[i:i + CHUNK].to(work)  # may alias: never modify r
        d = (c - r).abs_()
        r_abs = r.abs()
        passed += (d <= r_abs * rtol + atol).sum()  # NaN fails
        err_sq += torch.sum(d * d, dtype=f64)
        max_abs = torch.maximum(max_abs, d.max())
        max_rel = torch.maximum(max_rel, d.div_(r_abs.add_(atol)).max())
    if passed.item() != n or not math.isfinite(err_sq.item()):
        return compare_precise(cand, ref, rtol, atol_rel)
    err_norm, ref_norm = math.sqrt(err_sq.item()), math.sqrt(ref_sq)
    rel_norm = err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else math.inf)
    return {"numel": n, "bad": 0, "unwritten": 0, "max_abs": finite_or_none(max_abs.item()),
            "max_rel": finite_or_none(max_rel.item()), "rel_norm": finite_or_none(rel_norm), "scale": scale}


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
    for i in range(0, n, CHUNK):
        c, r = c_flat[i:i + CHUNK].double(), r_flat[i:i + CHUNK].double()
        nan_c, nan_r = torch.isnan(c), torch.isnan(r)
        unwritten += (nan_c & ~nan_r).sum()
        same = (c == r) | (nan_c & nan_r)  # also equal infinities
        diff = torch.where(same, torch.zeros_like(c), (c - r).abs())
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
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
