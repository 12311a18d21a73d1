"""The benchmark scripts' reading of `igemm --json` (tools/json_field.sh,
sourced by bench_mfma.sh, check_networks.sh and the MIOpen comparisons):
a run's modeled time and limit are the run's, not its last launch's, on a
plan of several launches (a split along GEMM K: its GEMM, then its
reduction), whose `modeled_launches` records repeat those keys; and
bench_mfma.sh's CACHE, which keeps its runs so that they can be made in
parts (a document written from a kept run, not from a new one); and
bench_heuristic.py's KEPT_ONLY, which scores only the layers whose find
ranking is kept."""
import glob
import json
import os
import subprocess
import sys
import tempfile
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


class BenchCache(unittest.TestCase):
    def test_kept_runs_are_read_not_rerun(self):
        with tempfile.TemporaryDirectory() as tmp:
            lst = os.path.join(tmp, "one.txt")
            with open(lst, "w") as f:
                f.write("conv -n 1 -c 64 -H 7 -W 7 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -g 1\n")
            cache, out = os.path.join(tmp, "cache"), os.path.join(tmp, "out.md")
            env = dict(os.environ, B=B, CACHE=cache, LIST=lst, TARGETS="gfx942", DTYPES="fp32", LAYOUTS="NHWC",
                       BATCH="2", JOBS="2", EXTRA="-V 0", OUT=out, COMMIT="test")

            def bench():
                subprocess.run(["sh", "tools/bench_mfma.sh"], cwd=ROOT, env=env, check=True, capture_output=True)
                with open(out) as f:
                    return f.read()

            first = bench()
            runs = sorted(glob.glob(os.path.join(cache, "*")))
            self.assertEqual(len(runs), 2, "the MFMA and the FMA run of the one layer, kept")
            # a kept run's time changed by hand: the document must quote it
            mfma = [r for r in runs if "_mfma_" in open(r).read()]
            self.assertEqual(len(mfma), 1)
            run = json.loads(open(mfma[0]).read())
            self.assertIn("| %.1f |" % run["modeled_us"], first)
            run["modeled_us"] = 12345.6
            with open(mfma[0], "w") as f:
                f.write(json.dumps(run) + "\n")
            self.assertIn("| 12345.6 |", bench())


class HeuristicKeptOnly(unittest.TestCase):
    def test_scores_the_kept_rankings_only(self):
        layers = ["-n 1 -c 64 -H 7 -W 7 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2",
                  "-n 1 -c 32 -H 7 -W 7 -k 32 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2"]
        with tempfile.TemporaryDirectory() as tmp:
            lst, finds = os.path.join(tmp, "two.txt"), os.path.join(tmp, "finds")
            os.makedirs(finds)
            with open(lst, "w") as f:
                f.write("".join("conv %s\n" % l for l in layers))
            args = layers[0].split()
            full = args + ["-I", "NHWC", "-O", "NHWC", "-f", "NHWC"]
            pick = json.loads(subprocess.run([os.path.join(B, "bin", "igemm"), "plan", "conv"] + full +
                                             ["--arch", "gfx942", "--json"], cwd=ROOT, check=True,
                                             capture_output=True, text=True).stdout)["solution"]
            # the first layer's ranking, made up: the pick 1.25x another configuration
            ranking = [{"solution": pick, "status": "IGEMM_OK", "cost": 125},
                       {"solution": "other", "status": "IGEMM_OK", "cost": 100}]
            name = "_".join(["gfx942", "fp32", "NHWC"] + [a.lstrip("-") for a in args]) + ".json"
            with open(os.path.join(finds, name), "w") as f:
                json.dump(ranking, f)
            env = dict(os.environ, B=B, FINDS=finds, KEPT_ONLY="1", LISTS=lst, SAMPLE="1", BATCH="1",
                       TARGETS="gfx942", DTYPES="fp32", LAYOUTS="NHWC", JOBS="1")
            out = subprocess.run([sys.executable, "tools/bench_heuristic.py"], cwd=ROOT, env=env, check=True,
                                 capture_output=True, text=True).stdout
            self.assertIn("| gfx942 | fp32 | NHWC | two | 1 of 2 | 0 | 1.250 | 1.250", out)
            self.assertEqual(os.listdir(finds), [name], "the second layer's ranking was not made")


if __name__ == "__main__":
    unittest.main()
