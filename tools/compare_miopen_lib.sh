# Shell functions shared by tools/compare_miopen.sh and
# tools/compare_miopen_xdlops.sh (sourced, not run). They need $IGEMM (the
# igemm CLI), $tmp (the run's temporary directory) and $EMU_FLAGS (extra
# emu-run flags, may be empty). The kernels' argument names are read from
# the user's kernel files, never written here.

# the value of a "key": "string" or "key": number field of a JSON line
jfield() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \"\{0,1\}\([^\",}]*\).*/\1/p"; }
# the first "modeled time: X us ..., limit: L" line of emu-run --stats: "X L"
# (other lines of --stats, before or after it, are left alone)
modeled() { sed -n 's/^[[:space:]]*modeled time: \([0-9.]*\) us.*limit: \([A-Za-z0-9_-]*\).*/\1 \2/p' "$1" | head -1; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }

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
