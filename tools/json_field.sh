# Sourced by the benchmark scripts: json_field JSON KEY, the value of the
# first "KEY": VALUE pair of igemm's one-line --json object, quotes
# stripped. The first: a key of the run (modeled_us, limit) comes before
# the per-launch records of modeled_launches, which repeat it for each
# launch of a multi-launch plan (a split's GEMM and reduction).
json_field() { printf '%s\n' "$1" | grep -o "\"$2\": \"\{0,1\}[^\",}]*" | head -1 | sed "s/^\"$2\": \"\{0,1\}//"; }
