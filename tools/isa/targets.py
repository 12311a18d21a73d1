"""The targets the ISA tables are derived for, read from the project's one
list (arch/targets.def) and the target table (arch/target.c): every
TARGET row except the emulate-only ones that decode as another target
(`.isa_alias`), whose instructions are that target's by definition."""
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _blocks():
    """{ID: text of its `static const target t_ID = {...}` block}."""
    text = open(os.path.join(TOP, "arch", "target.c")).read()
    out = {}
    for block in re.split(r"\nstatic const target ", text)[1:]:
        m = re.search(r"IDENT\(\w+,\s*(\w+)\)", block)
        if m:
            out[m.group(1)] = block.split("\n};", 1)[0]
    return out


def isa_targets():
    """[(name, ID)] of the targets with their own ISA, in targets.def order."""
    blocks = _blocks()
    rows = []
    for line in open(os.path.join(TOP, "arch", "targets.def")):
        m = re.match(r"TARGET\((\w+),\s*(\w+),", line)
        if m and ".isa_alias" not in blocks.get(m.group(2), ""):
            rows.append((m.group(1), m.group(2)))
    return rows


def families():
    """{"CDNA1": "GFX908", ...}: the first word of each ISA target's .family."""
    blocks = _blocks()
    out = {}
    for _, ident in isa_targets():
        fam = re.search(r'\.family\s*=\s*"(\w+)', blocks.get(ident, ""))
        if fam:
            out[fam.group(1)] = ident
    return out
