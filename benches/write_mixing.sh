#!/usr/bin/env bash
# Whether generators whose shares fit a write-back cache keep them when
# they mostly write (docs/PREDICTION.md, "Writes that keep the shares
# mixed"): on sim:PRESET (default ssd), 2, 4 and 8 generators over
# uniqueBytes of C/0.7 and C/0.85 (C the cache the profile's read probe
# found, else the preset's), requests of 64 KiB and 512 KiB, seqFrac 0.3,
# readFrac 0, 0.1, 0.2, 0.4 and 1, with the tests' short stopping rule.
# About 2 minutes on 2 cores for ssd.
#
#   bash benches/write_mixing.sh [OUT_DIR [PROFILE]]
#   PRESET=raid0 bash benches/write_mixing.sh ...
#
# Prints each run's throughput and its fastest generator's over its
# slowest (`generators_bytes_per_sec`: about 1 where every generator runs
# alike, the shares mixed; far above 1 where the shares that fit run from
# the cache apart from the others), and with PROFILE (the preset's, from
# `bash benches/validate_presets.sh`) each model's prediction over what
# was measured.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
profile=${2:-}
preset=${PRESET:-ssd}
mkdir -p "$out"
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
willy="$here/target/release/willy"
if [ -n "$profile" ]; then
    cache=$(jq '.caches[] | select(.probe == "reads") | .size_bytes' "$profile")
else
    cache=$("$willy" sim presets | awk -v p="$preset" '$1 == p { print $3 $4 }' | sed 's/iB$//' | numfmt --from=iec)
fi
procs=(2 4 8)
fits=(0.7 0.85)
sizes=(64KiB 512KiB)
reads=(0 0.1 0.2 0.4 1)
for n in "${procs[@]}"; do
    for f in "${fits[@]}"; do
        u=$(awk -v c="$cache" -v f="$f" 'BEGIN { printf "%.0f", int(c / f / 4096) * 4096 }')
        for z in "${sizes[@]}"; do
            for r in "${reads[@]}"; do
                "$willy" run -t "sim:$preset" --unique-bytes "$u" --size-mean "$z" \
                    --read-frac "$r" --seq-frac 0.3 --process-num "$n" \
                    --min-time 1s --max-time 20s --interval 50ms \
                    --json "$out/$n-$f-$z-$r.json" >/dev/null 2>&1 &
            done
            wait
        done
    done
done
runs=()
for n in "${procs[@]}"; do for f in "${fits[@]}"; do for z in "${sizes[@]}"; do for r in "${reads[@]}"; do
    runs+=("$out/$n-$f-$z-$r.json")
done; done; done; done
jq -s '[.[].workload]' "${runs[@]}" >"$out/workloads.json"
models=()
if [ -n "$profile" ]; then
    for model in willy chen; do
        "$willy" predict --model "$model" --profile "$profile" \
            --json "$out/$model.json" "$out/workloads.json" >/dev/null
        models+=("$model")
    done
fi
printf '%-3s %-5s %-7s %-4s %12s %9s' N C/U size read 'GB/s' 'max/min'
for m in "${models[@]}"; do printf ' %8s' "$m"; done
echo
i=0
for n in "${procs[@]}"; do for f in "${fits[@]}"; do for z in "${sizes[@]}"; do for r in "${reads[@]}"; do
    run="$out/$n-$f-$z-$r.json"
    line=$(jq -r '[.throughput_bytes_per_sec / 1e9, (.generators_bytes_per_sec | max / min)] | @tsv' "$run")
    printf '%-3s %-5s %-7s %-4s %12.2f %9.1f' "$n" "$f" "$z" "$r" $line
    for m in "${models[@]}"; do
        printf ' %8.2f' "$(jq --argjson i "$i" --slurpfile run "$run" \
            '.predictions[$i].predicted_throughput_bytes_per_sec / $run[0].throughput_bytes_per_sec' "$out/$m.json")"
    done
    echo
    i=$((i + 1))
done; done; done; done
echo "files in $out" >&2
