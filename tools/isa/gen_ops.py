#!/usr/bin/env python3
"""Derive the emulator's opcode table from the assembler.

Reads tools/isa/ops.list (one example instruction per line, by format),
assembles every example with llvm-mc for every target and writes
arch/ops.def: one row per (mnemonic, opcode) with the targets that encode it
that way, the operand widths of the example, the instruction class and the
flags the generator and the hazard rules need (op_class, op_flags).

    python3 tools/isa/gen_ops.py [LLVM_BIN] > arch/ops.def

arch/ops.def is committed; make test regenerates it (tools/isa/check.sh) and
fails when the committed file differs.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import isa_targets  # noqa: E402

TARGET_IDS = dict(isa_targets())
TARGETS = list(TARGET_IDS)
LLVM_BIN = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/llvm-19/bin"

# opcode field (lsb, width) of dword 0 per format
OPFIELD = {
    "SOP2": (23, 7), "SOPK": (23, 5), "SOP1": (8, 8), "SOPC": (16, 7), "SOPP": (16, 7),
    "SMEM": (18, 8), "VOP1": (9, 8), "VOP2": (25, 6), "VOPC": (17, 8), "VOP3": (16, 10),
    "VOP3P": (16, 7), "MAI": (16, 7), "DS": (17, 8), "MUBUF": (18, 7), "FLAT": (18, 7),
    "GLOBAL": (18, 7), "SCRATCH": (18, 7),
}
SRC_ONLY_SOP1 = {"s_setpc_b64"}
# DS read-modify-write operations (LDS atomics; "_rtn_" ones return the old value)
DS_ATOMIC = re.compile(r"ds_(add|sub|rsub|inc|dec|min|max|and|or|xor|mskor|wrxchg|cmpst)_")


def op_class(fmt, name):
    """The instruction class (arch/isa.h isa_class) of an encoding."""
    if fmt in ("SOP2", "SOPK", "SOP1", "SOPC"):
        return "IC_SALU"
    if fmt == "SOPP":
        return "IC_BRANCH" if name.startswith(("s_branch", "s_cbranch")) else "IC_PROGRAM"
    if fmt == "SMEM":
        return "IC_SMEM"
    if fmt == "MAI" and name.startswith("v_mfma"):
        return "IC_MFMA"
    if fmt == "DS":
        return "IC_DS"
    if fmt in ("MUBUF", "FLAT", "GLOBAL", "SCRATCH"):
        return "IC_VMEM"
    return "IC_VALU"


def op_flags(fmt, name, ops):
    """The ISAF_* flags (arch/isa.h) of an encoding: what the emitter and the
    hazard rules would otherwise read off the mnemonic."""
    f = []
    if name in ("v_readfirstlane_b32", "v_readlane_b32"):
        f.append("ISAF_SDST")
    if name in ("v_readlane_b32", "v_writelane_b32"):
        f.append("ISAF_LANESEL")
    if name.startswith("v_cmpx_") or name.endswith("_saveexec_b64"):
        f.append("ISAF_EXEC_W")
    if fmt in ("DS", "MUBUF", "FLAT", "GLOBAL", "SCRATCH", "SMEM"):
        if "atomic" in name or (fmt == "DS" and DS_ATOMIC.match(name)):
            f.append("ISAF_ATOMIC")
        elif "store" in name or "write" in name:
            f.append("ISAF_STORE")
        elif "load" in name or "read" in name:
            f.append("ISAF_LOAD")
    if fmt == "DS" and re.match(r"ds_(read|write)2", name):
        f.append("ISAF_DS2")
    if re.search(r"_d16(_hi)?$", name) and ("load" in name or "read" in name):
        f.append("ISAF_D16")
    if fmt == "SOPP" and not ops:
        f.append("ISAF_NO_IMM")
    if name == "s_nop":
        f.append("ISAF_NOP")
    if name == "v_accvgpr_read_b32":
        f.append("ISAF_ACC_READ")
    if name == "v_accvgpr_write_b32":
        f.append("ISAF_ACC_WRITE")
    if name == "v_accvgpr_mov_b32":
        f.append("ISAF_ACC_MOV")
    if name.startswith("v_dot"):
        f.append("ISAF_DOT")
    if fmt in ("SOPC", "VOPC") or (fmt == "SOPK" and "cmpk" in name):
        f.append("ISAF_COMPARE")
    if fmt.startswith("VOP") and ("_f32" in name or name == "v_cndmask_b32"):
        f.append("ISAF_FMOD")
    if name.startswith(("v_rcp_", "v_rsq_", "v_sqrt_", "v_exp_", "v_log_", "v_sin_", "v_cos_")):
        f.append("ISAF_TRANS")
    if (fmt == "DS" and re.search(r"_[biu]8", name)) or (fmt in ("MUBUF", "FLAT", "GLOBAL", "SCRATCH") and "byte" in name):
        f.append("ISAF_MEM8")
    if (fmt == "DS" and re.search(r"_[biu]16", name)) or (fmt in ("MUBUF", "FLAT", "GLOBAL", "SCRATCH") and "short" in name):
        f.append("ISAF_MEM16")
    typed = name[name.rindex("_"):] if "_cvt_" in name else name  # a conversion: its source type
    for t in ("f64", "f16", "f32"):
        if t in typed:
            f.append("ISAF_OT_" + t.upper())
            break
    return " | ".join(f) if f else "0"


def parse_list(path):
    rows = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fmt, rest = line.split(None, 1)
        targets = TARGETS
        if "@" in rest:
            rest, tl = rest.split("@")
            targets = [t for t in tl.strip().split(",") if t in TARGETS]
            rest = rest.strip()
        rows.append((fmt, rest, targets))
    return rows


def assemble(target, lines):
    """Return {line_index: encoding bytes} for the lines llvm-mc accepts."""
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        p = subprocess.run([LLVM_BIN + "/llvm-mc", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target,
                            "-show-encoding", f.name], capture_output=True, text=True)
    bad = set()
    for m in re.finditer(r":(\d+):\d+: error", p.stderr):
        bad.add(int(m.group(1)) - 1)
    encs = [l for l in p.stdout.splitlines() if "encoding:" in l]
    out = {}
    it = iter(encs)
    for i in range(len(lines)):
        if i in bad:
            continue
        l = next(it)
        hexes = re.search(r"encoding: \[(.*)\]", l).group(1)
        out[i] = bytes(int(h, 16) for h in hexes.split(","))
    return out


def width(tok):
    tok = tok.strip()
    m = re.match(r"^[-|]*([sva])\[(\d+):(\d+)\]", tok)
    if m:
        return int(m.group(3)) - int(m.group(2)) + 1
    if re.match(r"^[-|]*[sva]\d+", tok):
        return 1
    if tok in ("vcc", "exec"):
        return 2
    return 1  # a constant or a 32-bit special register


def operands(text):
    parts = text.split(None, 1)
    if len(parts) < 2:
        return []
    ops = [o.strip() for o in parts[1].split(",")]
    # drop trailing modifiers such as "offen", "off", "offset:.."
    return [o.split()[0] for o in ops if o]


def widths(fmt, name, ops):
    """(dst, src0, src1, src2, sdst) widths in dwords."""
    w = [width(o) for o in ops]
    d = s0 = s1 = s2 = sd = 0
    if fmt in ("SOP2",):
        d, s0, s1 = w[0], w[1], w[2]
    elif fmt == "SOPK":
        d = w[0]
    elif fmt == "SOP1":
        if name in SRC_ONLY_SOP1:
            s0 = w[0]
        elif len(w) == 1:
            d = w[0]
        else:
            d, s0 = w[0], w[1]
    elif fmt == "SOPC":
        s0, s1 = w[0], w[1]
    elif fmt == "SMEM":
        d, s0 = w[0], w[1]
    elif fmt == "VOP1":
        if w:
            d, s0 = w[0], w[1]
    elif fmt == "VOP2":
        if len(ops) >= 4 and ops[1] == "vcc":  # carry forms
            d, sd, s0, s1 = w[0], 2, w[2], w[3]
        elif name in ("v_madmk_f32",):
            d, s0, s1 = w[0], w[1], w[3]
        elif name in ("v_madak_f32",):
            d, s0, s1 = w[0], w[1], w[2]
        elif name == "v_cndmask_b32":
            d, s0, s1, s2 = w[0], w[1], w[2], 2
        else:
            d, s0, s1 = w[0], w[1], w[2]
    elif fmt == "VOPC":
        sd, s0, s1 = 2, w[1], w[2]
    elif fmt == "VOP3":
        if len(ops) == 5:  # v_mad_u64_u32 d, sdst, a, b, c
            d, sd, s0, s1, s2 = w[0], w[1], w[2], w[3], w[4]
        elif len(ops) == 4:
            d, s0, s1, s2 = w
        else:
            d, s0, s1 = w
    elif fmt in ("VOP3P", "MAI"):
        d = w[0]
        s0 = w[1]
        if len(w) > 2:
            s1 = w[2]
        if len(w) > 3:
            s2 = w[3]
    elif fmt == "DS":
        if "_rtn_" in name:
            d, s0, s1 = w[0], w[1], w[2]
            s2 = w[3] if len(w) > 3 else 0
        elif name.startswith("ds_read") or name in ("ds_swizzle_b32", "ds_permute_b32", "ds_bpermute_b32"):
            d, s0 = w[0], w[1]
            if len(w) > 2:
                s1 = w[2]
        else:
            s0 = w[0]
            s1 = w[1] if len(w) > 1 else 0
            s2 = w[2] if len(w) > 2 else 0
    elif fmt == "MUBUF":
        d, s0, s1 = w[0], w[1], 4
    elif fmt in ("FLAT", "GLOBAL", "SCRATCH"):
        if "store" in name or "atomic" in name:
            d, s0 = w[1], w[0]
        else:
            d, s0 = w[0], w[1]
    return d, s0, s1, s2, sd


def main():
    rows = parse_list("tools/isa/ops.list")
    results = {}  # (name) -> {target: (opcode, widths)}
    order = []
    for t in TARGETS:
        idx = [i for i, r in enumerate(rows) if t in r[2]]
        enc = assemble(t, [rows[i][1] for i in idx])
        for j, i in enumerate(idx):
            fmt, ex, _ = rows[i]
            if j not in enc:
                sys.stderr.write("%s: not accepted: %s\n" % (t, ex))
                continue
            b = enc[j]
            dw0 = int.from_bytes(b[0:4], "little")
            if fmt in ("VOP1", "VOP2", "VOPC") and dw0 >> 26 == 0x34:
                fmt = "VOP3"  # this target has only the VOP3 encoding
            lsb, nb = OPFIELD[fmt]
            opc = (dw0 >> lsb) & ((1 << nb) - 1)
            name = ex.split()[0]
            w = widths(fmt, name, operands(ex))
            key = (name, rows[i][0])
            if key not in results:
                results[key] = {}
                order.append(key)
            results[key][t] = (opc, w, fmt, op_flags(fmt, name, operands(ex)))
    print("/* Generated by tools/isa/gen_ops.py from tools/isa/ops.list with llvm-mc. Do not edit. */")
    print("/* OPID(ID): every distinct operation, once.")
    print(" * OP(ID, name, FORMAT, opcode, targets, dst, src0, src1, src2, sdst, class, flags): one")
    print(" * encoding; widths in dwords; class and flags as arch/isa.h. Define both macros before")
    print(" * including. */")
    seen = set()
    for name, _ in order:
        ident = re.sub(r"[^A-Za-z0-9]", "_", name).upper()
        if ident not in seen:
            seen.add(ident)
            print("OPID(%s)" % ident)
    for key in order:
        name, fmt = key
        per = results[key]
        groups = {}
        for t, v in per.items():
            groups.setdefault((v[0], v[1], v[2], v[3]), []).append(t)
        for (opc, w, fmt, flags), ts in groups.items():
            mask = " | ".join("T_" + TARGET_IDS[t] for t in TARGETS if t in ts)
            ident = re.sub(r"[^A-Za-z0-9]", "_", name).upper()
            print('OP(%s, "%s", F_%s, 0x%x, %s, %d, %d, %d, %d, %d, %s, %s)' %
                  (ident, name, fmt, opc, mask, w[0], w[1], w[2], w[3], w[4], op_class(fmt, name), flags))


if __name__ == "__main__":
    main()
