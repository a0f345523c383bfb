"""The fused output check on the GPU (src/check/compare_kernels.cu, through
cudal1_compare.DeviceCheck) gives the figures of the PyTorch path it replaces:
elements passing, sums of squares, largest errors, byte equality; aligned and
misaligned, with and without a tail, for float32, float16 and bfloat16.

    python3 tests/python/device_check_test.py BUILD/share/cudal1/python   (needs a GPU)
"""
import math
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1) if len(sys.argv) > 1 else "build/share/cudal1/python")
import torch  # noqa: E402

import cudal1_compare as cc  # noqa: E402


def kernels():
    dev = cc.device_check(torch.zeros(1, device="cuda"))
    if dev is None:
        raise AssertionError(f"the check kernels did not load: {cc.output_check_note()}")
    return dev


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = kernels()

    def cases(self):
        gen = torch.Generator(device="cuda").manual_seed(3)
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for n in (1, 7, 1000, 1_000_003, 1 << 22):
                ref = (torch.randn(n + 1, device="cuda", generator=gen) * 2).to(dtype)
                noise = (torch.randn(n + 1, device="cuda", generator=gen) * 1e-3).to(dtype)
                for offset in (0, 1):  # 1: misaligned, the one-element path
                    r = ref[offset:offset + n]
                    yield f"{dtype} n={n} offset={offset} exact", r.clone(), r
                    yield f"{dtype} n={n} offset={offset} noisy", (r.float() + noise[:n].float()).to(dtype), r
                    wrong = r.clone()
                    wrong[n // 2] += 100
                    yield f"{dtype} n={n} offset={offset} one wrong", wrong, r

    def test_same_figures_as_pytorch(self):
        for name, c, r in self.cases():
            with self.subTest(name):
                self.assertTrue(self.dev.usable(c, r))
                got_sq, want_sq = self.dev.sum_sq(r), cc.torch_sum_sq(r)
                self.assertTrue(math.isclose(got_sq, want_sq, rel_tol=1e-9), (got_sq, want_sq))
                atol = 1e-3 * math.sqrt(want_sq / r.numel())
                got, want = self.dev.errors(c, r, 1e-3, atol), cc.torch_errors(c, r, 1e-3, atol)
                self.assertEqual(got[0], want[0], "elements passing")
                self.assertTrue(math.isclose(got[1], want[1], rel_tol=1e-9, abs_tol=1e-300), (got[1], want[1]))
                self.assertEqual(got[2], want[2], "largest error")
                self.assertEqual(got[3], want[3], "largest relative error")

    def test_nan_fails_every_element_it_touches(self):
        r = torch.randn(4096, device="cuda")
        c = r.clone()
        c[5] = float("nan")
        passed, err_sq, _, _ = self.dev.errors(c, r, 1e-4, 1e-4)
        self.assertEqual(passed, 4095)
        self.assertTrue(math.isnan(err_sq))
        self.assertEqual(cc.compare(c, r, 1e-4, 1e-4)["unwritten"], 1)  # falls back to the precise figures

    def test_compare_uses_the_kernels_and_agrees(self):
        r = torch.randn(3, 1000, device="cuda")
        c = r + 1e-6
        f = cc.compare(c, r, 1e-4, 1e-4)
        self.assertEqual(cc.output_check_note(), "fused CUDA kernels")
        p = cc.compare_precise(c, r, 1e-4, 1e-4)
        self.assertEqual(f["bad"], p["bad"])
        self.assertTrue(math.isclose(f["rel_norm"], p["rel_norm"], rel_tol=1e-3))


class BytesEqual(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = kernels()

    def test_one_flipped_byte_anywhere(self):
        for nbytes in (1, 15, 16, 17, 4096 + 3, 10_000_019):
            a = torch.randint(0, 256, (nbytes + 1,), dtype=torch.uint8, device="cuda")
            for offset in (0, 1):
                x = a[offset:offset + nbytes]
                self.assertTrue(cc.bitwise_equal(x, x.clone()), (nbytes, offset))
                for pos in {0, nbytes // 2, nbytes - 1}:
                    y = x.clone()
                    y[pos] ^= 1
                    self.assertFalse(cc.bitwise_equal(x, y), (nbytes, offset, pos))

    def test_float_bits_not_values(self):
        a = torch.tensor([0.0, float("nan")], device="cuda")
        self.assertTrue(cc.bitwise_equal(a, a.clone()))  # NaN equals itself bitwise
        self.assertFalse(cc.bitwise_equal(a, torch.tensor([-0.0, float("nan")], device="cuda")))


if __name__ == "__main__":
    unittest.main()
