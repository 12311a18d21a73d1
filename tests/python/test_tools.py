"""The benchmark scripts' reading of `igemm --json` (tools/json_field.sh,
sourced by bench_mfma.sh, check_networks.sh and the MIOpen comparisons):
a run's modeled time and limit are the run's, not its last launch's, on a
plan of several launches (a split along GEMM K: its GEMM, then its
reduction), whose `modeled_launches` records repeat those keys."""
import json
import os
import subprocess
import unittest

from reference import ROOT

B = os.environ.get("IGEMM_TEST_B", "build")
SPLIT = ["convfp16", "-n", "1", "-c", "64", "-H", "7", "-W", "7", "-k", "256", "-y", "1", "-x", "1", "-F", "2",
         "--in_layout", "NHWC", "--out_layout", "NHWC", "--fil_layout", "NHWC", "--arch", "gfx942", "-V", "0",
         "--solution", "igemm_bwd_v4r1_mfma_fp16_nhwc_64x64x32_t256_wt32x32x8_ks4", "--json"]


def json_field(js, key):
    return subprocess.run(["sh", "-c", '. tools/json_field.sh; json_field "$1" "$2"', "sh", js, key], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout.strip()


class JsonField(unittest.TestCase):
    def test_multi_launch_run(self):
        js = subprocess.run([os.path.join(B, "bin", "igemm")] + SPLIT, cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout.strip()
        run = json.loads(js)
        launches = run["modeled_launches"]
        self.assertEqual(len(launches), 2, "the split plan's GEMM and reduction")
        self.assertNotAlmostEqual(launches[-1]["modeled_us"], run["modeled_us"], places=3)
        self.assertAlmostEqual(float(json_field(js, "modeled_us")), run["modeled_us"], places=3)
        self.assertEqual(json_field(js, "limit"), run["limit"])
        self.assertEqual(json_field(js, "solution"), run["solution"])
        self.assertEqual(json_field(js, "launches"), str(run["launches"]))


if __name__ == "__main__":
    unittest.main()
