"""igemm.conv_bwd_data against torch.nn.grad.conv2d_input (float64), in the
verify rule, on the edge shapes (tests/shapes/edge.txt, batch <= 2) on every
target, for torch tensors and numpy arrays; every configuration once."""
import os
import re
import unittest

import numpy as np
import torch

import igemm
from reference import ROOT, conv_args, random_problem, reference, shapes, verify_failure

EDGE = shapes("edge.txt", max_batch=2)


class EdgeShapes(unittest.TestCase):
    def check(self, arch, use_numpy):
        gen = torch.Generator().manual_seed(15)
        for s in EDGE:
            dy, w, size = random_problem(s, gen)
            stride, padding, dilation, groups = conv_args(s)
            ref, abs_sum = reference(dy, w, size, stride, padding, dilation, groups)
            if use_numpy:
                dy, w = dy.numpy(), w.numpy()
            dx, info = igemm.conv_bwd_data(dy, w, size, stride, padding, dilation, groups, arch=arch,
                                           backend="emu", return_info=True)
            with self.subTest(shape=s["comment"]):
                self.assertIsInstance(dx, np.ndarray if use_numpy else torch.Tensor)
                self.assertEqual(dx.dtype, np.float32 if use_numpy else torch.float32)
                why = verify_failure(dx, ref, abs_sum)
                self.assertIsNone(why, f"{arch} {s['comment']}: {why} ({info.solution})")
                self.assertEqual(info.arch, arch)
                self.assertEqual(info.backend, "emu")
                self.assertGreaterEqual(info.launches, 1)
                self.assertGreater(info.modeled_cycles, 0)
                self.assertIsNone(info.time_ms)
                # the timing model's time and memory view (extrapolated from the
                # sampled workgroups, so no exact byte count here: test_timing's
                # test_cli_memory_view has one): some stores, the counts ordered
                self.assertGreater(info.modeled_us, 0)
                m = info.memory
                self.assertGreater(m["useful_stored"], 0)
                self.assertGreaterEqual(m["line_stored"], m["useful_stored"])
                self.assertLessEqual(m["l1_hits"], m["l1_lookups"])
                self.assertLessEqual(m["l2_hits"], m["l2_reads"])
                self.assertGreaterEqual(m["lds_cycles"], m["lds_ideal"])
                # each launch on its own: the plan's kernels, times adding up
                lt = info.launch_times
                self.assertEqual(len(lt), min(info.launches, 8))
                self.assertEqual({k for k, _, _ in lt}, set(info.kernels))
                self.assertAlmostEqual(sum(us for _, us, _ in lt), info.modeled_us, delta=1e-6 * info.modeled_us)
                self.assertTrue(all(us > 0 and lim for _, us, lim in lt))

    def test_the_library_has_every_target(self):
        """The tests below run per igemm.targets: it must be the Makefile's list of
        targets whose code objects the build makes (arch/targets.def also has
        emulate-only rows, gfx940/gfx941, which have none)."""
        with open(os.path.join(ROOT, "Makefile")) as f:
            listed = re.search(r"^TARGETS\s*:=\s*(.*)$", f.read(), re.M).group(1).split()
        self.assertEqual(len(listed), 4)
        self.assertEqual(igemm.targets, tuple(listed))


# one test per target of the library, for torch tensors and numpy arrays
for _arch in igemm.targets:
    for _kind, _numpy in (("torch", False), ("numpy", True)):
        setattr(EdgeShapes, f"test_{_kind}_{_arch}", lambda self, a=_arch, n=_numpy: self.check(a, n))


class Solutions(unittest.TestCase):
    def test_every_solution_runs_and_verifies(self):
        """Each configuration by name on a shape with stride, dilation,
        padding and groups, on gfx90a; RunInfo names it."""
        s = dict(n=2, c=6, h=9, w=8, k=4, y=3, x=2, pad_h=1, pad_w=0, stride_h=2, stride_w=1, dil_h=1, dil_w=2,
                 groups=2)
        dy, w, size = random_problem(s, torch.Generator().manual_seed(3))
        args = conv_args(s)
        ref, abs_sum = reference(dy, w, size, *args)
        names = igemm.solutions()
        self.assertIn("naive", names)
        self.assertEqual(len(names), len(set(names)))
        types = {"_fp16_": torch.float16, "_bf16_": torch.bfloat16}
        for name in names:
            with self.subTest(solution=name):
                # a configuration takes its own type (the 16-bit rule then applies: the
                # reference of the rounded data) and layout (NHWC: channels-last data)
                t = next((v for k, v in types.items() if k in name + "_"), torch.float32)  # naive_fp16 too
                if "_fp16alt_" in name:  # fp16 tensors staged as bf16
                    t = torch.float16
                d, ww, r, a = dy, w, ref, abs_sum
                if t != torch.float32:
                    d, ww = dy.to(t), w.to(t)
                    r, a = reference(d, ww, size, *args)
                if "_nhwc_" in name:
                    d = d.contiguous(memory_format=torch.channels_last)
                ok = igemm.applicable(d, ww, size, *args, arch="gfx90a", solution=name)
                # gfx90a's fp16 _dot2 kernels (v_dot2_f32_f16) flush subnormals: refused in the
                # accurate fp16 mode, the only one this API asks for (its fp16 MFMA kernels
                # multiply the matrix steps that hold a subnormal on the f32 MFMAs: they run)
                quad = "_dot2" in name
                if "_fp16alt_" in name:  # round fp16 to bf16: refused unless fp16_mode is alt
                    dd = d.to(t)
                    if "_nhwc_" in name:
                        dd = dd.contiguous(memory_format=torch.channels_last)
                    ok = igemm.applicable(dd, ww.to(t), size, *args, arch="gfx90a", solution=name)
                    self.assertFalse(ok)
                    self.assertIn("--fp16_mode alt", ok.reason)
                    continue
                if t == torch.float16 and quad:
                    self.assertFalse(ok)
                    self.assertIn("flush subnormals", ok.reason)
                    continue
                # a split along GEMM K (_ks2/_ks4/_ks8) needs two K blocks per tap; this
                # shape's K/G = 2 is less than one block of any tile: refused, with why
                if re.search(r"_ks\d+$", name):
                    self.assertFalse(ok)
                    self.assertIn("nothing to split", ok.reason)
                    continue
                # a zero fill first (_zf) takes over the zeros of phases no tap reaches; this
                # shape's phases all have one (stride 2 over a 3-tap filter): refused, with why
                if name.endswith("_zf"):
                    self.assertFalse(ok)
                    self.assertIn("no empty phases", ok.reason)
                    continue
                self.assertTrue(ok)
                dx, info = igemm.conv_bwd_data(d, ww, size, *args, arch="gfx90a", solution=name, return_info=True)
                self.assertEqual(dx.dtype, t)
                self.assertIsNone(verify_failure(dx, r, a))
                self.assertEqual(info.solution, name)
                self.assertEqual(info.source, "user")

    def test_selection_is_reported(self):
        s = dict(n=1, c=8, h=7, w=7, k=8, y=3, x=3, pad_h=1, pad_w=1, stride_h=1, stride_w=1, dil_h=1, dil_w=1,
                 groups=1)
        dy, w, size = random_problem(s, torch.Generator().manual_seed(4))
        dx, info = igemm.conv_bwd_data(dy, w, size[2:], 1, 1, return_info=True)
        self.assertIn(info.solution, igemm.solutions())
        self.assertEqual(info.source, "heuristic")
        self.assertEqual(info.arch, "gfx906")  # the library's default target
        self.assertTrue(info.kernels and all(k.startswith("igemm_") for k in info.kernels))

    def test_noncontiguous_inputs_are_copied(self):
        """A dy slice with gaps (not NCHW nor NHWC in memory) gives the same dx."""
        s = dict(n=2, c=4, h=6, w=6, k=6, y=3, x=3, pad_h=1, pad_w=1, stride_h=1, stride_w=1, dil_h=1, dil_w=1,
                 groups=1)
        dy, w, size = random_problem(s, torch.Generator().manual_seed(5))
        wide = torch.zeros(2, 12, 6, 6)
        wide[:, ::2] = dy
        view = wide[:, ::2]
        self.assertFalse(view.is_contiguous())
        ref, abs_sum = reference(dy, w, size, 1, 1, 1, 1)
        self.assertIsNone(verify_failure(igemm.conv_bwd_data(view, w, size, 1, 1), ref, abs_sum))
        self.assertIsNone(verify_failure(igemm.conv_bwd_data(view.numpy(), w.numpy(), size, 1, 1), ref, abs_sum))


class CodeObjects(unittest.TestCase):
    def test_no_load_per_shape(self):
        """New shapes need no new code object: after one call per target
        (the load), every edge shape runs on each target with no further
        load, and each counts as a new problem."""
        gen = torch.Generator().manual_seed(8)
        for arch in igemm.targets:
            igemm.conv_bwd_data(torch.ones(1, 1, 1, 1), torch.ones(1, 1, 1, 1), (1, 1), arch=arch)
        before = igemm.stats()
        for s in EDGE:
            dy, w, size = random_problem(dict(s, n=1), gen)  # batch 1: not yet run by EdgeShapes
            for arch in igemm.targets:
                igemm.conv_bwd_data(dy, w, size, *conv_args(s), arch=arch)
        after = igemm.stats()
        self.assertEqual(after["code_object_loads"], before["code_object_loads"])
        self.assertEqual(after["runs"] - before["runs"], len(EDGE) * len(igemm.targets))
        self.assertGreater(after["distinct_problems"], before["distinct_problems"])


if __name__ == "__main__":
    unittest.main()
