#!/usr/bin/env bash
# willy against fio, side by side on the same machine and filesystem.
#
#   benches/vs_fio.sh [DIR] [REPS] [SECS]
#
# DIR   scratch directory on the filesystem to test (default ./willy-vs-fio,
#       removed afterwards); REPS pairs per case (default 5); SECS measured
#       seconds per run (default 10).
#
# For each case it runs fio, then willy, REPS times interleaved, so that both
# see the same machine state; each pair gives a ratio willy/fio of IOPS, and
# the median ratio is reported. Both run alike: a 2 s ramp (fio's ramp_time,
# willy's warm start fixed at 2 s) and SECS measured seconds. The layouts match: one file per fio job and
# per willy generator, with the same total size. fio keeps its defaults
# (random map on, tausworthe generator) except where a flag is named.
# Prints a Markdown table (docs/PERFORMANCE.md holds one).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-./willy-vs-fio}
REPS=${2:-5}
SECS=${3:-10}
RAMP=2

command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release -q
WILLY=target/release/willy

mkdir -p "$DIR/fio" "$DIR/willy"
trap 'rm -rf "$DIR"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# fio_iops ARGS... : random 4 KiB reads; ARGS give engine, jobs and sizes
fio_iops() {
  fio --output-format=json --name=randread --directory="$DIR/fio" --rw=randread --bs=4k \
      --time_based --runtime="$SECS" --ramp_time="$RAMP" --group_reporting "$@" | jq '.jobs[0].read.iops'
}

# willy_iops TOTAL_BYTES N ARGS... : the same workload in Chen's terms
willy_iops() {
  local total=$1 n=$2; shift 2
  local out="$DIR/willy.json"
  "$WILLY" run --target "$DIR/willy" --unique-bytes "$total" --size-mean 4KiB \
      --read-frac 1 --seq-frac 0 --process-num "$n" \
      --min-time "${SECS}s" --max-time "${SECS}s" --ci 0.5 --warmup-min "${RAMP}s" --warmup-max "${RAMP}s" \
      --json "$out" "$@" >/dev/null 2>&1
  jq '.iops' "$out"
}

# case NAME TOTAL N "FIO ARGS" "WILLY ARGS"
row() {
  local name=$1 total=$2 n=$3 fargs=$4 wargs=$5
  local ratios=() fios=() willys=()
  [ -n "${KEEP_FIO_FILES:-}" ] || rm -f "$DIR"/fio/*
  for _ in $(seq "$REPS"); do
    # shellcheck disable=SC2086
    local f w
    f=$(fio_iops $fargs)
    # shellcheck disable=SC2086
    w=$(willy_iops "$total" "$n" $wargs)
    fios+=("$f"); willys+=("$w")
    ratios+=("$(awk -v w="$w" -v f="$f" 'BEGIN {printf "%.3f", w / f}')")
  done
  local fm wm rm
  fm=$(printf '%s\n' "${fios[@]}" | median)
  wm=$(printf '%s\n' "${willys[@]}" | median)
  rm=$(printf '%s\n' "${ratios[@]}" | median)
  printf '| %s | %s | %.0f | %.0f | %s | **%.3f** |\n' "$name" "$n" "$fm" "$wm" "${ratios[*]}" "$rm"
}

echo "fio $(fio --version | sed 's/fio-//'), kernel $(uname -r), $(nproc) CPUs, $(findmnt -no FSTYPE -T "$DIR") on $(findmnt -no SOURCE -T "$DIR"); $REPS pairs of ${SECS} s runs"
echo
echo "| case | processNum | fio IOPS (median) | willy IOPS (median) | willy/fio per pair | median ratio |"
echo "|---|---|---|---|---|---|"
GiB=$((1 << 30)); MiB=$((1 << 20))
# O_DIRECT random reads: both must measure the same device (0.9-1.1).
for n in 1 16; do
  row "O_DIRECT 4 KiB random read, willy uring vs fio io_uring (iodepth $n)" $GiB "$n" \
      "--ioengine=io_uring --direct=1 --iodepth=$n --numjobs=1 --nrfiles=$n --size=$GiB" "--engine uring --direct"
  row "O_DIRECT 4 KiB random read, willy psync vs fio psync (numjobs $n)" $GiB "$n" \
      "--ioengine=psync --direct=1 --numjobs=$n --size=$((GiB / n))" "--engine psync --direct"
done
row "O_DIRECT 4 KiB random read, willy tokio-uring vs fio io_uring (iodepth 16)" $GiB 16 \
    "--ioengine=io_uring --direct=1 --iodepth=16 --numjobs=1 --nrfiles=16 --size=$GiB" "--engine tokio-uring --direct"
# Page-cached random reads: willy's generator must keep up with fio's (>= 1.0).
# fio must not drop the cache (invalidate=0). Its files are laid out and read
# once first, under the same job name so that they are the same files; willy
# reads its files during its warm start.
page_cached_row() {
  local n=$1
  rm -f "$DIR"/fio/*
  fio --name=randread --directory="$DIR/fio" --rw=read --bs=1M --size=$((256 * MiB / n)) --numjobs="$n" \
      --invalidate=0 --output=/dev/null
  KEEP_FIO_FILES=1 row "page-cached 4 KiB random read, willy psync vs fio psync (numjobs $n)" $((256 * MiB)) "$n" \
      "--ioengine=psync --invalidate=0 --numjobs=$n --size=$((256 * MiB / n))" "--engine psync"
}
for n in 1 16; do
  page_cached_row "$n"
done
