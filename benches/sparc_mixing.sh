#!/usr/bin/env bash
# Which state sim:sparc1990's generators end in below the step of their hit
# curve (docs/PREDICTION.md, steps 24 and 28): 16 generators of 32 KiB,
# half sequential, over 40-80 MiB (the cache is 21 MiB; `C/U` below with
# the 22.2 MiB its profile infers), readFrac 0 to 0.9, four seeds each.
# About 40 seconds on 2 cores.
#
#   bash benches/sparc_mixing.sh [OUT_DIR [PROFILE]]
#   N=8 SIZE=512KiB bash benches/sparc_mixing.sh ...   # other generators, sizes
#
# Prints each run's throughput (MB/s: about 8 runs from the cache, about 1
# is mixed, at the disk's speed) by uniqueBytes and readFrac, then how
# many runs of each group ran from the cache (over 4 MB/s). With PROFILE
# (sim:sparc1990's, from `bash benches/validate_presets.sh`), also each
# model's median error over the runs (`willy predict`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
profile=${2:-}
n=${N:-16}
size=${SIZE:-32KiB}
mkdir -p "$out"
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
willy="$here/target/release/willy"
uniques=(40 45 50 55 60 65 70 80)
reads=(0.0 0.1 0.2 0.3 0.5 0.7 0.9)
for u in "${uniques[@]}"; do
    for r in "${reads[@]}"; do
        for s in 1 2 3 4; do
            "$willy" run -t sim:sparc1990 --unique-bytes "${u}MiB" --size-mean "$size" \
                --read-frac "$r" --seq-frac 0.5 --process-num "$n" --seed "$s" \
                --json "$out/$u-$r-$s.json" >/dev/null 2>&1 &
        done
        wait
    done
done
for u in "${uniques[@]}"; do
    for r in "${reads[@]}"; do
        for s in 1 2 3 4; do
            printf '%s %s %s\n' "$u" "$r" "$(jq '.throughput_bytes_per_sec / 1e6' "$out/$u-$r-$s.json")"
        done
    done
done | awk -v reads="${reads[*]}" '
    BEGIN { n = split(reads, rs, " "); printf "MiB  C/U "; for (i = 1; i <= n; i++) printf "| r %-18s", rs[i]; print "" }
    {
        cell[$1 " " $2] = cell[$1 " " $2] sprintf("%4.1f ", $3)
        if (!($1 in seen)) { seen[$1] = 1; us[++m] = $1 }
        cached = $3 > 4
        if ($2 >= 0.3 && $1 >= 50 && $1 <= 60) { a += cached; an++ }
        if ($2 >= 0.3 && $1 == 65) { b += cached; bn++ }
        if ($2 >= 0.3 && $1 >= 70) { c += cached; cn++ }
        if ($2 <= 0.1 && $1 >= 55) { d += !cached; dn++ }
    }
    END {
        for (j = 1; j <= m; j++) {
            printf "%3d %5.2f ", us[j], 22.2 / us[j]
            for (i = 1; i <= n; i++) printf "| %-20s", cell[us[j] " " rs[i]]
            print ""
        }
        printf "readFrac >= 0.3 from the cache: C/U 0.37-0.44 %d of %d, 0.34 %d of %d, 0.32 and below %d of %d\n", a, an, b, bn, c, cn
        printf "readFrac <= 0.1 mixed: C/U 0.40 and below %d of %d\n", d, dn
    }'
if [ -n "$profile" ]; then
    runs=("$out"/*-*-*.json)
    jq -s '[.[].workload]' "${runs[@]}" >"$out/workloads.json"
    jq -s '[.[].throughput_bytes_per_sec]' "${runs[@]}" >"$out/measured.json"
    for model in willy chen; do
        "$willy" predict --model "$model" --profile "$profile" \
            --json "$out/$model.json" "$out/workloads.json" >/dev/null
        jq -r --arg m "$model" --slurpfile meas "$out/measured.json" '
          [.predictions | to_entries[] | (.value.predicted_throughput_bytes_per_sec / $meas[0][.key] - 1) | fabs]
          | sort | "\($m): median error \(.[length / 2 | floor] * 1000 | round / 10)% over \(length) runs"
        ' "$out/$model.json"
    done
fi
echo "files in $out" >&2
