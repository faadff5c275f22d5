#!/usr/bin/env bash
# Rescores the presets and this machine's runs with the switches of
# benches/experiments/stack-che.diff (docs/PREDICTION.md, "Che's
# approximation and Chen's depth distribution"; the last set of switches
# became step 22). Builds `rescore` from a scratch worktree of d28df74,
# the prediction code the patch is against (before step 22), with the
# patch applied; "no switches" is that commit's model.
#
#   bash benches/validate_presets.sh PRESETS   # the presets' files, once
#   bash benches/experiments/stack_che.sh PRESETS
#
# Prints, for each set of switches, every preset's willy median error
# overall / in its last region, then over the runs in docs/runs since
# 2026-11-26g the median of the run medians (and how many runs are at or
# under 10%) and the median of the last regions' medians. With --reads,
# first seven all-read workloads on sim:ssd that straddle its cache,
# measured (willy's defaults) and predicted from PRESETS/ssd.json.
set -euo pipefail
reads=0
if [ "${1:-}" = --reads ]; then reads=1; shift; fi
here=$(cd "$(dirname "$0")/../.." && pwd)
presets=${1:?usage: stack_che.sh PRESETS_DIR (from benches/validate_presets.sh)}
tree=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
git -C "$here" worktree add --detach "$tree" d28df74 >/dev/null 2>&1
git -C "$tree" apply "$here/benches/experiments/stack-che.diff"
cargo build --release --quiet --manifest-path "$tree/Cargo.toml" -p willy-predict --examples
rescore="$tree/target/release/examples/rescore"
if [ $reads = 1 ]; then
    cargo build --release --quiet --manifest-path "$tree/Cargo.toml" --bin willy
    willy="$tree/target/release/willy"
    m=$(mktemp -d)
    # uniqueBytes sizeMean seqFrac processNum
    cases=("4GiB 4KiB 0 2" "4GiB 4KiB 0 4" "4GiB 4KiB 0 8" "3GiB 32KiB 0.5 6"
        "4GiB 64KiB 0.5 8" "6GiB 16KiB 0.5 12" "3GiB 256KiB 0.3 3")
    echo "all reads on sim:ssd: measured MB/s, then predicted with no switches / WSTACK=1 / WSTACK=1 WSEP=0.99"
    for c in "${cases[@]}"; do
        set -- $c
        "$willy" run --target sim:ssd --unique-bytes "$1" --size-mean "$2" --read-frac 1 \
            --seq-frac "$3" --process-num "$4" --json "$m/run.json" >/dev/null 2>&1
        jq -c .workload "$m/run.json" >"$m/w.json"
        line="  $c: $(jq '.throughput_bytes_per_sec / 1e6 | round' "$m/run.json")"
        for sw in X=1 WSTACK=1 "WSTACK=1 WSEP=0.99"; do
            env $sw "$willy" predict --profile "$presets/ssd.json" "$m/w.json" --json "$m/p.json" >/dev/null
            line+=" / $(jq '.predictions[0].predicted_throughput_bytes_per_sec / 1e6 | round' "$m/p.json")"
        done
        echo "$line"
    done
    rm -rf "$m"
fi
runs=()
for d in $(ls "$here/docs/runs" | awk '$0>="2026-11-26g"'); do
    runs+=("$here/docs/runs/$d/1g-psync-profile.json" "$here/docs/runs/$d/1g-psync-validation.json")
done
for switches in "" "WSTACK=1" "WSTACK=1 WSEP=0.99" "WSTACK=1 WPAR=1 WANY=1 WALL=1 WHU=1" \
    "WSTACK=1 WPAR=1 WANY=1 WALL=1 WHU=1 WSPLIT=1 WWC=1" \
    "WONLY=1 WPAR=1 WANY=1 WALL=1 WSPLIT=1 WWC=1 WFIT=0.2"; do
    echo "== switches: ${switches:-none}"
    for p in sparc1990 split-cache write-through raw-disk hdd ssd raid0; do
        env $switches "$rescore" "$presets/$p.json" "$presets/v-$p.json" | tail -1 |
            sed 's/.*willy: *//; s/,//g' | awk -v p=$p '{printf "  %s: %s overall, %s last region\n", p, $1, $NF}'
    done
    env $switches "$rescore" "${runs[@]}" | grep -o 'willy: .*' | python3 -c '
import re, statistics as st, sys
rows = [[float(x) for x in re.findall(r"([0-9.]+)%", l)] for l in sys.stdin]
overall, last = [r[0] for r in rows], [r[-1] for r in rows]
print("  this machine, %d runs: median of the run medians %.2f%% (%d at or under 10%%), of the last regions %.1f%%"
      % (len(rows), st.median(overall), sum(x <= 10 for x in overall), st.median(last)))'
done
