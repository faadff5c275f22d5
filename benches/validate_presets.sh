#!/usr/bin/env bash
# Scale and validate every simulated preset; prints the table of
# docs/PREDICTION.md ("How well it does"). About 5 minutes on 2 cores.
#
#   bash benches/validate_presets.sh [OUT_DIR]
#
# The GiB-scale presets (hdd, ssd, raid0) use the shorter stopping rule of
# the tests (tests/util/mod.rs, GIB_PRESET); the others willy's defaults.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
willy="$here/target/release/willy"
one() {
    local p=$1 flags=()
    case $p in hdd | ssd | raid0) flags=(--min-time 1s --max-time 20s --interval 50ms) ;; esac
    rm -f "$out/$p.json" "$out/$p.json.ckpt"
    "$willy" run --scale --target "sim:$p" --profile "$out/$p.json" "${flags[@]}" 2>/dev/null >/dev/null
    "$willy" validate --profile "$out/$p.json" --samples 100 --baseline orthogonal \
        "${flags[@]}" --json "$out/v-$p.json" >/dev/null 2>&1
}
presets=(sparc1990 split-cache write-through raw-disk hdd ssd raid0)
for p in "${presets[@]}"; do one "$p" & done
wait
echo "| preset | willy (the default) median error (90% CI) | chen | orthogonal baseline | points: profile / grid | repeatability | last region: workloads, chen / willy |"
echo "|---|---|---|---|---|---|---|"
for p in "${presets[@]}"; do
    jq -r --arg p "$p" '
      def pc: . * 1000 | round / 10 | tostring + "%";
      (.regions | last) as $l
      | "| \($p) | \(.median_abs_error | pc) (\(.median_abs_error_ci90[0] | pc)-\(.median_abs_error_ci90[1] | pc)) | \(.median_abs_error_by_model.chen | pc) | \(.baseline.median_abs_error | pc) | \(.profile_points) / \(.baseline.points) | \(.repeatability_error | pc) | \($l.workloads), \($l.median_abs_error_by_model.chen | pc) / \($l.median_abs_error_by_model.willy | pc) |"
    ' "$out/v-$p.json"
done
echo "files in $out" >&2
