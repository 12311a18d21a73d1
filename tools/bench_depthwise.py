#!/usr/bin/env python3
"""make bench-depthwise: 16-bit depthwise layers in the timing model.

For each layer of LIST (default tests/shapes/depthwise.txt) whose input is
at most MAX_HW pixels a side (default 14), at batch BATCH (default 1), on
each target of TARGETS (default "gfx906 gfx942") and type of DTYPES
(default "fp16 bf16"): find mode (-s 1: every configuration timed; the
heuristic's pick is what a later run without find would take, printed by
`igemm ... --json` without -s) and the fp32 naive kernel on the same layer.
Prints a markdown table to stdout (progress on stderr): the pick, its
modeled time, the fp32 naive kernel's, the best v4r1 configuration's
modeled cycles over the pick's (the 16-bit path before the 16-bit naive
kernels existed), and the pick against find's best. Every figure is
modeled by the timing model (docs/TIMING.md), not measured."""
import os
import sys

from igemm_json import CMD, layers
from igemm_json import run as igemm_run

LIST = os.environ.get("LIST", "tests/shapes/depthwise.txt")
BATCH = int(os.environ.get("BATCH", "1"))
MAX_HW = int(os.environ.get("MAX_HW", "14"))
TARGETS = os.environ.get("TARGETS", "gfx906 gfx942").split()
DTYPES = os.environ.get("DTYPES", "fp16 bf16").split()


def run(cmd, args, arch, extra):
    return igemm_run(cmd, args, arch, extra, "bench-depthwise")


def main():
    print(f"| target | type | layer (batch {BATCH}) | heuristic's pick | modeled us | fp32 naive us | "
          "best v4r1 / pick (cycles) | pick / find's best |")
    print("|---|---|---|---|---|---|---|---|")
    for args, _ in layers(LIST, BATCH):
        if int(args[args.index("-H") + 1]) > MAX_HW:
            continue
        for arch in TARGETS:
            naive = run("conv", args, arch, ["--solution", "naive"])["modeled_us"]
            for dt in DTYPES:
                print(f"  {arch} {dt} {' '.join(args)}", file=sys.stderr, flush=True)
                pick = run(CMD[dt], args, arch, [])
                found = run(CMD[dt], args, arch, ["-s", "1"])["find"]
                cost = {f["solution"]: f["cost"] for f in found if f["status"] == "IGEMM_OK"}
                best = min(cost.values())
                v4r1 = min(c for s, c in cost.items() if not s.startswith("naive"))
                pc = cost[pick["solution"]]
                layer = " ".join(args[:-2] if args[-2:] == ["-F", "2"] else args)
                print(f"| {arch} | {dt} | `{layer}` | {pick['solution']} | {pick['modeled_us']:.2f} | {naive:.2f} | "
                      f"{v4r1 / pc:.2f}x | {pc / best:.3f} |", flush=True)


main()
