#!/bin/sh
# make compare-miopen-xdlops MIOPEN_ROOT=DIR: this project's MFMA backward-data
# kernels against MIOpen's xdlops ones (igemm_bwd_gtcx_nchw_fp32_* on gfx908,
# igemm_bwd_gtcx2_nhwc_* on gfx90a, igemm_bwd_gtcx3_nhwc_* on gfx942), in the
# timing model (docs/TIMING.md), layer by layer (docs/MIOPEN.md).
#
#   sh tools/compare_miopen_xdlops.sh /path/to/MIOpen
#   ARCH=gfx942 DTYPE=fp16 LAYOUT=NHWC BATCH=8 SHAPES=tests/shapes/resnet50.txt
#   B=build OUT=build/miopen-xdlops-resnet50-gfx942-fp16-nhwc-8.md VERIFY=1 SEED=1
#   FP16_ALT=1 THREADS=1 HAZARDS=warn OURS_FLAGS= SUFFIX= (OUT defaults to
#   build/miopen-xdlops-SHAPESNAME-ARCH-DTYPE-LAYOUT-BATCHSUFFIX.md)
#   CO_CACHE=DIR keeps MIOpen's assembled code objects in DIR (reused by
#   later runs; without it they go to a temporary directory); with
#   ASSEMBLE_ONLY=1 the run only plans every layer and assembles its
#   kernels into CO_CACHE (no emulator runs, no table): a cache filled on a
#   machine with LLVM serves runs on one without it (llvm-mc is not called
#   for a kernel the cache holds).
#   MIOPEN_FROM=TABLE.md takes MIOpen's columns (kernels, launches, time,
#   limit, verdict) from an earlier table of the same ARCH, DTYPE, BATCH and
#   shapes instead of running MIOpen's kernels again: they depend only on
#   the timing model and MIOpen's code, so after a change to our kernels
#   alone only ours is re-timed (the plan still comes from the checkout).
#
# DIR is the user's own MIOpen checkout (its top directory); nothing of
# MIOpen is fetched or kept. Per layer of SHAPES (its -n replaced by BATCH):
# MIOpen's rule, default configuration and launches from `igemm-miopen plan
# --arch ARCH --miopen-root DIR` (tools/miopen_xdlops.c; the configuration
# lists read from DIR/src/solver/conv); the kernel file found under
# DIR/src/kernels/dynamic_igemm by name, assembled with its directory's includes in a temporary directory with
# llvm-mc 19 for ARCH:xnack- (MIOpen refuses XNACK targets) and the --defsym
# values MIOpen's solver passes, linked with ld.lld; each launch through
# `igemm emu-run --stats` on the same random dy and w (dx and MIOpen's fp32
# workspace carried from launch to launch); MIOpen's dx verified against the
# float64 reference by the type's rule (VERIFY=0 skips it); ours is `igemm
# conv... --arch ARCH --json` (the heuristic's pick; OURS_FLAGS adds flags,
# e.g. --fp16_mode flush). HAZARDS=warn (default) lets a run go on past a
# hazard shortfall and names the rule in the table; HAZARDS=error stops it.
# All times are modeled. Writes a Markdown table to OUT and prints it; exit 1
# when a run or a verification failed, 2 on bad usage.
set -u

MIOPEN_ROOT=${1:-}
B=${B:-build}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-19/bin}
ARCH=${ARCH:-gfx942}
DTYPE=${DTYPE:-fp16}
SHAPES=${SHAPES:-tests/shapes/resnet50.txt}
BATCH=${BATCH:-8}
VERIFY=${VERIFY:-1}
SEED=${SEED:-1}
FP16_ALT=${FP16_ALT:-1}
THREADS=${THREADS:-1}
HAZARDS=${HAZARDS:-warn}
OURS_FLAGS=${OURS_FLAGS:-}
SUFFIX=${SUFFIX:-}
CO_CACHE=${CO_CACHE:-}
ASSEMBLE_ONLY=${ASSEMBLE_ONLY:-0}
MIOPEN_FROM=${MIOPEN_FROM:-}
IGEMM=$B/bin/igemm
HELPER=$B/bin/igemm-miopen

die() { echo "compare-miopen-xdlops: $*" >&2; exit 2; }
case "$ARCH" in gfx908) LAYOUT=${LAYOUT:-NCHW} ;; gfx90a|gfx942) LAYOUT=${LAYOUT:-NHWC} ;;
    *) die "ARCH must be gfx908, gfx90a or gfx942, got '$ARCH'" ;; esac
case "$DTYPE" in fp32) cmd=conv ;; fp16) cmd=convfp16 ;; bf16) cmd=convbfp16 ;;
    *) die "DTYPE must be fp32, fp16 or bf16, got '$DTYPE'" ;; esac
case "$LAYOUT" in NCHW|NHWC) ;; *) die "LAYOUT must be NCHW or NHWC, got '$LAYOUT'" ;; esac
case "$BATCH" in ''|*[!0-9]*) die "BATCH must be a positive integer, got '$BATCH'" ;; esac
case "$FP16_ALT" in 0|1) ;; *) die "FP16_ALT must be 0 or 1" ;; esac
case "$HAZARDS" in warn|error) ;; *) die "HAZARDS must be warn or error" ;; esac
case "$ASSEMBLE_ONLY" in 0) ;; 1) [ -n "$CO_CACHE" ] || die "ASSEMBLE_ONLY=1 needs CO_CACHE=DIR" ;;
    *) die "ASSEMBLE_ONLY must be 0 or 1" ;; esac
OUT=${OUT:-$B/miopen-xdlops-$(basename "$SHAPES" .txt)-$ARCH-$DTYPE-$(echo "$LAYOUT" | tr A-Z a-z)-$BATCH$SUFFIX.md}
[ -n "$MIOPEN_ROOT" ] || die "usage: compare_miopen_xdlops.sh /path/to/MIOpen (a MIOpen checkout)"
KDIR=$MIOPEN_ROOT/src/kernels/dynamic_igemm
[ -d "$KDIR" ] || die "$KDIR: no such directory (the argument must be a MIOpen checkout's top directory)"
[ -f "$SHAPES" ] || die "$SHAPES: no such file"
[ -z "$MIOPEN_FROM" ] || [ -f "$MIOPEN_FROM" ] || die "MIOPEN_FROM=$MIOPEN_FROM: no such file"
for f in "$IGEMM" "$HELPER"; do [ -x "$f" ] || die "$f is missing (run: make B=$B $f)"; done
[ -f "$B/co/$ARCH.hsaco" ] || die "$B/co/$ARCH.hsaco is missing (run: make B=$B)"

tmp=$(mktemp -d /tmp/igemm-miopen-xdlops.XXXXXX) || die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT INT TERM
COD=${CO_CACHE:-$tmp/co}
mkdir -p "$COD" || die "cannot create $COD"
if [ -n "$MIOPEN_FROM" ]; then
    # one table, of this target, type, layout, batch (and gfx90a fp16's
    # implementation): MIOpen's columns depend on all of them, not on our flags
    cp "$MIOPEN_FROM" "$tmp/from.md" || die "cannot read $MIOPEN_FROM"
    [ "$(grep -c '^Batch ' "$tmp/from.md")" = 1 ] || die "MIOPEN_FROM=$MIOPEN_FROM: not one table (one 'Batch ...' line)"
    head1=$(grep '^Batch ' "$tmp/from.md")
    want_alt=""
    [ "$ARCH $DTYPE" = "gfx90a fp16" ] && want_alt="alternate implementation $( [ "$FP16_ALT" = 1 ] && echo on || echo off)"
    case "$head1" in "Batch $BATCH, "*", $ARCH $DTYPE $LAYOUT"*"$want_alt"*) ;;
        *) die "MIOPEN_FROM=$MIOPEN_FROM: a table of another batch, target, type, layout or implementation ($head1)" ;; esac
fi

EMU_FLAGS="--threads $THREADS --hazards $HAZARDS"
. "$(dirname "$0")/compare_miopen_lib.sh"

# assemble the plan's "asm FILE SYM=V..." line once; the code object's path in $co
assemble() {
    file=$1
    shift
    key=$(printf '%s %s' "$file" "$*" | cksum | cut -d' ' -f1)
    co=$COD/$ARCH-$key.hsaco
    [ -f "$co" ] && [ -f "$co.names" ] && return 0
    src=$(find "$KDIR" -name "$file" -print | head -1)
    [ -n "$src" ] || { echo "$file not found under $KDIR" > "$tmp/fault"; return 1; }
    miopen_assemble "$ARCH" "$co" "$src" "$@" || return 1
    # the kernel's argument names in order, read from its metadata (MIOpen's
    # directories spell them differently, hi_ or hi; its invoker passes them
    # by position, and the plan gives values only, in that order)
    kernel_args "$src" "$(basename "$file" .s)" > "$co.names"
}

# MIOpen's launches of problem $1 (plan lines in $tmp/plan); 0 when all ran
# (the verification's line is left in $tmp/verify)
run_miopen() {
    problem=$1
    dx_bytes=$(sed -n 's/^dx //p' "$tmp/plan")
    ws_bytes=$(sed -n 's/^ws //p' "$tmp/plan")
    dx="zeros:$dx_bytes" ws="zeros:$ws_bytes"
    launches_begin $problem || return 1
    i=0
    while read -r kind rest; do
        i=$((i + 1))
        set -- $rest
        case $kind in
        dx|ws) continue ;;
        asm) assemble "$@" || return 1 ;;
        zero)
            eval "cur=\$$1"
            run_launch "zero fill" --co "$B/co/$ARCH.hsaco" --kernel "$2" --grid "$3,1,1" --block "$4,1,1" \
                --arg p_out="$cur" --arg dwords="$5" --arg pad0=0 --dump p_out="$tmp/$1$i.bin" || return 1
            eval "$1=@$tmp/$1$i.bin"
            ;;
        model)
            eval "size=\$${1}_bytes"
            run_launch "cast (stand-in)" --co "$B/co/$ARCH.hsaco" --kernel "$2" --grid "$3,1,1" --block "$4,1,1" \
                --arg p_out="zeros:$size" --arg dwords="$5" --arg pad0=0 || return 1
            ;;
        launch)
            k=$1 grid=$2 block=$3 buf=$4
            shift 4
            eval "cur=\$$buf"
            bind_args "$co.names" "$@" || return 1
            run_launch "$k" --co "$co" --kernel "$k" --grid "$grid,1,1" --block "$block,1,1" --arg "$pin=$cur" \
                --arg "$pwei=@$tmp/w.bin" --arg "$pout=@$tmp/dy.bin" $args --dump "$pin=$tmp/$buf$i.bin" || return 1
            eval "$buf=@$tmp/$buf$i.bin"
            echo "$k" >> "$tmp/kernels"
            ;;
        cast)
            "$HELPER" cast --ws "${ws#@}" --dx "$tmp/dx$i.bin" $problem || return 1
            dx=@$tmp/dx$i.bin
            ;;
        esac
    done < "$tmp/plan"
    verify_dx $problem
}

# MIOPEN_FROM: MIOpen's columns of layer $1 (comment $2) from the earlier
# table into m_k, m_n, m_us, m_lim and m_ver (status=1 where that verdict
# failed, as the run did); 1, with a row saying why, when there are none
miopen_from() {
    row=$(grep -F "| \`$1\` " "$tmp/from.md" | head -1)
    if [ -z "$row" ]; then
        echo "  FAIL   $1: no row in $MIOPEN_FROM" >&2
        echo "| \`$1\` $2 | no row in $MIOPEN_FROM | | FAIL | | | |" >> "$OUT.rows"
        return 1
    fi
    kn=$(printf '%s\n' "$row" | awk -F ' [|] ' '{ print $2 }')
    usl=$(printf '%s\n' "$row" | awk -F ' [|] ' '{ print $3 }')
    m_ver=$(printf '%s\n' "$row" | awk -F ' [|] ' '{ print $4 }')
    case "$usl" in
    [0-9]*" ("*")") ;;
    *)
        echo "  FAIL   $1: MIOpen did not run in $MIOPEN_FROM" >&2
        echo "| \`$1\` $2 | did not run in $MIOPEN_FROM: $kn | | FAIL | | | |" >> "$OUT.rows"
        return 1 ;;
    esac
    m_us=${usl%% (*} m_lim=${usl#* (} m_k=${kn%, *} m_n=${kn##*, }
    m_lim=${m_lim%)}
    case "$m_ver" in FAIL*|error*) status=1 ;; esac
}

lay="-I $LAYOUT -O $LAYOUT -f $LAYOUT"
rows_begin "" ""
echo "compare-miopen-xdlops: $SHAPES at batch $BATCH, $ARCH $DTYPE $LAYOUT, timing model (modeled, not measured), MIOpen from $MIOPEN_ROOT${MIOPEN_FROM:+ (its times from $MIOPEN_FROM)}"
status=0 nrun=0 logsum=0 worst=0 worst_layer=- npass=0 logpass=0
while IFS= read -r line; do
    layer_problem "$line" "$cmd" || continue
    prob="$prob $lay"
    if ! "$HELPER" plan --arch "$ARCH" --miopen-root "$MIOPEN_ROOT" --fp16-alt "$FP16_ALT" $prob > "$tmp/plan"; then
        status=1
        continue
    fi
    short=$(printf '%s\n' "$prob" | sed "s/^$cmd //; s/ -[lj] 1//g; s/ -g 1//; s/ -F 2//; s/ $lay//")
    if [ "$ASSEMBLE_ONLY" = 1 ]; then
        grep '^asm ' "$tmp/plan" | while read -r _ rest; do assemble $rest || { cat "$tmp/fault" >&2; exit 1; }; done ||
            status=1
        continue
    fi
    plan_skipped "$short" "$note" "| | | | | |" && continue
    if [ -n "$MIOPEN_FROM" ]; then
        miopen_from "$short" "$note" || { status=1; continue; }
    else
        miopen_ran "$prob" "$short" "$note" "| | | |" || { status=1; continue; }
        miopen_result
        [ "$m_ver" = FAIL ] && { status=1; m_ver="FAIL ($(sed -n 's/.*max err\/allowed \([^:]*\):.*/\1/p' "$tmp/verify")x allowed)"; }
        hz=$(sort -u "$tmp/hazards" | tr '\n' ' ' | sed 's/ $//')
        [ -n "$hz" ] && m_ver="$m_ver; hazard $hz"
        m_k=$(sort -u "$tmp/kernels" | sed 's/^igemm_bwd_gtcx[0-9]*_n[a-z]*_[a-z0-9]*_//' | tr '\n' ' ' | sed 's/ $//')
        m_n=$(grep -c '^zero\|^launch\|^cast' "$tmp/plan")
    fi
    if ! ours_ran "$short" $prob --arch "$ARCH" --json --seed "$SEED" --threads "$THREADS" $OURS_FLAGS; then
        echo "| \`$short\` $note | $m_k, $m_n | $m_us ($m_lim) | $m_ver | failed: $(tail -1 "$tmp/ours.log" | cut -c1-200) | | |" >> "$OUT.rows"
        status=1
        continue
    fi
    o_sol=$(printf '%s\n' "$o_sol" | sed 's/^igemm_bwd_v4r1_[a-z0-9]*_[a-z0-9]*_[a-z0-9]*_//')
    ratio=$(awk -v o="$o_us" -v m="$m_us" 'BEGIN { printf "%.3f", o / m }')
    nrun=$((nrun + 1))
    logsum=$(awk -v s="$logsum" -v r="$ratio" 'BEGIN { printf "%.9f", s + log(r) }')
    if awk -v a="$ratio" -v b="$worst" 'BEGIN { exit !(a > b) }'; then worst=$ratio worst_layer=$short; fi
    case "$m_ver" in PASS*)
        npass=$((npass + 1))
        logpass=$(awk -v s="$logpass" -v r="$ratio" 'BEGIN { printf "%.9f", s + log(r) }') ;;
    esac
    echo "  ran    $short: MIOpen $m_us us ($m_ver), ours $o_us us ($o_sol), ratio $ratio"
    echo "| \`$short\` $note | $m_k, $m_n | $m_us ($m_lim) | $m_ver | $o_sol, $o_n | $o_us ($o_lim) | $ratio |" >> "$OUT.rows"
done < "$SHAPES"
if [ "$ASSEMBLE_ONLY" = 1 ]; then
    echo "compare-miopen-xdlops: $(ls "$COD"/*.hsaco 2> /dev/null | wc -l) code objects in $COD"
    exit $status
fi
geomean() { awk -v s="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.3f", exp(s / n); else print "-" }'; }
geo=$(geomean "$logsum" "$nrun")
write_report "$(
    variant=""
    [ "$ARCH $DTYPE" = "gfx90a fp16" ] && variant=", MIOpen's fp16 alternate implementation $( [ "$FP16_ALT" = 1 ] && echo on || echo off)"
    [ -n "$OURS_FLAGS" ] && variant="$variant, ours with $OURS_FLAGS"
    echo "Batch $BATCH, $SHAPES, $ARCH $DTYPE $LAYOUT$variant, modeled by the timing model on the target's reference product (docs/TIMING.md):"
    echo "$nrun layers where MIOpen's rule lets its kernels run and both ran; ours / MIOpen geomean $geo, worst $worst"
    echo "(\`$worst_layer\`); over the $npass layers where MIOpen's dx passes the verification, geomean $(geomean "$logpass" "$npass")."
)"
exit $status
