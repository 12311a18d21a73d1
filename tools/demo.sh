#!/bin/sh
# make demo: one ResNet-50 backward-data layer, end to end, on every target.
#
# The Makefile has already generated the assembly (igemmgen), assembled and
# linked one code object per target (llvm-mc, ld.lld) and built the CLI. This
# script runs the layer through `igemm conv` on the emulator with the code
# objects from $B/co, with the library's default kernel selection, verifies
# dx against the float64 CPU reference and prints a short report.
#
#   B=build sh tools/demo.sh          (what `make demo` runs)
#   DEMO_BATCH=2 sh tools/demo.sh     a larger batch (slower)
set -eu

B=${B:-build}
BATCH=${DEMO_BATCH:-1}
IGEMM=$B/bin/igemm
TARGETS="gfx906 gfx908 gfx90a gfx942"

# ResNet-50 v1.5, the 3x3 convolution of conv2_x (../shared/shapes/resnet50.txt:
# "conv -n 256 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 ... # x3").
FULL_BATCH=256
LAYER="-c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1"

for t in $TARGETS; do
    [ -f "$B/co/$t.hsaco" ] || { echo "demo: $B/co/$t.hsaco is missing (run: make demo)" >&2; exit 1; }
done
[ -x "$IGEMM" ] || { echo "demo: $IGEMM is missing (run: make demo)" >&2; exit 1; }

echo "igemm demo: ResNet-50 v1.5 backward-data layer, conv2_x 3x3 (64 -> 64 channels, 56x56, pad 1)"
echo "  layer:  conv -n $FULL_BATCH $LAYER -F 2"
echo "  run at: batch $BATCH (scaled down from $FULL_BATCH for the emulator), fp32 NCHW, random data in [-1, 1)"
sizes=""
for t in $TARGETS; do sizes="$sizes, $t $(wc -c <"$B/co/$t.hsaco" | tr -d ' ') B"; done
echo "  code objects: $B/co/<target>.hsaco, one per target serves every shape (${sizes#, })"
echo

err=$(mktemp)
trap 'rm -f "$err"' EXIT
start=$(date +%s)
passed=0
failed=""
for t in $TARGETS; do
    ok=1
    # shellcheck disable=SC2086 # LAYER is a list of flags
    out=$("$IGEMM" conv -n "$BATCH" $LAYER -F 2 -V 1 --arch "$t" --backend emu --codeobj-dir "$B/co" 2>"$err") || ok=0
    echo "[$t]"
    # the report without its first line (the problem, printed above)
    printf '%s\n' "$out" | sed -n '2,$p'
    if [ $ok = 1 ]; then
        passed=$((passed + 1))
    else
        failed="$failed $t"
        sed 's/^/  /' "$err" >&2
    fi
done
secs=$(($(date +%s) - start))

echo
if [ -z "$failed" ]; then
    echo "demo: PASS on $passed of 4 targets ($TARGETS), emulated in ${secs} s"
    exit 0
fi
echo "demo: FAIL on$failed ($passed of 4 passed)"
exit 1
