#!/usr/bin/env bash
# Measures a validation's last-region (disk-region) workloads again over a
# long window and scores both models against what the workload settles
# to, beside what the validation measured (docs/PREDICTION.md, "The disk
# regions over time"; docs/PERFORMANCE.md, "The disk region settles
# late"). About 10 minutes a preset on one core; on real files a minute
# a workload.
#
#   bash benches/last_region_over_time.sh DIR PRESET [SECONDS]
#   bash benches/last_region_over_time.sh --real PROFILE VALIDATION DATA_DIR [SECONDS]
#
# DIR holds PRESET.json (a profile) and v-PRESET.json (its validation), as
# benches/validate_presets.sh leaves them. Each workload runs SECONDS
# (default 300) of virtual time in intervals of SECONDS/60; "settled" is
# the mean of the second half of the intervals, "first" of the first
# four. Prints one line per workload, then the median absolute errors.
#
# With --real, the workloads run on files in DATA_DIR (as root, under the
# profile's --cache-limit, engine and --direct) for SECONDS of wall
# time (default 60), with no warm start: from the moment willy has
# written its files' dirty pages back, as every measurement starts.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: last_region_over_time.sh DIR PRESET [SECONDS] | --real PROFILE VALIDATION DATA_DIR [SECONDS]"
if [[ ${1:-} == --real ]]; then
    profile=${2:?$usage} validation=${3:?$usage} data=${4:?$usage}
    secs=${5:-60}
    p=$(basename "$profile" .json)
    limit=$(jq -r '.cache_limit_bytes // empty' "$profile")
    direct=$(jq -r 'if .direct then "--direct" else empty end' "$profile")
    target=("$data" --engine "$(jq -r .engine "$profile")" --warmup-min 0s --warmup-max 0s
        ${limit:+--cache-limit "$limit"} $direct)
else
    dir=${1:?$usage} p=${2:?$usage}
    secs=${3:-300}
    profile="$dir/$p.json" validation="$dir/v-$p.json"
    target=("sim:$p")
fi
for f in "$profile" "$validation"; do
    [[ -f $f ]] || { echo "last_region_over_time.sh: no $f" >&2; exit 2; }
done
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
willy="$here/target/release/willy"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The last region's workloads, as a JSON array, and what the validation
# measured for each.
jq '[.points | (map(.region) | max) as $l | .[] | select(.region == $l)]' \
    "$validation" >"$work/points.json"
jq '[.[].workload]' "$work/points.json" >"$work/workloads.json"
n=$(jq length "$work/workloads.json")
interval=$(awk -v s="$secs" 'BEGIN { printf "%gms", s * 1000 / 60 }')
for ((i = 0; i < n; i++)); do
    w=$(jq -c ".[$i]" "$work/workloads.json")
    "$willy" run --target "${target[@]}" \
        --unique-bytes "$(jq -r .uniqueBytes <<<"$w")" --size-mean "$(jq -r .sizeMean <<<"$w")" \
        --read-frac "$(jq -r .readFrac <<<"$w")" --seq-frac "$(jq -r .seqFrac <<<"$w")" \
        --process-num "$(jq -r .processNum <<<"$w")" \
        --min-time "${secs}s" --max-time "${secs}s" --interval "$interval" \
        --json "$work/run-$i.json" >/dev/null 2>&1
    echo "  $((i + 1)) of $n measured" >&2
done
for m in chen willy; do
    "$willy" predict --profile "$profile" --model "$m" "$work/workloads.json" \
        --json "$work/pred-$m.json" >/dev/null
done
runs=()
for ((i = 0; i < n; i++)); do runs+=("$work/run-$i.json"); done
jq -s '[.[] | .stopping.interval_throughput
        | {first: (.[0:4] | add / length),
           settled: (.[(length / 2 | floor):] | add / length)}]' \
    "${runs[@]}" >"$work/runs.json"
jq -r -n --slurpfile pts "$work/points.json" --slurpfile runs "$work/runs.json" \
    --slurpfile c "$work/pred-chen.json" --slurpfile w "$work/pred-willy.json" --arg p "$p" '
  def pc: . * 100 | round | tostring + "%";
  def sg: if . >= 0 then "+" + pc else pc end;
  def abs: if . < 0 then -. else . end;
  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
           else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  [range(0; $pts[0] | length) as $i
   | $pts[0][$i] as $x | $runs[0][$i] as $r
   | ($c[0].predictions[$i].predicted_throughput_bytes_per_sec) as $pc
   | ($w[0].predictions[$i].predicted_throughput_bytes_per_sec) as $pw
   | {w: $x.workload, val: $x.measured_bytes_per_sec, first: $r.first, settled: $r.settled,
      cv: ($pc / $x.measured_bytes_per_sec - 1), wv: ($pw / $x.measured_bytes_per_sec - 1),
      cs: ($pc / $r.settled - 1), ws: ($pw / $r.settled - 1)}] as $rows
  | ($rows[] | "U \(.w.uniqueBytes / 1048576 | floor) MiB, \(.w.sizeMean / 1024 | floor) KiB, readFrac \(.w.readFrac), \(.w.processNum) generators: validation \(.val / 1e5 | round / 10) MB/s, first intervals \(.first / 1e5 | round / 10), settled \(.settled / 1e5 | round / 10); chen \(.cv | sg) -> \(.cs | sg), willy \(.wv | sg) -> \(.ws | sg)"),
    "\($p): \($rows | length) workloads; median error against the validation: chen \([$rows[].cv | abs] | med | pc), willy \([$rows[].wv | abs] | med | pc); against the settled throughput: chen \([$rows[].cs | abs] | med | pc), willy \([$rows[].ws | abs] | med | pc)"'
