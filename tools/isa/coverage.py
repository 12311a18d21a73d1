#!/usr/bin/env python3
"""ISA coverage of the emulator per target (docs/EMULATOR.md, "LLVM corpus").

LLVM's instruction list for a target: every opcode of every encoding format,
with a fixed even-register operand pattern, disassembled by llvm-mc; the
mnemonic it prints (without _e32/_e64/_sdwa/_dpp) is one instruction. Each is
  corpus    in the op table (arch/ops.def) for the target and in an LLVM
            corpus object (build/llvm/*.s), all of whose kernels
            tests/test_llvm.c runs clean (an instruction on a path no input
            takes counts too)
  decoded   in the op table, not in the corpus (the project's kernels and
            tests/test_emu_isa.c cover most of these)
  refused   not in the op table: the emulator stops at it ("unknown
            instruction")
    python3 tools/isa/coverage.py [LLVM_BIN] [BUILD_DIR]   (make isa-coverage)
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import isa_targets  # noqa: E402

LLVM_BIN = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/llvm-19/bin"
BUILD = sys.argv[2] if len(sys.argv) > 2 else "build"
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (format, number of opcodes, dwords of one encoding as a function of the opcode)
V = 0x100  # VGPR v0 as a 9-bit source
FORMATS = [
    ("SOP2", 128, lambda o: [0x80000000 | o << 23 | 0 << 16 | 4 << 8 | 2]),
    ("SOPK", 32, lambda o: [0xb0000000 | o << 23 | 2 << 16 | 1]),
    ("SOP1", 256, lambda o: [0xbe800000 | 2 << 16 | o << 8 | 4]),
    ("SOPC", 128, lambda o: [0xbf000000 | o << 16 | 4 << 8 | 2]),
    ("SOPP", 128, lambda o: [0xbf800000 | o << 16]),
    ("SMEM", 256, lambda o: [0xc0000000 | o << 18 | 4 << 6 | 2 >> 1, 0]),
    ("VOP1", 256, lambda o: [0x7e000000 | 0 << 17 | o << 9 | (V + 2)]),
    ("VOP2", 64, lambda o: [o << 25 | 0 << 17 | 4 << 9 | (V + 2)]),
    ("VOPC", 256, lambda o: [0x7c000000 | o << 17 | 4 << 9 | (V + 2)]),
    ("VOP3", 1024, lambda o: [0xd0000000 | o << 16 | 0, (V + 2) | (V + 4) << 9 | (V + 6) << 18]),
    ("VOP3P", 128, lambda o: [0xd3800000 | o << 16 | 0, (V + 2) | (V + 4) << 9 | (V + 6) << 18 | 3 << 27]),
    ("DS", 256, lambda o: [0xd8000000 | o << 17, 2 | 4 << 8 | 6 << 16 | 0 << 24]),
    ("MUBUF", 128, lambda o: [0xe0000000 | o << 18, 2 | 0 << 8 | 1 << 16]),
    ("FLAT", 128, lambda o: [0xdc000000 | o << 18, 2 | 4 << 8 | 0x7f << 16 | 0 << 24]),
    ("GLOBAL", 128, lambda o: [0xdc008000 | o << 18, 2 | 4 << 8 | 0x7f << 16 | 0 << 24]),
]


def llvm_names(target):
    names = set()
    for fmt, n, enc in FORMATS:
        lines = []
        for o in range(n):
            lines.append(" ".join("0x%02x" % b for d in enc(o) for b in d.to_bytes(4, "little")))
        p = subprocess.run([LLVM_BIN + "/llvm-mc", "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target],
                           input="\n".join(lines) + "\n", capture_output=True, text=True)
        for line in p.stdout.splitlines():
            m = re.match(r"\s+([a-z][a-z0-9_]*)", line)
            if m and not line.strip().startswith("."):
                names.add(re.sub(r"_(e32|e64|sdwa|dpp)$", "", m.group(1)))
    return names


def table_names(ident):
    out = set()
    for name, ts in re.findall(r'OP\(\w+, "([^"]+)", F_\w+, \w+, ([^,]+),', open(os.path.join(TOP, "arch", "ops.def")).read()):
        if "T_" + ident in [t.strip() for t in ts.split("|")]:
            out.add(name)
    return out


def corpus_names(target):
    out = set()
    for path in glob.glob(os.path.join(BUILD, "llvm", "corpus-%s-O*.s" % target)):
        for line in open(path):
            m = re.match(r"\t([sv]_[a-z0-9_]+|ds_[a-z0-9_]+|global_[a-z0-9_]+|flat_[a-z0-9_]+|buffer_[a-z0-9_]+)", line)
            if m:
                out.add(re.sub(r"_(e32|e64|sdwa|dpp)$", "", m.group(1)))
    return out


def main():
    print("| target | LLVM instructions | in the op table and the corpus | in the op table, not in the corpus | refused (not in the op table) |")
    print("|---|---:|---:|---:|---:|")
    for name, ident in isa_targets():
        llvm, table, corpus = llvm_names(name), table_names(ident), corpus_names(name)
        executed = llvm & table & corpus
        decoded = (llvm & table) - corpus
        refused = llvm - table
        print("| %s | %d | %d | %d | %d |" % (name, len(llvm), len(executed), len(decoded), len(refused)))
        missing = corpus - table
        if missing:
            sys.stderr.write("%s: corpus instructions not in the op table: %s\n" % (name, " ".join(sorted(missing))))


if __name__ == "__main__":
    main()
