#!/usr/bin/env python3
"""make bench-heuristic: how often the heuristic's pick is find mode's best.

For every SAMPLE-th layer (default 3: the first, the fourth, ...) of each
list of LISTS (default ResNet-50, ResNeXt-101 and Inception-v3), at batch
BATCH (default 8), on each target of TARGETS, type of DTYPES and layout of
LAYOUTS: the heuristic's pick (`igemm plan ... --json`: the selection with
no perf-db, nothing run) and find mode's ranking (`-s 1`: every applicable
configuration timed by the timing model). FINDS=DIR keeps each layer's
find ranking in DIR (one JSON file per target, type, layout and layer)
and reads it from there when it is present: a ranking depends only on the
timing model and the kernels, so the heuristic can be re-scored against
it in seconds; empty DIR whenever the model or a kernel changes. With
KEPT_ONLY=1 only the layers whose ranking DIR keeps are scored (a run cut
short elsewhere; the rows say how many of the list's layers that is). Per (target, type,
layout) and list: the layers, how many picks are find's best, the geomean
and the worst of pick / best in modeled cycles; then every layer where the
pick is more than 5% off. JOBS runs that many layers at once (one emulator
thread each). Every figure is modeled (docs/TIMING.md), not measured.
Prints a Markdown report to stdout, progress to stderr."""
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from igemm_json import CMD, layers, run

LISTS = os.environ.get("LISTS", "tests/shapes/resnet50.txt tests/shapes/resnext101.txt "
                       "tests/shapes/inception3.txt").split()
BATCH = int(os.environ.get("BATCH", "8"))
SAMPLE = int(os.environ.get("SAMPLE", "3"))
TARGETS = os.environ.get("TARGETS", "gfx906 gfx908 gfx90a gfx942").split()
DTYPES = os.environ.get("DTYPES", "fp32 fp16 bf16").split()
LAYOUTS = os.environ.get("LAYOUTS", "NCHW NHWC").split()
JOBS = int(os.environ.get("JOBS", "1"))
FINDS = os.environ.get("FINDS")
KEPT_ONLY = os.environ.get("KEPT_ONLY") == "1"
WHO = "bench-heuristic"


def find(arch, dt, lay, args, full):
    """find mode's ranking of one layer: [{solution, status, cost}], from FINDS when kept there."""
    path = None
    if FINDS:
        path = os.path.join(FINDS, "_".join([arch, dt, lay] + [a.lstrip("-") for a in args]) + ".json")
        if os.path.exists(path):
            with open(path) as f:
                return json.load(f)
        if KEPT_ONLY:
            return None
    found = run(CMD[dt], full, arch, ["-V", "0", "-s", "1"], WHO)["find"]
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(found, f)
        os.replace(path + ".tmp", path)
    return found


def one(job):
    """(pick, pick's cycles, best, best's cycles) of one layer."""
    arch, dt, lay, args = job
    full = list(args) + ["-I", lay, "-O", lay, "-f", lay]
    found = find(arch, dt, lay, args, full)
    if found is None:
        return None
    pick = run("plan", [CMD[dt]] + full, arch, [], WHO)
    cost = {f["solution"]: f["cost"] for f in found if f["status"] == "IGEMM_OK"}
    best = min(cost, key=cost.get)
    if pick["solution"] not in cost:
        sys.exit(f"{WHO}: {' '.join(full)} on {arch}: find mode did not time the pick {pick['solution']}")
    print(f"  {arch} {dt} {lay} {' '.join(args)}: pick {pick['solution']} {cost[pick['solution']]}, "
          f"best {best} {cost[best]}: {cost[pick['solution']] / cost[best]:.3f}", file=sys.stderr, flush=True)
    return pick["solution"], cost[pick["solution"]], best, cost[best]


def short(args):
    return " ".join(args[:-2] if args[-2:] == ["-F", "2"] else args)


def main():
    os.environ.pop("IGEMM_USER_DB_PATH", None)  # the pick is the heuristic's, never a perf-db's
    if KEPT_ONLY and not FINDS:
        sys.exit(f"{WHO}: KEPT_ONLY=1 scores the rankings kept in FINDS=DIR: set FINDS")
    if FINDS:
        os.makedirs(FINDS, exist_ok=True)
    lists = {os.path.basename(p)[:-4]: layers(p, BATCH)[::SAMPLE] for p in LISTS}
    jobs = [(a, d, l, args) for a in TARGETS for d in DTYPES for l in LAYOUTS
            for name in lists for args, _ in lists[name]]
    jobs = [(a, d, l, tuple(args)) for a, d, l, args in jobs]
    print(f"{WHO}: {len(jobs)} layer runs, {JOBS} at a time", file=sys.stderr, flush=True)
    with ThreadPoolExecutor(JOBS) as pool:
        res = dict(zip(jobs, pool.map(one, jobs)))
    print(f"Batch {BATCH}, one layer in {SAMPLE} of each list (the first, then every {SAMPLE}th); pick / best in modeled cycles "
          "(find mode, `-s 1`, times every applicable configuration).\n")
    print("| target | type | layout | list | layers | pick = best | geomean pick / best | worst |")
    print("|---|---|---|---|---:|---:|---:|---|")
    off = []
    for a in TARGETS:
        for d in DTYPES:
            for l in LAYOUTS:
                for name in lists:
                    rs = [(args, res[(a, d, l, tuple(args))]) for args, _ in lists[name]]
                    rs = [(args, r) for args, r in rs if r is not None]
                    if not rs:
                        continue
                    ratios = [r[1] / r[3] for _, r in rs]
                    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
                    hit = sum(1 for _, r in rs if r[0] == r[2] or r[1] == r[3])
                    wi = max(range(len(rs)), key=lambda i: ratios[i])
                    n = f"{len(rs)} of {len(lists[name])}" if len(rs) < len(lists[name]) else f"{len(rs)}"
                    print(f"| {a} | {d} | {l} | {name} | {n} | {hit} | {geo:.3f} | {ratios[wi]:.3f} "
                          f"(`{short(rs[wi][0])}`) |")
                    off += [(a, d, l, args, r) for args, r in rs if r[1] > 1.05 * r[3]]
    print("\nLayers where the pick is more than 5% off find's best:\n")
    print("| target | type | layout | layer | pick | best | pick / best |")
    print("|---|---|---|---|---|---|---:|")
    for a, d, l, args, r in off:
        print(f"| {a} | {d} | {l} | `{short(args)}` | {r[0]} | {r[2]} | {r[1] / r[3]:.3f} |")


main()
