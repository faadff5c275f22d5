#!/usr/bin/env bash
# Which io_uring engine should be willy's default? uring (the io-uring crate)
# against tokio-uring, interleaved on the same workloads.
#
#   benches/engines.sh [DIR] [REPS] [SECS]
#
# Each pair runs tokio-uring then uring; the ratio uring/tokio-uring of IOPS
# is taken per pair, and the median reported. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-./willy-engines}
REPS=${2:-5}
SECS=${3:-10}
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release -q
WILLY=target/release/willy
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

iops() {
  "$WILLY" run --target "$DIR" --min-time "${SECS}s" --max-time "${SECS}s" --ci 0.5 \
      --json "$DIR/out.json" "$@" >/dev/null 2>&1
  jq '[.iops, .cpu.cores_busy] | @tsv' -r "$DIR/out.json"
}

row() {
  local name=$1; shift
  local ratios=() tk=() ur=() tkc=() urc=()
  for _ in $(seq "$REPS"); do
    local t u
    read -r t tc < <(iops --engine tokio-uring "$@")
    read -r u uc < <(iops --engine uring "$@")
    tk+=("$t"); ur+=("$u"); tkc+=("$tc"); urc+=("$uc")
    ratios+=("$(awk -v a="$u" -v b="$t" 'BEGIN {printf "%.3f", a / b}')")
  done
  printf '| %s | %.0f (%.2f cores) | %.0f (%.2f cores) | %s | **%.3f** |\n' "$name" \
      "$(printf '%s\n' "${tk[@]}" | median)" "$(printf '%s\n' "${tkc[@]}" | median)" \
      "$(printf '%s\n' "${ur[@]}" | median)" "$(printf '%s\n' "${urc[@]}" | median)" \
      "${ratios[*]}" "$(printf '%s\n' "${ratios[@]}" | median)"
}

echo "kernel $(uname -r), $(nproc) CPUs, $(findmnt -no FSTYPE -T "$DIR"); $REPS pairs of ${SECS} s runs"
echo
echo "| workload | tokio-uring IOPS | uring IOPS | uring/tokio-uring per pair | median |"
echo "|---|---|---|---|---|"
row "O_DIRECT 4 KiB random read, 16 in flight" --direct --unique-bytes 1GiB --size-mean 4KiB --read-frac 1 --seq-frac 0 --process-num 16
row "O_DIRECT 4 KiB random read, 1 in flight" --direct --unique-bytes 1GiB --size-mean 4KiB --read-frac 1 --seq-frac 0 --process-num 1
row "page-cached 4 KiB random read, 16 in flight" --unique-bytes 256MiB --size-mean 4KiB --read-frac 1 --seq-frac 0 --process-num 16
row "page-cached 64 KiB mixed, 4 in flight" --unique-bytes 256MiB --size-mean 64KiB --read-frac 0.5 --seq-frac 0.5 --process-num 4
