#!/usr/bin/env bash
# Reproduces docs/figures/sim-sparc1990/: a self-scaling run, a validation
# and a comparison on simulated systems (virtual time: about half a minute).
# Usage: bash docs/figures/make-sim.sh   (from the repository root)
set -euo pipefail
cargo build --release -q
W=target/release/willy
D=docs/figures/sim-sparc1990
mkdir -p "$D"
rm -f "$D"/*.svg "$D"/profile.json "$D"/validation.json "$D"/compare.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$W run --scale --target sim:sparc1990 --profile "$D/profile.json" 2>/dev/null
$W run --scale --target sim:write-through --profile "$tmp/write-through.json" 2>/dev/null
$W validate --profile "$D/profile.json" --samples 100 --baseline orthogonal --json "$D/validation.json" 2>/dev/null
cp "$D/profile.json" "$tmp/sparc1990.json"
(cd "$tmp" && "$OLDPWD/$W" compare sparc1990.json write-through.json --json compare.json > /dev/null)
cp "$tmp/compare.json" "$D/compare.json"
$W plot "$D/profile.json" --out "$D" --validation "$D/validation.json" --comparison "$D/compare.json"
$W report "$D/profile.json" --validation "$D/validation.json" -o "$tmp/report.html" > /dev/null
