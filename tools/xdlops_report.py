#!/usr/bin/env python3
"""make compare-miopen-xdlops-report: docs/MIOPEN_XDLOPS.md from the tables of
`make compare-miopen-xdlops-all` (tools/compare_miopen_xdlops.sh).

usage: xdlops_report.py TITLE_NOTE TABLE.md...  (or TABLE.md.rows: a run cut short)

Each table's first line names its batch, list, target, type, layout and
variant (gfx90a fp16: MIOpen's alternate implementation on or off, our
flags); the second its geomean and worst ratio. Writes to stdout a summary
(one row per table: layers, geomean, worst, the layers over 1.05, issue 22's
goals: <= 0.95 geomean and <= 1.05 every layer) and then every table under
its own heading, ordered by shape list, target, type, variant and batch
(tables of several lists: a list column and the list in each heading).
Every time in them is modeled (docs/TIMING.md)."""
import math
import os
import re
import sys

HEAD = re.compile(r"^Batch (\d+), (\S+), (gfx\w+) (\w+) (NCHW|NHWC)(.*), modeled by")
GEO = re.compile(r"geomean ([0-9.]+|-), worst ([0-9.]+)")
TARGETS = {"gfx908": 0, "gfx90a": 1, "gfx942": 2}
TYPES = {"fp32": 0, "fp16": 1, "bf16": 2}


NAME = re.compile(r"miopen-xdlops-(\w+)-(gfx\w+)-(\w+)-(nchw|nhwc)-(\d+)(-\w+)?\.md\.rows$")


def row_ratios(lines):
    """(ours / MIOpen, layer) of every table row that has a ratio"""
    out = []
    for r in lines:
        if r.startswith("| `"):
            try:
                out.append((float(r.split("|")[-2]), r.split("`")[1]))
            except ValueError:
                pass
    return out


def partial(path):
    """The header a run cut short did not write: from the rows file's name
    (compare_miopen_xdlops.sh's OUT naming, OUT.rows) and its rows."""
    m = NAME.search(path)
    if not m:
        sys.exit(f"xdlops_report: {path}: a .rows file must be named miopen-xdlops-LIST-ARCH-TYPE-LAYOUT-BATCH.md.rows")
    shapes, arch, dtype, layout, batch, _ = m.groups()
    rows = open(path).read()
    ratios = row_ratios(rows.splitlines())
    geo = f"{math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios)):.3f}" if ratios else "-"
    worst = max(ratios) if ratios else (0, "-")
    return (f"Batch {batch}, tests/shapes/{shapes}.txt, {arch} {dtype} {layout.upper()}, partial, modeled by the timing "
            "model on the target's reference product (docs/TIMING.md):\n"
            f"{len(ratios)} layers reached before the run was cut short; ours / MIOpen geomean {geo}, worst {worst[0]:.3f}\n"
            f"(`{worst[1]}`).\n\n" + rows)


def read(path):
    text = partial(path) if path.endswith(".rows") else open(path).read()
    lines = text.splitlines()
    m = HEAD.match(lines[0]) if lines else None
    if not m:
        sys.exit(f"xdlops_report: {path}: the first line is not a compare-miopen-xdlops table's header")
    batch, shapes, arch, dtype, layout, variant = m.groups()
    variant = variant.lstrip(", ")
    cut = variant.startswith("partial")
    variant = variant[len("partial"):].lstrip(", ") if cut else variant
    if arch == "gfx90a" and dtype == "fp16" and "alternate" not in variant:
        variant = ("MIOpen's fp16 alternate implementation on" + (", " + variant if variant else "")).strip(", ")
    g = GEO.search(text)
    ratios = [x for x, _ in row_ratios(lines)]
    return {"path": path, "batch": int(batch), "shapes": shapes, "arch": arch, "dtype": dtype, "layout": layout,
            "variant": variant, "geo": g.group(1) if g else "-", "worst": g.group(2) if g else "-",
            "n": len(ratios), "over": sum(1 for r in ratios if r > 1.05), "text": text, "cut": cut}


def name(t):
    """the table's shape list: tests/shapes/resnext101.txt -> resnext101"""
    return os.path.splitext(os.path.basename(t["shapes"]))[0]


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: xdlops_report.py TITLE_NOTE TABLE.md...  (or TABLE.md.rows: a run cut short)")
    tabs = sorted((read(p) for p in sys.argv[2:]),
                  key=lambda t: (t["shapes"], TARGETS.get(t["arch"], 9), TYPES.get(t["dtype"], 9), t["variant"],
                                 t["batch"]))
    # several shape lists: a list column and the list in each heading
    lists = len({t["shapes"] for t in tabs}) > 1
    print("# Our MFMA kernels against MIOpen's xdlops kernels, every table (modeled)\n")
    print(sys.argv[1] + "\n")
    print("Issue 22's goals (and issue 23's for fp32) per target, type and layout at batch 8 and 32: ours / "
          "MIOpen <= 0.95 in geomean "
          "and <= 1.05 on every layer MIOpen's rule admits. **All times modeled** by the timing model "
          "(docs/TIMING.md); no AMD GPU ran anything. How the tables are made, what the columns mean and "
          "what they say: [MIOPEN.md](MIOPEN.md#mfma-targets-against-miopens-xdlops-backward-data-kernels-modeled).\n")
    print("| " + ("list | " if lists else "") + "target | type | layout | variant | batch | layers | geomean | worst "
          "| layers > 1.05 | goals |")
    print("|" + ("---|" if lists else "") + "---|---|---|---|---:|---:|---:|---:|---:|---|")
    for t in tabs:
        met = t["geo"] != "-" and float(t["geo"]) <= 0.95 and t["over"] == 0
        geo_ok = t["geo"] != "-" and float(t["geo"]) <= 0.95
        goal = "both met" if met else ("geomean met" if geo_ok else "not met")
        n = f"{t['n']} (run cut short)" if t["cut"] else f"{t['n']}"
        print(("| " + name(t) + " " if lists else "") +
              f"| {t['arch']} | {t['dtype']} | {t['layout']} | {t['variant'] or '-'} | {t['batch']} | {n} | "
              f"{t['geo']} | {t['worst']} | {t['over']} | {goal + (' (so far)' if t['cut'] else '')} |")
    for t in tabs:
        v = f", {t['variant']}" if t["variant"] else ""
        print(f"\n## {name(t) + ', ' if lists else ''}{t['arch']} {t['dtype']} {t['layout']}{v}, batch {t['batch']}\n")
        print(t["text"].rstrip())


main()
