#!/bin/sh
# The op table (arch/ops.def), the MFMA table (arch/mfma.def) and LLVM's
# names per opcode (arch/llvm_names.def) are generated: regenerate them
# (tools/isa/gen_ops.py and gen_names.py with llvm-mc, tools/isa/gen_mfma.py
# from the calculator files under tests/isa/mfma) and fail, showing the
# difference, when one differs from the committed file. make test runs it (make check-isa-tables alone).
#   sh tools/isa/check.sh LLVM_BIN OUTDIR
set -eu
LLVM_BIN=${1:-/usr/lib/llvm-19/bin}
OUT=${2:-build/isa}
mkdir -p "$OUT"
status=0
python3 tools/isa/gen_ops.py "$LLVM_BIN" > "$OUT/ops.def" 2> "$OUT/gen_ops.log" || {
    echo "isa tables: tools/isa/gen_ops.py failed:" >&2; cat "$OUT/gen_ops.log" >&2; exit 1; }
python3 tools/isa/gen_mfma.py > "$OUT/mfma.def" || { echo "isa tables: tools/isa/gen_mfma.py failed" >&2; exit 1; }
python3 tools/isa/gen_names.py "$LLVM_BIN" > "$OUT/llvm_names.def" || {
    echo "isa tables: tools/isa/gen_names.py failed" >&2; exit 1; }
for t in ops mfma llvm_names; do
    if ! cmp -s "$OUT/$t.def" "arch/$t.def"; then
        echo "isa tables: arch/$t.def differs from what its generator writes (edit the generator's input, then" \
             "regenerate: python3 tools/isa/gen_${t#llvm_}.py > arch/$t.def):" >&2
        diff -u "arch/$t.def" "$OUT/$t.def" | head -20 >&2
        status=1
    fi
done
[ $status = 0 ] && echo "isa tables: arch/ops.def, arch/mfma.def and arch/llvm_names.def match their generators"
exit $status
