#!/usr/bin/env bash
# The cost of `willy run --verify` on page-cached throughput, measured side
# by side: for each workload, runs without --verify, with --verify (sector
# tags) and with --verify full alternate (ABCABC...), and each ratio to
# the plain run is reported as the median over the rounds with its range. Page-cached (buffered, a working set far below the
# machine's memory) is where checksums weigh most: no disk to hide behind.
#
# Usage: bash benches/verify_cost.sh [DIR] [ROUNDS]   (default /tmp/willy-verify, 5)
set -euo pipefail
dir=${1:-/tmp/willy-verify}
rounds=${2:-5}
command -v jq >/dev/null || apt-get install -y -q jq >/dev/null
cargo build --release -q
mkdir -p "$dir"
run() { # flags... -> throughput, bytes/s
    target/release/willy run --target "$dir" --unique-bytes 256MiB --seq-frac 0 \
        --min-time 3s --max-time 6s --json - "$@" 2>/dev/null | jq .throughput_bytes_per_sec
}
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
span() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print b / a }'; }
printf '%-28s %10s %16s %16s\n' workload plain_MB/s "--verify" "--verify full"
while read -r label flags; do
    plain=(); rs=(); rf=()
    for _ in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        a=$(run $flags); b=$(run $flags --verify); c=$(run $flags --verify full)
        plain+=("$a"); rs+=("$(ratio "$a" "$b")"); rf+=("$(ratio "$a" "$c")")
    done
    printf '%-28s %10.0f %6.3f %-9s %6.3f %-9s\n' "$label" \
        "$(med "${plain[@]}" | awk '{ print $1 / 1e6 }')" \
        "$(med "${rs[@]}")" "$(span "${rs[@]}")" "$(med "${rf[@]}")" "$(span "${rf[@]}")"
done <<'W'
read-4KiB-uring-p1 --size-mean 4KiB --read-frac 1 --process-num 1
read-64KiB-uring-p2 --size-mean 64KiB --read-frac 1 --process-num 2
read-1MiB-psync-p2 --size-mean 1MiB --read-frac 1 --process-num 2 --engine psync
mixed-16KiB-psync-p2 --size-mean 16KiB --read-frac 0.5 --process-num 2 --engine psync
W
