"""Find mode and the perf-db from Python: igemm.find times every
configuration, the best goes into the perf-db file, and a later
conv_bwd_data with that file (a fresh handle: another perfdb key) runs it
with source "perfdb"; igemm.torch.Conv2d(igemm_find=True) does the same on
its first backward; IGEMM_USER_DB_PATH is the default file; fp16_mode and
time_ms; the library's knob named as a Python keyword."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

import igemm
import igemm.torch
from reference import ROOT, reference, verify_failure


class Find(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="igemm-find-")
        gen = np.random.default_rng(7)
        self.dy = gen.uniform(-1, 1, (1, 8, 5, 5)).astype(np.float32)
        self.w = gen.uniform(-1, 1, (8, 8, 3, 3)).astype(np.float32)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_round_trip(self):
        db = os.path.join(self.tmp, "igemm.udb")
        dx, results = igemm.find(self.dy, self.w, (1, 8, 7, 7), arch="gfx908", backend="emu", perfdb=db)
        ref, abs_sum = reference(self.dy, self.w, (1, 8, 7, 7), 1, 0, 1, 1)
        self.assertIsNone(verify_failure(dx, ref, abs_sum))
        self.assertGreater(len(results), 1)
        ok = [r for r in results if r.ok]
        self.assertEqual([r.cost for r in ok], sorted(r.cost for r in ok))  # fastest first
        self.assertTrue(all(r.unit == "cycles" for r in ok))
        best = ok[0].solution
        with open(db) as f:
            text = f.read()
        self.assertIn(best, text)
        self.assertIn("gfx908", text)
        # a later run with that perf-db: the best, chosen by the perf-db
        dx2, info = igemm.conv_bwd_data(self.dy, self.w, (1, 8, 7, 7), arch="gfx908", backend="emu", perfdb=db,
                                        return_info=True)
        self.assertEqual((info.solution, info.source), (best, "perfdb"))
        self.assertIsNone(verify_failure(dx2, ref, abs_sum))
        self.assertIsNone(info.time_ms)  # the emulator measures nothing
        # without it: the heuristic
        _, info = igemm.conv_bwd_data(self.dy, self.w, (1, 8, 7, 7), arch="gfx908", backend="emu",
                                      return_info=True)
        self.assertEqual(info.source, "heuristic")

    def test_module_find(self):
        db = os.path.join(self.tmp, "module.udb")
        m = igemm.torch.Conv2d(8, 8, 3, bias=False, igemm_arch="gfx906", igemm_backend="emu", igemm_perfdb=db,
                               igemm_find=True)
        x = torch.rand((1, 8, 7, 7), requires_grad=True)
        m(x).sum().backward()
        self.assertTrue(os.path.exists(db))
        with open(db) as f:
            self.assertIn("gfx906", f.read())
        ref = torch.nn.grad.conv2d_input(x.shape, m.weight.detach().double(), torch.ones((1, 8, 5, 5)).double())
        self.assertLess((x.grad.double() - ref).abs().max().item(), 1e-4)

    def test_user_db_path_and_knob(self):
        """A fresh interpreter with IGEMM_USER_DB_PATH: find writes DIR/igemm.udb;
        a HIP handle with no GPU names backend='emu', not --backend emu."""
        code = ("import igemm, numpy as np\n"
                "dy = np.ones((1, 2, 3, 3), np.float32); w = np.ones((2, 2, 1, 1), np.float32)\n"
                "igemm.find(dy, w, (1, 2, 3, 3), backend='emu')\n"
                "try:\n"
                "    igemm.conv_bwd_data(dy, w, (1, 2, 3, 3), backend='hip')\n"
                "except igemm.IgemmError as e:\n"
                "    print(e)\n")
        env = dict(os.environ, IGEMM_USER_DB_PATH=self.tmp)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "igemm.udb")))
        if r.stdout.strip():  # no GPU here: the message for a Python caller
            self.assertIn("backend='emu'", r.stdout)
            self.assertNotIn("--backend", r.stdout)
            self.assertNotIn("igemm_options", r.stdout)

    def test_fp16_mode(self):
        dy, w = self.dy.astype(np.float16), self.w.astype(np.float16)
        for mode in ("accurate", "flush", "alt"):
            dx = igemm.conv_bwd_data(dy, w, (1, 8, 7, 7), arch="gfx90a", backend="emu", fp16_mode=mode)
            self.assertEqual(dx.dtype, np.float16)
        with self.assertRaises(ValueError):
            igemm.conv_bwd_data(dy, w, (1, 8, 7, 7), backend="emu", fp16_mode="fast")


if __name__ == "__main__":
    unittest.main()
