"""The Python tests' own reading of the 16-bit verify rule (reference.py):
half an ulp of the format at the reference, by hand-computed values, and
dx rounded from the reference passing while one ulp off fails."""
import unittest

import torch

from reference import half_ulp, verify_failure


class SixteenBitRule(unittest.TestCase):
    def test_half_ulp(self):
        ref = torch.tensor([1.0, 1.999, -2.0, 60000.0, 2.0 ** -20, 0.0], dtype=torch.float64)
        self.assertEqual(half_ulp(ref, torch.float16).tolist(), [2.0 ** -11, 2.0 ** -11, 2.0 ** -10, 16.0,
                                                                 2.0 ** -25, 2.0 ** -25])
        self.assertEqual(half_ulp(ref[:3], torch.bfloat16).tolist(), [2.0 ** -8, 2.0 ** -8, 2.0 ** -7])
        self.assertEqual(half_ulp(ref, torch.float32).tolist(), [0.0] * 6)

    def test_rounded_passes_one_ulp_off_fails(self):
        ref = torch.tensor([[[[1 + 2.0 ** -11, 1000.3, 3e-5, -0.7]]]], dtype=torch.float64)
        abs_sum = ref.abs() * 1e-7  # leaves the format's rounding as the only allowance
        for dtype in (torch.float16, torch.bfloat16):
            dx = ref.to(dtype)
            self.assertIsNone(verify_failure(dx, ref, abs_sum), dtype)
            ulp = 2 * half_ulp(ref, dtype)
            off = (dx.double() - ulp * (torch.arange(4) == 3)).to(dtype)  # the last element a whole ulp below
            self.assertEqual((off != dx).sum().item(), 1)
            self.assertIsNotNone(verify_failure(off, ref, abs_sum), dtype)

if __name__ == "__main__":
    unittest.main()
