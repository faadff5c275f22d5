#!/usr/bin/env bash
# Reproduces docs/figures/real-1g/ on a machine like the one in
# docs/PERFORMANCE.md ("Self-scaling on this machine"): a 30-minute
# self-scaling run on files inside a 1 GiB memory cgroup, a validation of
# 50 random workloads, and the figures. Needs root (the cgroup) and about
# an hour and 5 GiB of free space in DIR.
# Usage: bash docs/figures/make-real.sh DIR   (from the repository root)
set -euo pipefail
dir=${1:?usage: make-real.sh DIR}
D=docs/figures/real-1g
bash benches/scale_real.sh "$dir" 1GiB 30m "$dir/profile.json"
W=target/release/willy
$W validate --profile "$dir/profile.json" --samples 50 --max-time 8s --warmup-max 8s \
    --json "$dir/validation.json"
mkdir -p "$D"
rm -f "$D"/*.svg
cp "$dir/profile.json" "$D/profile.json"
cp "$dir/validation.json" "$D/validation.json"
$W plot "$D/profile.json" --out "$D" --validation "$D/validation.json"
