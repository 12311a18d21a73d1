#!/bin/sh
# make check-networks: every layer of ResNet-50, ResNeXt-101 and Inception-v3
# (tests/shapes/{resnet50,resnext101,inception3}.txt, copies of ../shared/shapes) with the batch
# scaled down to $BATCH (default 2: GEMM N then spans two images), run on the
# emulator (strict mode) with the library's default kernel selection and
# verified against the float64 CPU reference
# (relative error <= 1e-5, no NaN, uncovered pixels exactly 0; dx is
# prefilled with NaN). One line per layer, a summary per network and in
# total; exit status 1 when any layer fails, 2 when a shape list or the CLI
# is missing.
#
#   B=build SHAPES=tests/shapes sh tools/check_networks.sh   (what `make check-networks`
#                                      runs: the vendored copies, SHAPES_DIR)
#   BATCH=1 ARCH=gfx908 LAYOUT=NHWC NETWORKS=resnet50 sh tools/check_networks.sh
#   CMD=convfp16 ARCH=gfx90a sh tools/check_networks.sh   (every layer in fp16;
#                                      convbfp16: bf16; `make check-networks CHECK_CMD=...`)
#
# LAYOUT (NCHW, the default, or NHWC) is the layout of every tensor.
#
# Each layer is a separate `igemm conv ... -V 1 --json` run. (`igemm conv
# --input` also goes on after a layer that stops the emulator with a fault
# or strictness report; separate processes keep a crash of the process
# itself, a segfault or abort, to its own layer, and put each failing
# layer's own output under it.)
set -u

B=${B:-build}
BATCH=${BATCH:-2}
ARCH=${ARCH:-gfx906}
CMD=${CMD:-conv}
SHAPES=${SHAPES:-tests/shapes}
NETWORKS=${NETWORKS:-resnet50 resnext101 inception3}
LAYOUT=${LAYOUT:-NCHW}
case "$LAYOUT" in NCHW|NHWC) ;; *) echo "check-networks: LAYOUT must be NCHW or NHWC, got '$LAYOUT'" >&2; exit 2 ;; esac
IGEMM=$B/bin/igemm

[ -x "$IGEMM" ] || { echo "check-networks: $IGEMM is missing (run: make B=$B)" >&2; exit 2; }
[ -f "$B/co/$ARCH.hsaco" ] || { echo "check-networks: $B/co/$ARCH.hsaco is missing (run: make B=$B)" >&2; exit 2; }
for net in $NETWORKS; do
    [ -f "$SHAPES/$net.txt" ] || { echo "check-networks: $SHAPES/$net.txt is missing" >&2; exit 2; }
done

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
. "$(dirname "$0")/json_field.sh"

echo "check-networks: $NETWORKS at batch $BATCH in $LAYOUT on the $ARCH emulator, $CMD, default selection, verified (rel err <= 1e-5, plus half an ulp for 16-bit types)"
start=$(now)
total=0
failed=0
summary=""
for net in $NETWORKS; do
    list="$SHAPES/$net.txt"
    n=$(grep -c '^[[:space:]]*conv' "$list")
    i=0
    nfail=0
    t_net=$(now)
    echo "== $net: $n layers ($list)"
    while IFS= read -r line; do
        args=${line%%#*}
        case "$args" in *conv*) ;; *) continue ;; esac
        i=$((i + 1))
        t0=$(now)
        # shellcheck disable=SC2086 # the layer's flags are split on purpose
        out=$("$IGEMM" "$CMD" $args --batch "$BATCH" --arch "$ARCH" --in_layout "$LAYOUT" --out_layout "$LAYOUT" \
            --fil_layout "$LAYOUT" --codeobj-dir "$B/co" -V 1 --json 2>&1)
        rc=$?
        json=$(printf '%s\n' "$out" | grep '^{' | tail -n 1)
        verdict=$(json_field "$json" verify)
        shape=$(json_field "$json" problem)
        [ -n "$shape" ] || shape="$(printf '%s' "$args" | sed 's/^[[:space:]]*conv[[:space:]]*//; s/[[:space:]]*$//') --batch $BATCH"
        if [ "$rc" -eq 0 ] && [ "$verdict" = PASS ]; then
            printf '[%s %d/%d] PASS %s  %s  rel err %s  (%s s)\n' "$net" "$i" "$n" "$shape" \
                "$(json_field "$json" solution)" "$(json_field "$json" max_rel_err)" "$(since "$t0")"
        else
            nfail=$((nfail + 1))
            printf '[%s %d/%d] FAIL %s  (exit %d, %s s)\n' "$net" "$i" "$n" "$shape" "$rc" "$(since "$t0")"
            printf '%s\n' "$out" | sed 's/^/    /'
        fi
    done < "$list"
    if [ "$i" -ne "$n" ]; then
        echo "check-networks: $list: read $i layers, expected $n" >&2
        nfail=$((nfail + 1))
    fi
    line="$net: $((i - nfail)) of $i layers passed in $(since "$t_net") s"
    echo "$line"
    summary="$summary  $line
"
    total=$((total + i))
    failed=$((failed + nfail))
done
echo "check-networks summary (batch $BATCH, $LAYOUT, $ARCH, $CMD):"
printf '%s' "$summary"
echo "  total: $((total - failed)) of $total layers passed in $(since "$start") s"
[ "$failed" -eq 0 ] || exit 1
exit 0
