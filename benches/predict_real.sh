#!/usr/bin/env bash
# Issue 13, Must show 2: a profile of this machine's files under a 1 GiB
# memory cgroup with a 20-minute budget, then 50 random workloads measured
# twice and predicted by every model. Needs root (the cgroup) and a quiet
# machine: about 30 minutes (the scale 20, the validation 8).
#
# Usage: bash benches/predict_real.sh DIR [BUDGET]
# Prints validate's table (every model, overall and per region) and the
# elapsed times. The profile and validation stay in DIR.
set -euo pipefail
dir=${1:?usage: predict_real.sh DIR [BUDGET]}
budget=${2:-20m}
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release -q --manifest-path "$here/Cargo.toml"
willy="$here/target/release/willy"
mkdir -p "$dir/data"
rm -f "$dir/profile.json" "$dir/profile.json.ckpt" "$dir/validation.json" "$dir/validation.json.ckpt"
start=$(date +%s)
"$willy" run --scale --target "$dir/data" --cache-limit 1GiB --budget "$budget" \
    --profile "$dir/profile.json" > "$dir/scale.stdout" 2> "$dir/scale.log"
mid=$(date +%s)
"$willy" validate --profile "$dir/profile.json" --samples 50 \
    --json "$dir/validation.json" > "$dir/validate.stdout" 2> "$dir/validate.log"
end=$(date +%s)
grep -E "^caches" "$dir/scale.stdout" || true
cat "$dir/validate.stdout"
echo "scale $((mid - start)) s (budget $budget), validate $((end - mid)) s"
