#!/usr/bin/env python3
"""ISA coverage of the emulator per target (docs/EMULATOR.md, "LLVM corpus").

LLVM's instruction list for a target: arch/llvm_names.def (every opcode of
every encoding format disassembled by llvm-mc, tools/isa/gen_names.py). Each is
  corpus    in the op table (arch/ops.def) for the target and in an LLVM
            corpus object (build/llvm/*.s), all of whose kernels
            tests/test_llvm.c runs clean (an instruction on a path no input
            takes counts too)
  decoded   in the op table, not in the corpus (the project's kernels and
            tests/test_emu_isa.c cover most of these)
  refused   not in the op table: the emulator stops at it ("unknown
            instruction")
    python3 tools/isa/coverage.py [BUILD_DIR]   (make isa-coverage)
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from targets import isa_targets  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def names_of(ident, table, pattern):
    """Mnemonics of the rows of arch/<table> whose target mask has ident;
    pattern captures the groups mask and name."""
    out = set()
    for m in re.finditer(pattern, open(os.path.join(TOP, "arch", table)).read()):
        ts, name = m.group("mask"), m.group("name")
        if "T_" + ident in [t.strip() for t in ts.split("|")]:
            out.add(name)
    return out


def llvm_names(ident):
    """LLVM's instructions of a target: arch/llvm_names.def (tools/isa/gen_names.py)."""
    return names_of(ident, "llvm_names.def", r'LLVM_NAME\(F_\w+, \w+, (?P<mask>[^,]+), "(?P<name>[^"]+)"\)')


def table_names(ident):
    """The op table's instructions of a target."""
    return names_of(ident, "ops.def", r'OP\(\w+, "(?P<name>[^"]+)", F_\w+, \w+, (?P<mask>[^,]+),')


def corpus_names(target):
    out = set()
    for path in glob.glob(os.path.join(BUILD, "llvm", "corpus-%s-O*.s" % target)):
        for line in open(path):
            m = re.match(r"\t([sv]_[a-z0-9_]+|ds_[a-z0-9_]+|global_[a-z0-9_]+|flat_[a-z0-9_]+|buffer_[a-z0-9_]+|scratch_[a-z0-9_]+)", line)
            if m:
                out.add(re.sub(r"_(e32|e64|sdwa|dpp)$", "", m.group(1)))
    return out


def main():
    print("| target | LLVM instructions | in the op table and the corpus | in the op table, not in the corpus | refused (not in the op table) |")
    print("|---|---:|---:|---:|---:|")
    for name, ident in isa_targets():
        llvm, table, corpus = llvm_names(ident), table_names(ident), corpus_names(name)
        executed = llvm & table & corpus
        decoded = (llvm & table) - corpus
        refused = llvm - table
        print("| %s | %d | %d | %d | %d |" % (name, len(llvm), len(executed), len(decoded), len(refused)))
        missing = corpus - table
        if missing:
            sys.stderr.write("%s: corpus instructions not in the op table: %s\n" % (name, " ".join(sorted(missing))))


if __name__ == "__main__":
    main()
