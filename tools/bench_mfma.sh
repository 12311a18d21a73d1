#!/bin/sh
# make bench-mfma: the matrix-core kernels against this project's FMA kernels
# on every MFMA target, in the timing model (docs/TIMING.md: modeled, not
# measured), on the ResNet-50 layers at batch $BATCH (default 32), per data
# type and layout.
#
# For each type, layout, target and layer it runs `igemm conv|convfp16|convbfp16
# --json` twice with the library's default selection: as is (the heuristic
# picks among every configuration; on these targets that is an MFMA one), and
# with IGEMM_DISABLE_MATH=mfma (the best the FMA kernels do). It writes a
# markdown section per type, layout and target to $OUT (default
# docs/PERFORMANCE_MFMA.md): the picks, modeled time, TFLOP/s, share of the
# target's matrix peak for that type (`igemm arch --peak`, computed from the
# MFMA table), the limiting resource, and FMA time / MFMA time.
#
#   B=build BATCH=32 TARGETS="gfx908 gfx90a gfx942" DTYPES="fp32 fp16 bf16" \
#   LAYOUTS="NCHW NHWC" LIST=tests/shapes/resnet50.txt sh tools/bench_mfma.sh
#
# DTYPES: the data types (fp32, fp16, bf16; each its own sections). LAYOUTS:
# the layouts (every tensor in that layout); with both, a last table per type
# gives NHWC time / NCHW time per layer. LIST: the shape list (default
# $SHAPES/resnet50.txt); its -n is replaced by BATCH. Progress on stderr.
# COMMIT: the revision the header says it measured (default `git describe
# --always --dirty`).
# EXTRA: flags added to every run (e.g. EXTRA="--fp16_mode flush": gfx90a's
# flushing fp16 dot kernels too), named in the section titles.
# JOBS (default 1): runs of igemm at once; with more, every run is made
# first, JOBS at a time (xargs -P), and the tables are written from their
# results (the same document, sooner on a machine with many cores).
# CACHE=DIR keeps every run's --json line in DIR (one file per run, named by
# its arguments) and skips the runs already there: the runs can be made in
# parts (e.g. TARGETS=gfx942 on another machine) and the document written
# from the union. Empty DIR whenever a kernel, the heuristic or the model
# changes. Without CACHE the runs go to a temporary directory.
set -u

B=${B:-build}
BATCH=${BATCH:-32}
TARGETS=${TARGETS:-gfx908 gfx90a gfx942}
DTYPES=${DTYPES:-fp32 fp16 bf16}
LAYOUTS=${LAYOUTS:-NCHW NHWC}
SHAPES=${SHAPES:-tests/shapes}
LIST=${LIST:-$SHAPES/resnet50.txt}
OUT=${OUT:-docs/PERFORMANCE_MFMA.md}
COMMIT=${COMMIT:-$(git describe --always --dirty 2>/dev/null || echo unknown)}
GOAL=60 # percent of the type's matrix peak (issue 11's goal for large layers)
IGEMM=$B/bin/igemm
[ -x "$IGEMM" ] || { echo "bench-mfma: $IGEMM is missing (run: make B=$B)" >&2; exit 2; }
[ -f "$LIST" ] || { echo "bench-mfma: $LIST is missing" >&2; exit 2; }

# MIOpenDriver's command word of a data type
command_of() {
    case "$1" in
    fp32) echo conv ;;
    fp16) echo convfp16 ;;
    bf16) echo convbfp16 ;;
    *) return 1 ;;
    esac
}
for dt in $DTYPES; do
    command_of "$dt" > /dev/null || { echo "bench-mfma: DTYPES: unknown data type '$dt' (fp32, fp16, bf16)" >&2; exit 2; }
done
for lay in $LAYOUTS; do
    case "$lay" in NCHW | NHWC) ;; *) echo "bench-mfma: LAYOUTS: unknown layout '$lay' (NCHW, NHWC)" >&2; exit 2 ;; esac
done
nlayers=$(sed 's/#.*//' "$LIST" | grep -c conv)
[ "$nlayers" -gt 0 ] || { echo "bench-mfma: $LIST holds no conv lines" >&2; exit 2; }

. "$(dirname "$0")/json_field.sh"

# One run's --json line: MODE (mfma: the default selection; fma: with
# IGEMM_DISABLE_MATH=mfma) and igemm's arguments; from the JOBS prefetch when
# it made the run.
JOBS=${JOBS:-1}
EXTRA=${EXTRA:-}
KEEP_CACHE=${CACHE:+1}
CACHE=${CACHE:-$(mktemp -d)}
mkdir -p "$CACHE" || { echo "bench-mfma: CACHE: cannot make $CACHE" >&2; exit 2; }
export IGEMM CACHE
run_key() { printf '%s\n' "$*" | cksum | tr ' ' _; }
run_one='k=$1; mode=$2; shift 2
    [ -s "$CACHE/$k" ] && exit 0
    if [ "$mode" = fma ]; then IGEMM_DISABLE_MATH=mfma "$IGEMM" "$@" --json; else "$IGEMM" "$@" --json; fi 2>/dev/null |
        grep "^{" | tail -n 1 > "$CACHE/$k.tmp" && mv "$CACHE/$k.tmp" "$CACHE/$k"'
run_json() {
    k=$(run_key "$@")
    [ -s "$CACHE/$k" ] || sh -c "$run_one" _ "$k" "$@"
    cat "$CACHE/$k"
}
# every layer's arguments after the list's command word (conv, convfp16, ...)
layers() {
    while IFS= read -r line; do
        args=${line%%#*}
        case "$args" in *conv*) ;; *) continue ;; esac
        args=${args#*conv}
        printf '%s\n' "${args#*[[:space:]]}"
    done < "$LIST"
}
if [ "$JOBS" -gt 1 ]; then
    runs=$(mktemp)
    # every MFMA run first (the picks' times), then the FMA ones (the slow
    # 16-bit FMA kernels): a run cut short keeps the main column (CACHE)
    for mode in mfma fma; do for dt in $DTYPES; do for lay in $LAYOUTS; do for t in $TARGETS; do
        layers | while IFS= read -r args; do
            # shellcheck disable=SC2086 # the layer's flags are split on purpose
            set -- "$mode" "$(command_of "$dt")" $args --batch "$BATCH" --arch "$t" \
                --in_layout "$lay" --out_layout "$lay" --fil_layout "$lay" $EXTRA
            printf '%s' "$(run_key "$@")"; printf ' %s' "$@"; echo
        done
    done; done; done; done > "$runs"
    echo "bench-mfma: $(wc -l < "$runs") runs, $JOBS at a time" >&2
    xargs -P "$JOBS" -L 1 sh -c "$run_one" _ < "$runs"
    rm -f "$runs"
fi

head=$(mktemp)
tmp=$(mktemp)
times=$(mktemp)
if [ -n "$KEEP_CACHE" ]; then
    trap 'rm -f "$head" "$tmp" "$times"' EXIT
else
    trap 'rm -rf "$head" "$tmp" "$times" "$CACHE"' EXIT
fi
{
    echo "# Matrix-core (MFMA) kernels against the FMA kernels, in the timing model"
    echo
    echo "Generated by \`make bench-mfma\` (tools/bench_mfma.sh) at commit $COMMIT: the $nlayers backward-data layers of"
    echo "\`$LIST\` at batch $BATCH, in each of the data types $DTYPES and layouts $LAYOUTS,"
    echo "on the emulator of each target with the library's default selection."
    echo "Every time here is **modeled** by the timing model (docs/TIMING.md) for the"
    echo "target's reference product, not measured on hardware."
    echo
    echo "Columns: *MFMA pick* is the heuristic's configuration (\`igemm_bwd_v4r1_\` left out),"
    echo "*us* its modeled time, *TFLOP/s* useful FLOPs (2 N C/G K Ho Wo Y X) over that time,"
    echo "*of peak* that rate as a share of the target's dense matrix peak **for the data type**"
    echo "(\`igemm arch --peak TYPE\`: the fastest MFMA of that A/B type in arch/mfma.def,"
    echo "2 M N K blocks / cycles per SIMD, x SIMDs x CUs x clock; the goal is >= $GOAL% on"
    echo "large layers), *limit* the resource the model finds busiest, *FMA pick* / *FMA us* the"
    echo "same with \`IGEMM_DISABLE_MATH=mfma\` (the vector-ALU kernels), *FMA / MFMA* their ratio."
    echo "The fp16 and bf16 picks run on the 16-bit MFMAs (k-quad LDS tiles, docs/KERNELS.md); on"
    echo "gfx90a, whose f16 MFMAs flush subnormals, the fp16 kernels stay exact in the accurate"
    echo "default by multiplying the matrix steps that hold a subnormal on the f32 MFMAs"
    echo "(docs/KERNELS.md \"Exact 16-bit MFMAs on gfx90a\"); each 16-bit section's title also gives the fp32"
    echo "matrix peak (\`igemm arch\` lists every peak). Dynamic against static twins, per type and layout:"
    echo "\`make bench-twins\` (docs/PERFORMANCE_TWINS.md)."
} > "$head"
for dt in $DTYPES; do
cmd=$(command_of "$dt")
for lay in $LAYOUTS; do
lf="--in_layout $lay --out_layout $lay --fil_layout $lay"
for t in $TARGETS; do
    peak_tf=$("$IGEMM" arch --arch "$t" --peak "$dt") || exit 1
    f32=
    [ "$dt" = fp32 ] || f32=$(printf '; fp32 %.1f' "$("$IGEMM" arch --arch "$t" --peak fp32)") || exit 1
    {
        echo
        printf '## %s, %s, %s%s (%s matrix peak %.1f TFLOP/s%s)\n' "$t" "$dt" "$lay" "${EXTRA:+, $EXTRA}" "$dt" \
            "$peak_tf" "$f32"
        echo
        echo "| layer | MFMA pick | us | TFLOP/s | of peak | limit | FMA pick | FMA us | FMA / MFMA |"
        echo "|---|---|---:|---:|---:|---|---|---:|---:|"
    } >> "$tmp"
    i=0
    tot_m=0
    tot_f=0
    tot_flop=0
    at_goal=0
    while IFS= read -r args; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # the layer's flags are split on purpose
        m=$(run_json mfma "$cmd" $args --batch "$BATCH" --arch "$t" $lf $EXTRA)
        # shellcheck disable=SC2086
        f=$(run_json fma "$cmd" $args --batch "$BATCH" --arch "$t" $lf $EXTRA)
        mu=$(json_field "$m" modeled_us)
        fu=$(json_field "$f" modeled_us)
        flops=$(json_field "$m" flops)
        [ -n "$mu" ] && [ -n "$fu" ] || { echo "bench-mfma: $t $dt $lay layer $i: no modeled time ($cmd$args)" >&2; exit 1; }
        tf=$(json_field "$m" modeled_tflops)
        row=$(awk -v i="$i" -v ms="$(json_field "$m" solution)" -v mu="$mu" -v tf="$tf" \
            -v pk="$peak_tf" -v lim="$(json_field "$m" limit)" -v fs="$(json_field "$f" solution)" -v fu="$fu" 'BEGIN {
                sub(/^igemm_bwd_v4r1_/, "", ms); sub(/^igemm_bwd_v4r1_/, "", fs)
                printf "| %d | %s | %.1f | %.2f | %.1f%% | %s | %s | %.1f | %.2f |", i, ms, mu, tf, 100 * tf / pk, lim, fs, fu, fu / mu }')
        echo "$row" >> "$tmp"
        at_goal=$(awk -v a="$at_goal" -v tf="$tf" -v pk="$peak_tf" -v g="$GOAL" 'BEGIN { print a + (100 * tf / pk >= g) }')
        tot_m=$(awk -v a="$tot_m" -v b="$mu" 'BEGIN { print a + b }')
        tot_f=$(awk -v a="$tot_f" -v b="$fu" 'BEGIN { print a + b }')
        tot_flop=$(awk -v a="$tot_flop" -v b="$flops" 'BEGIN { print a + b }')
        echo "$dt $t $lay $i $mu $(awk -v tf="$tf" -v pk="$peak_tf" 'BEGIN { printf "%.4f", 100 * tf / pk }')" >> "$times"
        echo "bench-mfma: $t $dt $lay $i/$nlayers" >&2
    done <<EOF_LAYERS
$(layers)
EOF_LAYERS
    awk -v m="$tot_m" -v f="$tot_f" -v fl="$tot_flop" -v pk="$peak_tf" -v n="$i" -v ag="$at_goal" -v g="$GOAL" 'BEGIN {
        printf "\nAll layers: MFMA %.0f us (%.2f TFLOP/s, %.1f%% of peak), FMA %.0f us; FMA / MFMA = %.2f. Layers at >= %d%% of peak: %d of %d.\n",
            m, fl / m / 1e6, 100 * fl / m / 1e6 / pk, f, f / m, g, ag, n }' >> "$tmp"
done
done
case "$LAYOUTS" in *NCHW*NHWC* | *NHWC*NCHW*)
    {
        echo
        echo "## NHWC against NCHW, $dt (MFMA picks, modeled time NHWC / NCHW; goal <= 1.00)"
        echo
        printf '| layer |'; for t in $TARGETS; do printf ' %s |' "$t"; done; echo
        printf '|---|'; for t in $TARGETS; do printf -- '---:|'; done; echo
        awk -v targets="$TARGETS" -v dt="$dt" '$1 == dt { us[$2 " " $3 " " $4] = $5; if ($4 > n) n = $4 }
            END { nt = split(targets, T, " ");
                  for (i = 1; i <= n; i++) { printf "| %d |", i;
                      for (k = 1; k <= nt; k++) printf " %.2f |", us[T[k] " NHWC " i] / us[T[k] " NCHW " i]; print "" }
                  printf "| all |";
                  for (k = 1; k <= nt; k++) { a = 0; b = 0;
                      for (i = 1; i <= n; i++) { a += us[T[k] " NHWC " i]; b += us[T[k] " NCHW " i] }
                      printf " %.2f |", a / b }
                  print "" }' "$times"
    } >> "$tmp" ;;
esac
done
# the summaries: per target, type and layout the layers' summed time, the
# median layer's share of the type's peak and the best layer's
summary_cell() {
    awk -v dt="$1" -v t="$2" -v lay="$3" '$1 == dt && $2 == t && $3 == lay { print $6, $5 }' "$times" | sort -n |
        awk '{ p[NR] = $1; s += $2 }
             END { if (!NR) { printf " - |"; exit }
                   m = NR % 2 ? p[(NR + 1) / 2] : (p[NR / 2] + p[NR / 2 + 1]) / 2
                   printf " %.0f us, %.1f%%, %.1f%% |", s, m, p[NR] }'
}
{
    for t in $TARGETS; do
        echo
        echo "**$t at batch $BATCH, in short**"
        echo
        printf '| type |'; for lay in $LAYOUTS; do printf ' %s: sum, median, best |' "$lay"; done; echo
        printf '|---|'; for lay in $LAYOUTS; do printf -- '---|'; done; echo
        for dt in $DTYPES; do
            printf '| %s |' "$dt"
            for lay in $LAYOUTS; do summary_cell "$dt" "$t" "$lay"; done
            echo
        done
    done
    echo
    echo "In the summaries: the sum of the $nlayers layers' modeled times; the median layer's share of the"
    echo "type's matrix peak; the best layer's."
} >> "$head"
cat "$head" "$tmp" > "$OUT"
echo "bench-mfma: wrote $OUT"
