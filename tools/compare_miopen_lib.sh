# Shell functions shared by tools/compare_miopen.sh and
# tools/compare_miopen_xdlops.sh (sourced, not run). They need $IGEMM (the
# igemm CLI), $tmp (the run's temporary directory), $EMU_FLAGS (extra
# emu-run flags, may be empty) and, for miopen_assemble, $LLVM_BIN. The kernels' argument names are read from
# the user's kernel files, never written here.

. "$(dirname "$0")/json_field.sh"
# the first "modeled time: X us ..., limit: L" line of emu-run --stats: "X L"
# (other lines of --stats, before or after it, are left alone)
modeled() { sed -n 's/^[[:space:]]*modeled time: \([0-9.]*\) us.*limit: \([A-Za-z0-9_-]*\).*/\1 \2/p' "$1" | head -1; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }

# assemble MIOpen's kernel source $3 for target $1 into the code object $2,
# the rest of the arguments its --defsym values: llvm-mc 19 ($LLVM_BIN) for
# $1:xnack- (MIOpen's descriptors say .amdhsa_reserve_xnack_mask 0, which
# LLVM 19 accepts only without XNACK), the source's directory on the include
# path, linked with ld.lld; returns 1 with the reason in $tmp/fault (the
# tool's first lines on stderr)
miopen_assemble() {
    a_arch=$1 a_out=$2 a_src=$3
    shift 3
    a_defs=""
    for d in "$@"; do a_defs="$a_defs --defsym $d"; done
    if ! "$LLVM_BIN/llvm-mc" -triple=amdgcn-amd-amdhsa -mcpu="$a_arch" -mattr=-xnack -filetype=obj $a_defs \
        -I "$(dirname "$a_src")" "$a_src" -o "$tmp/m.o" 2> "$tmp/mc.log"; then
        head -5 "$tmp/mc.log" >&2
        echo "llvm-mc cannot assemble $a_src for $a_arch" > "$tmp/fault"
        return 1
    fi
    "$LLVM_BIN/ld.lld" -shared "$tmp/m.o" -o "$a_out" 2> "$tmp/ld.log" ||
        { head -5 "$tmp/ld.log" >&2; echo "ld.lld failed on $a_src" > "$tmp/fault"; return 1; }
}

# emu-run one launch: $1 label, then emu-run's arguments; adds its modeled
# time to $tmp/us, keeps the limit of the longest launch in $tmp/limit and
# the hazard rules a --hazards warn run was short of in $tmp/hazards; the
# last line of a failed run in $tmp/fault; returns 1 when it failed
run_launch() {
    label=$1
    shift
    if ! "$IGEMM" emu-run "$@" --stats $EMU_FLAGS > "$tmp/run.log" 2>&1; then
        echo "  $label: emu-run failed:" >&2
        tail -3 "$tmp/run.log" >&2
        tail -1 "$tmp/run.log" | sed 's/^igemm: //; s/|/\\|/g' | cut -c1-300 > "$tmp/fault"
        return 1
    fi
    sed -n 's/.*: hazard \([a-z0-9-]*\): .*/\1/p' "$tmp/run.log" >> "$tmp/hazards"
    set -- $(modeled "$tmp/run.log")
    [ $# -eq 2 ] || { echo "  $label: no modeled time (launch not timed)" >&2; echo "not timed" > "$tmp/fault"; return 1; }
    echo "$(add "$(cat "$tmp/us")" "$1")" > "$tmp/us"
    if awk -v a="$1" -v b="$(cat "$tmp/longest")" 'BEGIN { exit !(a > b) }'; then
        echo "$1" > "$tmp/longest"
        echo "$2" > "$tmp/limit"
    fi
}

# the argument names of kernel $2 in the metadata of kernel file $1 (the
# amdhsa.kernels block), in order
kernel_args() {
    awk -v k="$2" '/^[[:space:]]*- \.name:/ { on = $3 == k; next }
        on && /\{ *\.name:/ { sub(/.*\{ *\.name: */, ""); sub(/[ ,}].*/, ""); print }' "$1"
}

# name a plan's argument values ($2...) by the kernel's names in file $1:
# the first three names (its pointers dx, w, dy) go to $pin $pwei $pout,
# the rest, with the values, to $args ("--arg NAME=VALUE..."); returns 1
# with a line in $tmp/fault when the counts differ
bind_args() {
    names=$1
    shift
    vals=$*
    nv=$#
    set -- $(cat "$names")
    [ $# -eq $((nv + 3)) ] || { echo "the kernel takes $# arguments, the plan gives $((nv + 3))" > "$tmp/fault"; return 1; }
    pin=$1 pwei=$2 pout=$3
    shift 3
    args=""
    for a in $vals; do
        args="$args --arg $1=$a"
        shift
    done
}

# The per-layer steps both scripts take, in order (they also need $HELPER,
# $SEED, $VERIFY, $OUT and the script's own run_miopen).

# the table's first two lines into $OUT.rows: the common columns, then
# those of $1 (" <= 0.95 |" for compare_miopen.sh) with their rule $2
rows_begin() {
    echo "| layer | MIOpen kernel, launches | MIOpen us (limit) | MIOpen dx | ours | ours us (limit) | ours / MIOpen |$1" \
        > "$OUT.rows"
    echo "|---|---|---:|---|---|---:|---:|$2" >> "$OUT.rows"
}

# a line $1 of the shapes file: 1 when it is no conv command, else its
# problem in $prob (the first word replaced by $2 when given, -n by $BATCH
# unless BATCH=0) and its comment in $note
layer_problem() {
    case "$1" in [[:space:]]*conv*|conv*) ;; *) return 1 ;; esac
    prob=$(printf '%s\n' "${1%%#*}" | sed "s/[[:space:]]*$//")
    [ -z "$2" ] || prob=$(printf '%s\n' "$prob" | sed "s/^[[:space:]]*conv[a-z0-9]* /$2 /")
    [ "$BATCH" = 0 ] || prob=$(printf '%s\n' "$prob" | sed "s/-n [0-9]*/-n $BATCH/")
    note=$(printf '%s\n' "$1" | sed -n 's/.*#[[:space:]]*//p')
}

# 0 when the plan in $tmp/plan says skip: the line, and the row of layer
# $1 (comment $2) with the empty cells $3
plan_skipped() {
    grep -q '^skip' "$tmp/plan" || return 1
    why=$(sed 's/^skip //' "$tmp/plan")
    echo "  skip   $1: $why"
    echo "| \`$1\` $2 | not applicable: $why $3" >> "$OUT.rows"
}

# run_miopen on problem $1: 0 when every launch ran, else the FAIL line and
# the row of layer $2 (comment $3) with the cells $4 after FAIL, and 1
miopen_ran() {
    : > "$tmp/kernels"
    echo "the helper failed" > "$tmp/fault"
    run_miopen "$1" && return 0
    echo "  FAIL   $2: MIOpen's kernel did not run" >&2
    echo "| \`$2\` $3 | did not run on the emulator: $(cat "$tmp/fault") | | FAIL $4" >> "$OUT.rows"
    return 1
}

# run_miopen's start for problem $*: the sums of run_launch reset, the
# random dy and w written
launches_begin() {
    echo 0 > "$tmp/us"
    echo 0 > "$tmp/longest"
    : > "$tmp/hazards"
    "$HELPER" fill --seed "$SEED" --dy "$tmp/dy.bin" --w "$tmp/w.bin" "$@"
}

# run_miopen's end: MIOpen's dx ($dx) verified against the reference of
# problem $*, the verdict's line in $tmp/verify ("not verified" with VERIFY=0)
verify_dx() {
    [ "$VERIFY" = 0 ] && { echo "not verified" > "$tmp/verify"; return 0; }
    "$HELPER" verify --seed "$SEED" --dx "${dx#@}" "$@" > "$tmp/verify" 2>&1 || true # read by miopen_result
}

# MIOpen's modeled time, limit and verdict of the last run in $m_us, $m_lim
# and $m_ver ("error" with status=1 and the helper's words when it gave
# none; a FAIL is the caller's to word)
miopen_result() {
    m_us=$(cat "$tmp/us")
    m_lim=$(cat "$tmp/limit")
    m_ver=$(sed -n 's/.*: \(PASS\|FAIL\)$/\1/p; s/^not verified$/not verified/p' "$tmp/verify")
    [ -n "$m_ver" ] || { m_ver=error; status=1; cat "$tmp/verify" >&2; }
}

# the summary lines $1, a blank line and the rows into $OUT, then printed
write_report() {
    { printf '%s\n\n' "$1"; cat "$OUT.rows"; } > "$OUT"
    rm -f "$OUT.rows"
    echo
    cat "$OUT"
}

# our run of layer $1: igemm with the arguments $2... (--json among them);
# 0 with its modeled time, solution, launches and limit in $o_us $o_sol
# $o_n $o_lim, else the FAIL line (igemm's words in $tmp/ours.log) and 1
ours_ran() {
    label=$1
    shift
    if ! js=$("$IGEMM" "$@" 2> "$tmp/ours.log"); then
        echo "  FAIL   $label: igemm conv failed: $(tail -1 "$tmp/ours.log")" >&2
        return 1
    fi
    o_us=$(json_field "$js" modeled_us)
    o_sol=$(json_field "$js" solution)
    o_n=$(json_field "$js" launches)
    o_lim=$(json_field "$js" limit)
}
