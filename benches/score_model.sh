#!/usr/bin/env bash
# Scores the prediction code of this tree (switches in the environment pass
# through) on the presets' held-out seeds and on this machine's runs, the
# way docs/PREDICTION.md judges a model step ("Ten more seeds").
#
#   bash benches/score_model.sh [--make] DIR
#
# DIR holds the presets' profiles and seed-1 validations (`bash
# benches/validate_presets.sh DIR`: P.json, v-P.json) and the other seeds'
# validations, vS-P.json for S = 7, 3, 5 and 11 to 20 (11 to 16 for the
# GiB-scale presets hdd, ssd and raid0). With --make, the missing files are
# made first (the simulator is deterministic, so once is enough; about 80
# minutes on 2 cores: 2-3 minutes for each validation of hdd, ssd and
# raid0, seconds for the others). The validations hold measurements only:
# a change to the model needs no new files, a change to what the scaler
# measures needs new profiles (validate_presets.sh again).
#
# Prints per preset the willy model's last-region median error on each
# seed, their median, how many are over 15% and how many worse than chen's,
# and the median and most of the overall medians; then, over the runs in
# docs/runs since 2026-11-26g, the median of the run medians (and how many
# are at or under 10%) and of their last regions' medians.
set -euo pipefail
make=0
if [ "${1:-}" = --make ]; then make=1; shift; fi
dir=${1:?usage: score_model.sh [--make] DIR (see benches/validate_presets.sh)}
here=$(cd "$(dirname "$0")/.." && pwd)
presets=(sparc1990 split-cache write-through raw-disk hdd ssd raid0)
seeds() {
    case $1 in
    hdd | ssd | raid0) echo 1 7 3 5 11 12 13 14 15 16 ;;
    *) echo 1 7 3 5 11 12 13 14 15 16 17 18 19 20 ;;
    esac
}
file() { if [ "$2" = 1 ]; then echo "$dir/v-$1.json"; else echo "$dir/v$2-$1.json"; fi; }
if [ $make = 1 ]; then
    [ -f "$dir/raid0.json" ] || bash "$here/benches/validate_presets.sh" "$dir" >/dev/null
    cargo build --release --quiet --manifest-path "$here/Cargo.toml" --bin willy
    for p in "${presets[@]}"; do
        flags=()
        case $p in hdd | ssd | raid0) flags=(--min-time 1s --max-time 20s --interval 50ms) ;; esac
        for s in $(seeds "$p"); do
            f=$(file "$p" "$s")
            [ -f "$f" ] && continue
            "$here/target/release/willy" validate --profile "$dir/$p.json" --samples 100 \
                --baseline orthogonal --seed "$s" "${flags[@]}" --json "$f" >/dev/null 2>&1
        done
    done
fi
cargo build --release --quiet --manifest-path "$here/Cargo.toml" -p willy-predict --examples
rescore="$here/target/release/examples/rescore"
# rescore's summary line: `chen: X%, region ... | willy: Y%, region ... Z%`.
summary='
import re, statistics as st, sys
name = sys.argv[1]
last, overall, worse = [], [], 0
for line in sys.stdin:
    chen, willy = line.split("willy:")
    w = [float(x) for x in re.findall(r"([\d.]+)%", willy)]
    c = [float(x) for x in re.findall(r"([\d.]+)%", chen)]
    last.append(w[-1]); overall.append(w[0]); worse += w[-1] > c[-1]
if not last:
    sys.exit(0)
print(f"{name:<13} last: " + " ".join(f"{x:5.1f}" for x in last)
      + f" | median {st.median(last):5.1f}, over 15%: {sum(x > 15 for x in last)},"
      + f" worse than chen: {worse} | overall median {st.median(overall):.1f}, most {max(overall):.1f}")
'
for p in "${presets[@]}"; do
    args=()
    for s in $(seeds "$p"); do
        f=$(file "$p" "$s")
        [ -f "$f" ] && args+=("$dir/$p.json" "$f")
    done
    [ ${#args[@]} -gt 0 ] && "$rescore" "${args[@]}" | python3 -c "$summary" "$p"
done
runs=()
for d in "$here"/docs/runs/20*/; do
    n=$(basename "$d")
    [[ "$n" < 2026-11-26g ]] && continue
    [ -f "$d/1g-psync-validation.json" ] || continue
    runs+=("$d/1g-psync-profile.json" "$d/1g-psync-validation.json")
done
"$rescore" "${runs[@]}" | python3 -c '
import re, statistics as st, sys
overall, last = [], []
for line in sys.stdin:
    w = [float(x) for x in re.findall(r"([\d.]+)%", line.split("willy:")[1])]
    overall.append(w[0]); last.append(w[-1])
print(f"this machine, {len(overall)} runs since 2026-11-26g: median of the run medians"
      f" {st.median(overall):.2f}% ({sum(x <= 10 for x in overall)} at or under 10%),"
      f" of their last regions {st.median(last):.1f}%")
'
