#!/usr/bin/env python3
"""How much of each run's error is its regions' common level (issue 13).

For every run given, each workload's signed error ln(willy / measured)
from `rescore --all`; then the run's median |error| as it is, and once
each region's predictions are divided by that region's median signed
error (known only in hindsight). Prints both per run, and their medians
over the runs. After `cargo build --release -p willy-predict --examples`:

    python3 benches/region_offsets.py docs/runs/2026-11-26g ... docs/runs/2026-11-28j
"""
import math
import re
import statistics as st
import subprocess
import sys
from collections import defaultdict

LINE = re.compile(r"\s+\[(\d+)\] .*measured (\S+), chen (\S+), willy (\S+)")
if len(sys.argv) < 2:
    sys.exit("usage: python3 benches/region_offsets.py RUN_DIR [RUN_DIR ...]"
             " (each with 1g-psync-profile.json and 1g-psync-validation.json)")
raw_all, less_all = [], []
for run in sys.argv[1:]:
    pair = [f"{run}/1g-psync-profile.json", f"{run}/1g-psync-validation.json"]
    out = subprocess.run(["./target/release/examples/rescore", "--all", *pair],
                         capture_output=True, text=True, check=True).stdout
    errs = [(int(m[1]), math.log(float(m[4]) / float(m[2].rstrip(","))))
            for m in map(LINE.match, out.splitlines()) if m]
    by_region = defaultdict(list)
    for region, e in errs:
        by_region[region].append(e)
    level = {r: st.median(es) for r, es in by_region.items()}
    raw = st.median(abs(math.exp(e) - 1) for _, e in errs)
    less = st.median(abs(math.exp(e - level[r]) - 1) for r, e in errs)
    raw_all.append(raw)
    less_all.append(less)
    levels = " ".join(f"{100 * level[r]:+.0f}" for r in sorted(level))
    print(f"{run}: {100 * raw:.1f}% as it is, {100 * less:.1f}% less each region's level ({levels})")
n = len(raw_all)
print(f"{n} runs: median {100 * st.median(raw_all):.2f}% ({sum(x <= 0.1 for x in raw_all)} at or under 10%), "
      f"less the levels {100 * st.median(less_all):.2f}% ({sum(x <= 0.1 for x in less_all)})")
