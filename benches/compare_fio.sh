#!/usr/bin/env bash
# `willy run --compare-fio` on an O_DIRECT 4 KiB random read: willy's
# throughput over fio's, fio run right after willy on willy's own files.
# Reports each run's ratio, and their median and range.
#
# Usage: bash benches/compare_fio.sh [DIR] [RUNS] [PROCS]
#   (default /tmp/willy-compare-fio, 5 runs, processNum 1)
set -euo pipefail
dir=${1:-/tmp/willy-compare-fio}
runs=${2:-5}
procs=${3:-1}
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release -q
mkdir -p "$dir"
ratios=()
for i in $(seq "$runs"); do
    r=$(target/release/willy run --target "$dir" --direct --compare-fio \
        --unique-bytes 1GiB --size-mean 4KiB --read-frac 1 --seq-frac 0 \
        --process-num "$procs" --min-time 10s --max-time 20s --json - 2>/dev/null |
        jq -r '"\(.throughput_bytes_per_sec / 4096 | round) \(.compare_fio.fio_throughput_bytes_per_sec / 4096 | round) \(.compare_fio.ratio)"')
    echo "run $i: willy IOPS, fio IOPS, ratio: $r"
    ratios+=("${r##* }")
done
printf '%s\n' "${ratios[@]}" | sort -g |
    awk '{ v[NR] = $1 } END { printf "willy/fio median %.3f, range %.3f-%.3f over %d runs\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
