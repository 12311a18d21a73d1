"""Where the package finds libigemm: IGEMM_LIBRARY, next to the package,
the source tree's build/lib, the install prefix (a real `make install`),
and a clear ImportError when it is nowhere."""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from reference import ROOT

BUILD = os.path.join(ROOT, os.environ.get("IGEMM_TEST_B", "build"))
LIB = os.path.join(BUILD, "lib", "libigemm.so")
PROBE = ("import igemm, numpy as np; "
         "dx = igemm.conv_bwd_data(np.ones((1, 2, 3, 3), np.float32), np.ones((2, 1, 1, 1), np.float32), (3, 3)); "
         "assert dx.shape == (1, 1, 3, 3) and (dx == 2).all(), dx; print(igemm.library_path)")


def probe(pythonpath, library=None, cwd="/"):
    """Run PROBE in a fresh interpreter: (exit status, output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("IGEMM_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = pythonpath
    if library is not None:
        env["IGEMM_LIBRARY"] = library
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=cwd, capture_output=True, text=True)
    return r.returncode, (r.stdout + r.stderr).strip()


class Discovery(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="igemm-py-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy_package(self, site):
        os.makedirs(site)
        shutil.copytree(os.path.join(ROOT, "python", "igemm"), os.path.join(site, "igemm"))
        return site

    def test_igemm_library(self):
        rc, out = probe(os.path.join(ROOT, "python"), library=LIB)
        self.assertEqual((rc, out), (0, LIB))

    def test_missing_library_is_an_import_error(self):
        missing = os.path.join(self.tmp, "nope", "libigemm.so")
        rc, out = probe(os.path.join(ROOT, "python"), library=missing)
        self.assertNotEqual(rc, 0)
        self.assertIn("ImportError: igemm: cannot load libigemm: tried " + missing + " (missing)", out)
        self.assertIn("IGEMM_LIBRARY", out)
        try:
            ctypes.CDLL("libigemm.so.0")
            return  # installed system-wide: the loader finds it
        except OSError:
            pass
        site = self.copy_package(os.path.join(self.tmp, "site"))  # nowhere to be found
        rc, out = probe(site)
        self.assertNotEqual(rc, 0)
        self.assertIn("libigemm.so.0: cannot open shared object file", out)

    def test_next_to_the_package(self):
        site = self.copy_package(os.path.join(self.tmp, "site"))
        shutil.copy(LIB, os.path.join(site, "igemm", "libigemm.so"))
        self.assertEqual(probe(site), (0, os.path.join(site, "igemm", "libigemm.so")))

    @unittest.skipUnless(os.environ.get("IGEMM_TEST_B", "build") == "build", "the source tree's build/ is not this build")
    def test_source_tree(self):
        self.assertEqual(probe(os.path.join(ROOT, "python")), (0, os.path.join(ROOT, "build", "lib", "libigemm.so")))

    def test_make_install(self):
        prefix = os.path.join(self.tmp, "prefix")
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        cmd = f"make -s B={os.environ.get('IGEMM_TEST_B', 'build')} PREFIX={prefix} PYTHON={sys.executable} " \
              f"{os.environ.get('IGEMM_TEST_MAKE', '')} install"
        r = subprocess.run(cmd, shell=True, cwd=ROOT, env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        site = os.path.join(prefix, "lib", "python3.%d" % sys.version_info[1], "dist-packages")
        self.assertEqual(probe(site), (0, os.path.join(prefix, "lib", "libigemm.so.0")))
        for f in os.listdir(os.path.join(ROOT, "python", "igemm")):
            if f.endswith(".py"):
                self.assertTrue(os.path.isfile(os.path.join(site, "igemm", f)), f)
        r = subprocess.run(cmd.replace(" install", " uninstall"), shell=True, cwd=ROOT, env=env, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertFalse(os.path.exists(os.path.join(site, "igemm")))


if __name__ == "__main__":
    unittest.main()
