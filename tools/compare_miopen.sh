#!/bin/sh
# make compare-miopen MIOPEN_S=FILE: this project's gfx906 backward-data
# kernels against MIOpen's gfx906 dynamic v4r1 kernels (igemm_bwd_gtc*), in
# the timing model (docs/TIMING.md), layer by layer (docs/MIOPEN.md).
#
#   sh tools/compare_miopen.sh /path/to/igemm_bwd_gtc_dynamic.s
#   B=build SHAPES=tests/shapes/resnet50.txt BATCH=32 OUT=build/miopen-compare.md VERIFY=1
#   THREADS=1 (emulator threads of every run) CO_CACHE=DIR (keep the assembled
#   code object in DIR and reuse it: a cache filled where LLVM is serves a
#   machine without it)
#
# FILE is the user's own copy of MIOpen's src/kernels/dynamic_igemm/
# igemm_bwd_gtc_dynamic.s; nothing of MIOpen is fetched or kept: it is
# assembled in a temporary directory with llvm-mc 19 for gfx906:xnack- (the
# file's descriptors say .amdhsa_reserve_xnack_mask 0, which LLVM 19 accepts
# only for a target ID without XNACK; no other change) and removed afterwards.
#
# Per layer of SHAPES (its -n replaced by BATCH unless BATCH=0): MIOpen's rule and launches
# from `igemm-miopen plan` (tools/miopen_cmp.c); when it applies, each launch
# through `igemm emu-run --stats` on the same random dy and w (dx carried from
# launch to launch), MIOpen's SetTensor zero fill, where its invoker does one,
# timed as this project's fill kernel; MIOpen's dx verified against the float64
# reference (VERIFY=0 skips it); ours is `igemm conv ... --arch gfx906 --json`
# (the heuristic's pick, every launch of its plan). All times are modeled.
# Writes a Markdown table to OUT and prints it; exit 1 when a run or a
# verification failed, 2 on bad usage.
set -u

MIOPEN_S=${1:-}
B=${B:-build}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
SHAPES=${SHAPES:-tests/shapes/resnet50.txt}
BATCH=${BATCH:-32}
OUT=${OUT:-$B/miopen-compare.md}
VERIFY=${VERIFY:-1}
SEED=${SEED:-1}
THREADS=${THREADS:-1}
CO_CACHE=${CO_CACHE:-}
IGEMM=$B/bin/igemm
HELPER=$B/bin/igemm-miopen

die() { echo "compare-miopen: $*" >&2; exit 2; }
[ -n "$MIOPEN_S" ] || die "usage: compare_miopen.sh /path/to/igemm_bwd_gtc_dynamic.s"
[ -f "$MIOPEN_S" ] || die "$MIOPEN_S: no such file"
[ -f "$SHAPES" ] || die "$SHAPES: no such file"
for f in "$IGEMM" "$HELPER"; do [ -x "$f" ] || die "$f is missing (run: make B=$B $f)"; done
[ -f "$B/co/gfx906.hsaco" ] || die "$B/co/gfx906.hsaco is missing (run: make B=$B)"
case "$BATCH" in ''|*[!0-9]*) die "BATCH must be a positive integer, got '$BATCH'" ;; esac
case "$THREADS" in ''|*[!0-9]*|0) die "THREADS must be a positive integer, got '$THREADS'" ;; esac

tmp=$(mktemp -d /tmp/igemm-miopen.XXXXXX) || die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT INT TERM
co=${CO_CACHE:+$CO_CACHE/gfx906-$(cksum < "$MIOPEN_S" | cut -d' ' -f1).hsaco}
co=${co:-$tmp/miopen.hsaco}
EMU_FLAGS="--threads $THREADS"
. "$(dirname "$0")/compare_miopen_lib.sh"
if [ ! -f "$co" ]; then
    [ -z "$CO_CACHE" ] || mkdir -p "$CO_CACHE" || die "cannot create $CO_CACHE"
    miopen_assemble gfx906 "$co" "$MIOPEN_S" || die "$(cat "$tmp/fault")"
fi

# MIOpen's launches of problem $1 (plan lines in $tmp/plan); 0 when all ran
# (the verification's line is left in $tmp/verify)
run_miopen() {
    problem=$1
    dx="zeros:$(sed -n 's/^dx //p' "$tmp/plan")"
    launches_begin $problem || return 1
    i=0
    while read -r kind rest; do
        i=$((i + 1))
        set -- $rest
        case $kind in
        dx) continue ;;
        zero)
            run_launch "zero fill" --co "$B/co/gfx906.hsaco" --kernel igemm_fill_zero_b32 --grid "$1,1,1" \
                --block "$2,1,1" --arg p_out="$dx" --arg dwords="$3" --arg pad0=0 --dump p_out="$tmp/dx$i.bin" || return 1
            ;;
        launch)
            k=$1 grid=$2 block=$3
            shift 3
            [ -f "$tmp/$k.names" ] || kernel_args "$MIOPEN_S" "$k" > "$tmp/$k.names"
            bind_args "$tmp/$k.names" "$@" || { echo "  $k: $(cat "$tmp/fault")" >&2; return 1; }
            run_launch "$k" --co "$co" --kernel "$k" --grid "$grid,1,1" --block "$block,1,1" --arg "$pin=$dx" \
                --arg "$pwei=@$tmp/w.bin" --arg "$pout=@$tmp/dy.bin" $args --dump "$pin=$tmp/dx$i.bin" || return 1
            echo "$k" >> "$tmp/kernels"
            ;;
        esac
        dx=@$tmp/dx$i.bin
    done < "$tmp/plan"
    verify_dx $problem
}

rows_begin " <= 0.95 |" "---|"
echo "compare-miopen: $SHAPES at batch $BATCH, gfx906 timing model (modeled, not measured), MIOpen from $MIOPEN_S"
status=0 nrun=0 nwin=0 sum_m=0 sum_o=0
while IFS= read -r line; do
    layer_problem "$line" "" || continue
    if ! "$HELPER" plan $prob > "$tmp/plan"; then status=1; continue; fi
    short=$(printf '%s\n' "$prob" | sed 's/^conv //; s/ -[lj] 1//g; s/ -g 1//; s/ -F 2//')
    plan_skipped "$short" "$note" "| | | | | | |" && continue
    miopen_ran "$prob" "$short" "$note" "| | | | |" || { status=1; continue; }
    miopen_result
    [ "$m_ver" = FAIL ] && status=1
    m_k=$(sort -u "$tmp/kernels" | sed 's/^igemm_bwd_gtc_\(bt[0-9x]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')
    m_n=$(grep -c -v '^dx' "$tmp/plan")
    ours_ran "$short" conv $prob --arch gfx906 --json --seed "$SEED" --threads "$THREADS" || { status=1; continue; }
    o_sol=$(printf '%s\n' "$o_sol" | sed 's/^igemm_bwd_v4r1_fma_fp32_nchw_//')
    ratio=$(awk -v o="$o_us" -v m="$m_us" 'BEGIN { printf "%.3f", o / m }')
    ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 0.95) ? "yes" : "no" }')
    nrun=$((nrun + 1))
    [ "$ok" = yes ] && nwin=$((nwin + 1))
    sum_m=$(add "$sum_m" "$m_us")
    sum_o=$(add "$sum_o" "$o_us")
    echo "  ran    $short: MIOpen $m_us us ($m_ver), ours $o_us us ($o_sol), ratio $ratio"
    echo "| \`$short\` $note | $m_k, $m_n | $m_us ($m_lim) | $m_ver | $o_sol, $o_n | $o_us ($o_lim) | $ratio | $ok |" \
        >> "$OUT.rows"
done < "$SHAPES"
total=$(awk -v o="$sum_o" -v m="$sum_m" 'BEGIN { if (m > 0) printf "%.3f", o / m; else print "-" }')
write_report "$(
    echo "Batch $BATCH, $SHAPES, gfx906 (MI50: 60 CUs, 1.725 GHz), modeled by the timing model: $nrun layers"
    echo "where MIOpen's rule lets its kernel run; ours at most 0.95x MIOpen's modeled time on $nwin of them;"
    echo "sum over those layers: MIOpen $sum_m us, ours $sum_o us, ratio $total."
)"
exit $status
