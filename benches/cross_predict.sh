#!/usr/bin/env bash
# Every profile against every validation: how long a profile of a machine
# holds (docs/PERFORMANCE.md, "How long a profile holds"). Each cell is
# the median error of the default model (`willy`) on that validation's
# workloads, as measured, predicted from that row's profile, then the same
# over every region but the last (the cache regions), from `rescore`.
#
#   bash benches/cross_predict.sh RUN_DIR [RUN_DIR ...]
#
# Each RUN_DIR holds 1g-psync-profile.json and 1g-psync-validation.json
# (as docs/runs/*), or profile.json and validation.json (as
# benches/predict_real.sh leaves them). The diagonal is each run's own
# validation.
set -euo pipefail
(($# > 0)) || { echo "usage: cross_predict.sh RUN_DIR [RUN_DIR ...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release -q --manifest-path "$here/Cargo.toml" -p willy-predict --example rescore
rescore="$here/target/release/examples/rescore"
file() { # DIR KIND: the run's profile or validation
    if [[ -f "$1/1g-psync-$2.json" ]]; then echo "$1/1g-psync-$2.json"; else echo "$1/$2.json"; fi
}
for d in "$@"; do
    for k in profile validation; do
        [[ -f $(file "$d" $k) ]] || { echo "cross_predict.sh: no $k in $d" >&2; exit 1; }
    done
done
printf '%-16s' 'profile \ val.'
for v in "$@"; do printf '%-16s' "$(basename "$v")"; done
echo
for p in "$@"; do
    printf '%-16s' "$(basename "$p")"
    for v in "$@"; do
        "$rescore" --all "$(file "$p" profile)" "$(file "$v" validation)" | python3 -c '
import re, statistics, sys
rows = []
for l in sys.stdin:
    m = re.search(r"\[(\d+)\] .*: measured (\S+), chen \S+, willy (\S+)", l)
    if m:
        rows.append((int(m[1]), abs(float(m[3]) / float(m[2]) - 1)))
last = max(r for r, _ in rows)
every = statistics.median(e for _, e in rows)
cache = [e for r, e in rows if r != last]
print("%.1f/%s" % (100 * every, "%.1f" % (100 * statistics.median(cache)) if cache else "-"), end="")
' | xargs printf '%-16s'
    done
    echo
done
