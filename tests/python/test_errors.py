"""Bad input raises: the library's refusals as IgemmError carrying its
one-line message and status, argument errors of the Python layer as
ValueError / TypeError naming the argument."""
import os
import unittest

import numpy as np
import torch

import igemm
import igemm.torch as itorch
from reference import reference, verify_failure


def problem(dtype=torch.float32):
    dy = torch.rand(2, 4, 5, 5).to(dtype)
    w = torch.rand(4, 3, 3, 3).to(dtype)
    return dy, w, (2, 3, 5, 5)


class LibraryRefusals(unittest.TestCase):
    def refused(self, status, text, *args, **kw):
        with self.assertRaises(igemm.IgemmError) as cm:
            igemm.conv_bwd_data(*args, **kw)
        self.assertEqual(cm.exception.status_name, status)
        self.assertIn(text, str(cm.exception))
        self.assertNotIn("\n", str(cm.exception))
        return cm.exception

    def test_fp16_and_bf16_reach_the_library(self):
        """16-bit tensors reach the library as IGEMM_FP16 / IGEMM_BF16 on
        every target: where it has a configuration of the type, dx matches
        torch's float64 reference by the 16-bit rule; where it has none, the
        refusal names the type (MIOpenDriver's command word) and that no
        configuration is written for it."""
        for arch in igemm.targets:
            for dtype, cmd, name in ((torch.float16, "convfp16", "fp16"), (torch.bfloat16, "convbfp16", "bf16")):
                dy, w, size = problem(dtype)
                dy, w = dy * 2 - 1, w * 2 - 1
                a = igemm.applicable(dy, w, size, padding=1, arch=arch)
                if any(name in s for s in igemm.solutions()):
                    self.assertTrue(a, f"{arch} {name}: {a.reason}")
                    dx = igemm.conv_bwd_data(dy, w, size, padding=1, arch=arch)
                    self.assertEqual(dx.dtype, dtype)
                    ref, abs_sum = reference(dy, w, size, 1, 1, 1, 1)
                    self.assertIsNone(verify_failure(dx, ref, abs_sum), f"{arch} {name}")
                    continue
                self.assertFalse(a)
                self.assertEqual(a.status_name, "IGEMM_ERR_NOT_APPLICABLE")
                self.assertIn(f"no kernel configuration applies on {arch} to {cmd} -n 2 -c 3 -H 5 -W 5", a.reason)
                self.assertIn(f"none is written for NCHW {name} tensors", a.reason)
                self.refused("IGEMM_ERR_NOT_APPLICABLE", f"to {cmd} -n 2", dy, w, size, padding=1, arch=arch)
        dy, w, size = problem()
        if not any("fp16" in s for s in igemm.solutions()):
            self.refused("IGEMM_ERR_NOT_APPLICABLE", "to convfp16 -n 2", dy.numpy().astype(np.float16),
                         w.numpy().astype(np.float16), size, padding=1)

    def test_nhwc_is_passed_through(self):
        """Channels-last data reaches the library as NHWC: the naive kernel
        (NCHW only) refuses it with its reason, an NCHW solution by name too."""
        dy, w, size = problem()
        cl = dy.contiguous(memory_format=torch.channels_last)
        self.refused("IGEMM_ERR_NOT_APPLICABLE", "written for nchw fp32 tensors (the naive kernel), not nhwc fp32", cl, w,
                     size, padding=1, solution="naive")
        nhwc = np.ascontiguousarray(dy.numpy().transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        nchw_name = next(s for s in igemm.solutions() if "_nchw_" in s)
        a = igemm.applicable(nhwc, w.numpy(), size, padding=1, solution=nchw_name)
        self.assertFalse(a)
        self.assertEqual(a.reason, "written for nchw fp32 tensors")

    def test_invalid_problems(self):
        dy, w, size = problem()
        self.refused("IGEMM_ERR_INVALID_ARG", "padding", dy, w, size, padding=-1)
        self.refused("IGEMM_ERR_INVALID_ARG", "stride", dy, w, size, stride=(1, 0), padding=1)
        self.refused("IGEMM_ERR_INVALID_ARG", "groups g=3 must divide c=9 and k=4", dy, w, (2, 9, 5, 5), padding=1,
                     groups=3)
        with self.assertRaises(igemm.IgemmError):
            igemm.applicable((2, 4, 5, 5), (4, 3, 3, 3), (5, 5), padding=-2)

    def test_unknown_solution_and_target(self):
        dy, w, size = problem()
        self.refused("IGEMM_ERR_INVALID_ARG", "unknown solution 'fastest'", dy, w, size, padding=1, solution="fastest")
        e = self.refused("IGEMM_ERR_UNSUPPORTED", "unknown target 'gfx1100'", dy, w, size, padding=1, arch="gfx1100")
        for t in igemm.targets:  # the message lists the known ones
            self.assertIn(t, str(e))

    def test_not_applicable(self):
        """One image above the 2 GiB per-launch limit: no configuration applies."""
        a = igemm.applicable((1, 1, 32768, 32768), (1, 1, 1, 1), (32768, 32768))
        self.assertFalse(a)
        self.assertEqual(a.status_name, "IGEMM_ERR_NOT_APPLICABLE")
        self.assertIn("no kernel configuration applies", a.reason)
        self.assertTrue(igemm.applicable((1, 1, 32, 32), (1, 1, 1, 1), (32, 32)))

    @unittest.skipIf(os.path.exists("/dev/kfd"), "this machine may have an AMD GPU")
    def test_hip_without_a_gpu(self):
        dy, w, size = problem()
        self.refused("IGEMM_ERR_NO_DEVICE", "no AMD GPU", dy, w, size, padding=1, backend="hip")
        self.refused("IGEMM_ERR_NO_DEVICE", "no AMD GPU", dy.numpy(), w.numpy(), size, padding=1, backend="hip")
        with self.assertRaises(igemm.IgemmError):
            igemm.applicable(dy, w, size, padding=1, backend="hip")

    def test_module_backward_raises(self):
        """The igemm module's backward raises the library's refusal: here a
        channels-last dy (as nn.Conv2d gives for channels-last input) forced
        onto an NCHW configuration."""
        nchw_name = next(s for s in igemm.solutions() if "_nchw_" in s)
        conv = itorch.Conv2d(3, 4, 3, padding=1, igemm_solution=nchw_name)
        x = torch.rand(2, 3, 6, 6).contiguous(memory_format=torch.channels_last).requires_grad_()
        y = conv(x)
        self.assertTrue(y.is_contiguous(memory_format=torch.channels_last))
        with self.assertRaises(igemm.IgemmError) as cm:
            y.backward(torch.ones_like(y))
        self.assertIn("written for nchw fp32 tensors", str(cm.exception))


class ArgumentErrors(unittest.TestCase):
    def test_types(self):
        dy, w, size = problem()
        with self.assertRaisesRegex(TypeError, "dy has dtype torch.float64, which is not an igemm data type"):
            igemm.conv_bwd_data(dy.double(), w.double(), size, padding=1)
        with self.assertRaisesRegex(TypeError, "w has dtype int32"):
            igemm.conv_bwd_data(dy.numpy(), w.numpy().astype(np.int32), size, padding=1)
        with self.assertRaisesRegex(TypeError, "dy is float32 but w is float16"):
            igemm.conv_bwd_data(dy, w.half(), size, padding=1)
        with self.assertRaisesRegex(TypeError, "dy must be a numpy array or a torch tensor, not list"):
            igemm.conv_bwd_data([[1.0]], w, size)

    def test_shapes(self):
        dy, w, size = problem()
        with self.assertRaisesRegex(ValueError, "dy must have 4 dimensions"):
            igemm.conv_bwd_data(dy[0], w, size, padding=1)
        with self.assertRaisesRegex(ValueError, r"dy is 5x5, but input 5x5 .* gives 3x3"):
            igemm.conv_bwd_data(dy, w, size)
        with self.assertRaisesRegex(ValueError, r"expected N=2, C=3"):
            igemm.conv_bwd_data(dy, w, (1, 3, 5, 5), padding=1)
        with self.assertRaisesRegex(ValueError, "dy has 4 channels but w"):
            igemm.conv_bwd_data(dy, torch.rand(5, 3, 3, 3), size, padding=1)
        with self.assertRaisesRegex(ValueError, "input_size must be"):
            igemm.conv_bwd_data(dy, w, (5,), padding=1)
        with self.assertRaisesRegex(ValueError, "padding must be an int or a pair"):
            igemm.conv_bwd_data(dy, w, size, padding=(1, 1, 1))
        with self.assertRaisesRegex(ValueError, "input_size must be"):
            igemm.conv_bwd_data(dy, w, 5, padding=1)
        with self.assertRaisesRegex(ValueError, "stride must be an int or a pair of ints, not 1.5"):
            igemm.conv_bwd_data(dy, w, size, stride=1.5)
        with self.assertRaisesRegex(ValueError, "groups must be an int"):
            igemm.conv_bwd_data(dy, w, size, groups=True)
        # a size that would wrap around in a C int is refused, not truncated
        with self.assertRaisesRegex(ValueError, "input_size value 4294967301 does not fit a C int"):
            igemm.conv_bwd_data(dy, w, (2, 3, 2**32 + 5, 5), padding=1)
        with self.assertRaisesRegex(ValueError, "stride value -4294967294 does not fit a C int"):
            igemm.conv_bwd_data(dy, w, size, stride=(1, -2**32 + 2))
        # numpy integers are integers
        dx = igemm.conv_bwd_data(dy, w, tuple(np.int64(v) for v in size), padding=np.int32(1))
        self.assertEqual(tuple(dx.shape), size)

    def test_backend_and_device(self):
        dy, w, size = problem()
        with self.assertRaisesRegex(ValueError, "unknown backend 'cuda'"):
            igemm.conv_bwd_data(dy, w, size, padding=1, backend="cuda")
        with self.assertRaisesRegex(ValueError, "is on meta"):
            igemm.conv_bwd_data(dy.to("meta"), w.to("meta"), size, padding=1)


class SharpEdges(unittest.TestCase):
    """Issue 25: each failed before its fix (the expanded view was copied,
    17 GB in the report; batch 0 raised IgemmError; the arch's newline
    reached the message; igemm_free of a foreign pointer aborted)."""

    def test_expanded_tensor_refused_before_any_copy(self):
        # one element expanded to 2^34 (64 GiB as fp32) for a problem the
        # library refuses (one dx image over 2 GiB): refused at once, without
        # the copy to NCHW that would take the memory
        dy = torch.ones(1, 1, 1, 1).expand(1, 64, 16384, 16384)
        w = torch.ones(64, 3, 3, 3)
        with self.assertRaises(igemm.IgemmError) as cm:
            igemm.conv_bwd_data(dy, w, (1, 3, 16384, 16384), padding=1)
        self.assertIn("one image of dx is", str(cm.exception))
        self.assertFalse(igemm.applicable(dy, w, (1, 3, 16384, 16384), padding=1))
        # an expanded dy the library accepts (the gradient of .sum()) runs
        dy = torch.ones(1, 1, 1, 1).expand(2, 4, 5, 5)
        w = torch.rand(4, 3, 3, 3)
        dx = igemm.conv_bwd_data(dy, w, (2, 3, 5, 5), padding=1)
        want = torch.nn.grad.conv2d_input((2, 3, 5, 5), w, dy.contiguous(), padding=1)
        self.assertTrue(torch.allclose(dx, want, atol=1e-5))
        a = np.broadcast_to(np.ones((1, 4, 5, 5), np.float32), (2, 4, 5, 5))
        self.assertEqual(igemm.conv_bwd_data(a, np.ones((4, 3, 3, 3), np.float32), (2, 3, 5, 5), padding=1).shape,
                         (2, 3, 5, 5))

    def test_batch_zero_like_torch(self):
        dy, w = torch.rand(0, 4, 5, 5), torch.rand(4, 3, 3, 3)
        dx, info = igemm.conv_bwd_data(dy, w, (0, 3, 5, 5), padding=1, return_info=True)
        self.assertEqual(tuple(dx.shape), (0, 3, 5, 5))
        self.assertEqual(dx.dtype, torch.float32)
        self.assertEqual(info.launches, 0)
        # the other arguments are still checked
        with self.assertRaises(ValueError):
            igemm.conv_bwd_data(dy, w, (0, 3, 6, 6), padding=1)
        # the module works where nn.Conv2d does
        ref = torch.nn.Conv2d(3, 4, 3, padding=1)
        conv = itorch.Conv2d(3, 4, 3, padding=1)
        for m in (ref, conv):
            x = torch.rand(0, 3, 5, 5, requires_grad=True)
            m(x).sum().backward()
            self.assertEqual(tuple(x.grad.shape), (0, 3, 5, 5))

    def test_arch_with_a_newline_one_line(self):
        dy, w, size = problem()
        with self.assertRaises(igemm.IgemmError) as cm:
            igemm.conv_bwd_data(dy, w, size, padding=1, arch="gfx\n906")
        self.assertNotIn("\n", str(cm.exception))
        self.assertIn("gfx\\n906", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
