"""`igemm plan conv ... --json` is enough to launch the kernels: this test
reads the plan's JSON alone, loads the code object it names with the HIP
module API, stores the tensors' device addresses at the pointer offsets of
each argument buffer and launches every kernel in order, through ctypes on
the HIP test double (libigemm_hipemu.so) — as a non-C embedder would on
libamdhip64. dx is checked against torch's float64 reference."""
import ctypes
import json
import os
import subprocess
import unittest

import torch

import reference
from reference import ROOT

BUILD = os.path.join(ROOT, os.environ.get("IGEMM_TEST_B", "build"))
IGEMM = os.path.join(BUILD, "bin", "igemm")
DOUBLE = os.path.join(BUILD, "lib", "libigemm_hipemu.so")
CODEOBJ_DIR = os.path.join(BUILD, "share", "igemm")
ARCHS = ["gfx906", "gfx908", "gfx90a", "gfx942"]
FLAG = {v: k for k, v in reference.FLAGS.items()}

# hip_runtime_api.h: HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE, _END
BUFFER_POINTER, BUFFER_SIZE, END = 1, 2, 3
H2D, D2H = 1, 2


class Hip:
    """The few HIP module-API calls a launcher needs."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        for name in ("hipSetDevice", "hipMalloc", "hipFree", "hipMemcpy", "hipModuleLoadData", "hipModuleUnload",
                     "hipModuleGetFunction", "hipModuleLaunchKernel", "hipDeviceSynchronize"):
            getattr(self.lib, name).restype = ctypes.c_int
        self.lib.hipMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        # pointers are 64-bit: without argtypes ctypes passes a Python int as a C int
        self.lib.hipFree.argtypes = [ctypes.c_void_p]
        self.lib.hipModuleUnload.argtypes = [ctypes.c_void_p]
        self.lib.hipModuleGetFunction.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
        self.lib.hipModuleLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]

    def check(self, e, what):
        if e:
            raise AssertionError(f"{what} returned HIP error {e}")

    def malloc(self, n):
        p = ctypes.c_void_p()
        self.check(self.lib.hipMalloc(ctypes.byref(p), ctypes.c_size_t(n)), "hipMalloc")
        return p.value


def plan(shape, arch):
    args = [IGEMM, "plan", "conv"] + [a for f, v in shape.items() if f in FLAG for a in (FLAG[f], str(v))]
    r = subprocess.run(args + ["-F", "2", "--arch", arch, "--json"], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(f"{' '.join(args)}: {r.stderr}")
    return json.loads(r.stdout)


def launch_from_plan(hip, p, dy, w):
    """dx computed by the plan's launches on the double (host tensors in and out)."""
    with open(os.path.join(CODEOBJ_DIR, p["code_object"]), "rb") as f:
        image = f.read()
    module = ctypes.c_void_p()
    hip.check(hip.lib.hipModuleLoadData(ctypes.byref(module), image), "hipModuleLoadData")
    sizes = p["tensor_bytes"]
    base = {t: hip.malloc(sizes[t]) for t in ("dx", "dy", "w")}
    if sizes.get("ws"):  # a split along GEMM K: the fp32 partial sums
        base["ws"] = hip.malloc(sizes["ws"])
    for t, host in (("dy", dy), ("w", w)):
        hip.check(hip.lib.hipMemcpy(base[t], host.data_ptr(), sizes[t], H2D), "hipMemcpy")
    nan = torch.full((sizes["dx"] // 4,), float("nan"))
    hip.check(hip.lib.hipMemcpy(base["dx"], nan.data_ptr(), sizes["dx"], H2D), "hipMemcpy")
    for l in p["launches"]:
        fn = ctypes.c_void_p()
        hip.check(hip.lib.hipModuleGetFunction(ctypes.byref(fn), module, l["kernel"].encode()), "hipModuleGetFunction")
        args = bytearray.fromhex(l["args"])
        assert len(args) == l["args_size"]
        for t, ptr in l["pointers"].items():
            args[ptr["offset"]:ptr["offset"] + 8] = (base[t] + ptr["add"]).to_bytes(8, "little")
        buf = (ctypes.c_ubyte * len(args)).from_buffer(args)
        size = ctypes.c_size_t(len(args))
        extra = (ctypes.c_void_p * 5)(BUFFER_POINTER, ctypes.addressof(buf), BUFFER_SIZE, ctypes.addressof(size), END)
        hip.check(hip.lib.hipModuleLaunchKernel(fn, *l["grid"], *l["block"], 0, None, None, extra),
                  "hipModuleLaunchKernel " + l["kernel"])
    dx = torch.empty(sizes["dx"] // 4)
    hip.check(hip.lib.hipMemcpy(dx.data_ptr(), base["dx"], sizes["dx"], D2H), "hipMemcpy")  # null stream: waits
    for b in base.values():
        hip.check(hip.lib.hipFree(b), "hipFree")
    hip.check(hip.lib.hipModuleUnload(module), "hipModuleUnload")
    return dx


class PlanLaunch(unittest.TestCase):
    def test_edge_shapes_from_json(self):
        hip = None
        gen = torch.Generator().manual_seed(17)
        for arch in ARCHS:
            os.environ["IGEMM_HIPEMU_ARCH"] = arch  # the double reads it at each call
            hip = hip or Hip(DOUBLE)
            hip.check(hip.lib.hipSetDevice(0), "hipSetDevice")
            launches = 0
            for s in reference.shapes("edge.txt"):
                with self.subTest(arch=arch, shape=s["comment"]):
                    p = plan(s, arch)
                    self.assertEqual(p["arch"], arch)
                    launches += len(p["launches"])
                    dy, w, size = reference.random_problem(s, gen)
                    dx = launch_from_plan(hip, p, dy.contiguous(), w.contiguous()).reshape(size)
                    ref, abs_sum = reference.reference(dy, w, size, *reference.conv_args(s))
                    self.assertIsNone(reference.verify_failure(dx, ref, abs_sum))
            self.assertGreater(launches, len(reference.shapes("edge.txt")))  # multi-launch plans among them

    def test_bad_plan_requests(self):
        r = subprocess.run([IGEMM, "plan", "conv", "-n", "1", "-c", "2", "-F", "2"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--arch is required", r.stderr)
        r = subprocess.run([IGEMM, "plan", "conv", "-n", "1", "-c", "2", "-F", "2", "--arch", "gfx906", "--solution",
                            "nonesuch"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown solution 'nonesuch'", r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1)


if __name__ == "__main__":
    unittest.main()
