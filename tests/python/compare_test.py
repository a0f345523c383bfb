"""Tests of python/cudal1_compare.py's figures that the judge's rules read:
the error direction and the within-tolerance fraction that tell rounding from
a wrong result (precision_downgrade), and compare() itself on known errors.

    python3 tests/python/compare_test.py     (needs torch)
"""
import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import torch  # noqa: E402

from cudal1_compare import compare, enlarging_fraction, passes, within_fraction  # noqa: E402


class ErrorShape(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.ref = torch.randn(200_000) * 3

    def test_bf16_rounding_errs_both_ways(self):
        cand = self.ref.bfloat16().float()
        self.assertAlmostEqual(enlarging_fraction(cand, self.ref), 0.5, delta=0.05)
        self.assertGreater(within_fraction(cand, self.ref, 2 * 1.6e-2, 2 * 1.6e-2), 0.999)

    def test_a_uniform_scale_error_errs_one_way(self):
        cand = self.ref * (1 + 1e-3)  # a sum that skips a term: every value a little too large
        self.assertGreater(enlarging_fraction(cand, self.ref), 0.99)
        self.assertLess(enlarging_fraction(self.ref * (1 - 1e-3), self.ref), 0.01)

    def test_a_few_far_off_elements_fall_outside(self):
        cand = self.ref.clone()
        cand[:1000] += 10  # 0.5% of the elements badly wrong
        self.assertLess(within_fraction(cand, self.ref, 2 * 1.6e-2, 2 * 1.6e-2), 0.999)

    def test_nan_is_outside_and_not_a_direction(self):
        cand = self.ref.clone()
        cand[0] = float("nan")
        self.assertLess(within_fraction(cand, self.ref, 1e-4, 1e-4), 1.0)
        self.assertEqual(enlarging_fraction(self.ref.clone(), self.ref), 0.5)  # no differences at all


class Compare(unittest.TestCase):
    def test_exact_output_passes_with_zero_error(self):
        ref = torch.randn(1000)
        f = compare(ref.clone(), ref, 1e-4, 1e-4)
        self.assertTrue(passes(f, 1e-4))
        self.assertEqual(f["rel_norm"], 0.0)

    def test_zeros_fail_on_relative_norm(self):
        ref = torch.randn(1000)
        f = compare(torch.zeros_like(ref), ref, 1e-4, 1e-4)
        self.assertFalse(passes(f, 1e-4))
        self.assertTrue(math.isclose(f["rel_norm"], 1.0, rel_tol=1e-6))

    def test_unwritten_nan_is_counted(self):
        ref = torch.randn(1000)
        cand = ref.clone()
        cand[:7] = float("nan")
        self.assertEqual(compare(cand, ref, 1e-4, 1e-4)["unwritten"], 7)


if __name__ == "__main__":
    unittest.main()
