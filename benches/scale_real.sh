#!/usr/bin/env bash
# willy run --scale on this machine's files, inside a memory cgroup, and the
# inferred cache size against the limit. Needs root (the cgroup).
#
# Usage: bash benches/scale_real.sh DIR LIMIT BUDGET [OUT]
#   e.g. bash benches/scale_real.sh /work/scale 512MiB 30m
# Prints the run's plan and summary, the elapsed time, and the inferred
# cache sizes with their error against LIMIT. The profile goes to
# OUT (default DIR/profile-LIMIT.json).
set -euo pipefail
dir=${1:?usage: scale_real.sh DIR LIMIT BUDGET [OUT]}
limit=${2:?limit, e.g. 512MiB}
budget=${3:?budget, e.g. 30m}
out=${4:-$dir/profile-$limit.json}
command -v jq >/dev/null || apt-get install -y -q jq >/dev/null
cargo build --release -q
mkdir -p "$dir/data"
rm -f "$out" "$out.ckpt"
start=$(date +%s)
target/release/willy run --scale --target "$dir/data" --cache-limit "$limit" \
    --budget "$budget" --profile "$out" 2> "$out.log" > "$out.stdout"
end=$(date +%s)
grep -E "^willy: (plan|thresholds|warning|note)" "$out.log" || true
echo "elapsed    $((end - start)) s for a budget of $budget"
bytes=$(numfmt --from=iec "${limit%B}" 2>/dev/null || numfmt --from=iec-i "${limit%B}")
jq -r --argjson L "$bytes" '.caches[] |
  "inferred   \(.size_bytes / 1048576 * 100 | round / 100) MiB (\(.probe)): \(((.size_bytes / $L - 1) * 1000 | round) / 10)% against the limit; interval \(.size_interval_bytes // [0,0] | map(. / 1048576 * 10 | round / 10) | join("-")) MiB; fit \(.fit_factor // "-")\(if .poor_fit then " POOR FIT" else "" end)"' "$out"
grep -E "^caches" "$out.stdout" || true
jq -r '"regions    \(.regions | length); points \(.points | length)"' "$out"
