#!/usr/bin/env bash
# Issue 19, item 2: one workload as N ranks x 1 generator (mpirun -np N
# willy run --mpi) against 1 process x N generators, interleaved. A
# page-cached workload by default (the files fit in memory), so that the
# comparison is of willy's coordination, not of the disk.
#
#   benches/mpi_ranks.sh [DIR] [REPS] [RANKS] [-- willy run flags]
#
# Prints each pair, then the median ratio (ranks / threads) with its range,
# and the median start skew. Needs OpenMPI and jq; builds willy with
# --features mpi.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-./willy-mpi-bench}
REPS=${2:-5}
RANKS=${3:-4}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
FLAGS=("$@")
[ ${#FLAGS[@]} -eq 0 ] && FLAGS=(--unique-bytes 1GiB --size-mean 64KiB --read-frac 1 --seq-frac 0)
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release -q --features mpi
WILLY=${WILLY:-target/release/willy}
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
COMMON=(--target "$DIR" --process-num "$RANKS" --min-time 10s --max-time 30s "${FLAGS[@]}")

echo "| rep | ${RANKS} ranks x 1 (MB/s) | 1 x ${RANKS} (MB/s) | ranks / threads | start skew (ms) |"
echo "|---|---|---|---|---|"
ratios=(); skews=()
for rep in $(seq 1 "$REPS"); do
  mpirun --oversubscribe --allow-run-as-root -np "$RANKS" "$WILLY" run --mpi "${COMMON[@]}" \
      --json "$DIR/ranks.json" >/dev/null 2>"$DIR/ranks.err" || { cat "$DIR/ranks.err"; exit 1; }
  "$WILLY" run "${COMMON[@]}" --json "$DIR/threads.json" >/dev/null 2>"$DIR/threads.err" \
      || { cat "$DIR/threads.err"; exit 1; }
  r=$(jq .throughput_bytes_per_sec "$DIR/ranks.json")
  t=$(jq .throughput_bytes_per_sec "$DIR/threads.json")
  s=$(jq .start_skew_secs "$DIR/ranks.json")
  ratio=$(echo "$r $t" | awk '{printf "%.3f", $1/$2}')
  skew=$(echo "$s" | awk '{printf "%.2f", $1*1000}')
  ratios+=("$ratio"); skews+=("$skew")
  echo "| $rep | $(echo "$r" | awk '{printf "%.0f", $1/1e6}') | $(echo "$t" | awk '{printf "%.0f", $1/1e6}') | $ratio | $skew |"
done
lo=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
hi=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
echo
echo "median ranks/threads $(printf '%s\n' "${ratios[@]}" | median) (range $lo to $hi), median start skew $(printf '%s\n' "${skews[@]}" | median) ms"
