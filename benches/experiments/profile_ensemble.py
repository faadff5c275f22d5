#!/usr/bin/env python3
"""How much of this machine's error is the profile's own (docs/PERFORMANCE.md,
"Two profiles are better than one"): every run since 2026-11-26g validated
the same 50 workloads (`--seed 1`), so each run's workloads can be
predicted by the profiles of the K runs before it, too, their predictions'
geometric mean scored against the run's own measurements. Runs whose
cache-region measurements moved more than 8% (median) from one of those
runs' are left out (the machine changed between them).

Then, over consecutive pairs of runs: the previous run's profile alone
against the run's own (pairs whose cache-region measurements moved under
6%), and pairs whose profiles found the same regions and focal points
against the others (under 8%): how far apart the two profiles' cache-region
predictions lie, and each's error alone and together.

Usage (after `cargo build --release -p willy-predict --examples`):
  python3 benches/experiments/profile_ensemble.py
"""
import glob, json, math, os, re, statistics as st, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESCORE = os.path.join(ROOT, 'target', 'release', 'examples', 'rescore')
LINE = re.compile(r'\s+\[(\d+)\] U (.*) N (\d+): measured ([\d.e+]+), chen ([\d.e+]+), willy ([\d.e+]+)')

runs = []
for d in sorted(glob.glob(os.path.join(ROOT, 'docs', 'runs', '2026-11-*'))):
    if os.path.basename(d) < '2026-11-26g' or not os.path.exists(d + '/1g-psync-validation.json'):
        continue
    out = subprocess.run([RESCORE, '--all', d + '/1g-psync-profile.json', d + '/1g-psync-validation.json'],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    last = out[0].split('willy:')[1].count('region') - 1
    pts = {}
    for line in out[1:]:
        m = LINE.match(line)
        if m:
            pts[(m[2], m[3])] = (int(m[1]) == last, float(m[4]), float(m[6]))
    prof = json.load(open(d + '/1g-psync-profile.json'))
    shape = [(r['from_unique_bytes'], r['to_unique_bytes'], r['focal']) for r in prof['regions'][:-1]]
    runs.append((os.path.basename(d), pts, shape))


def err(pred, m):
    return abs(pred / m - 1)


for k in (1, 2, 3, 4):
    overall, cache = [], []
    for i in range(k - 1, len(runs)):
        group = [r[1] for r in runs[i - k + 1:i + 1]]
        own = group[-1]
        ws = [w for w in own if all(w in g for g in group)]
        if len(ws) < 10:
            continue
        moved = max(st.median([err(g[w][1], own[w][1]) for w in ws if not own[w][0]]) for g in group)
        if moved > 0.08:
            continue
        pred = {w: math.exp(st.mean([math.log(g[w][2]) for g in group])) for w in ws}
        overall.append(st.median([err(pred[w], own[w][1]) for w in ws]))
        cache.append(st.median([err(pred[w], own[w][1]) for w in ws if not own[w][0]]))
    print(f"{k} profile(s): {len(overall)} runs, median of the run medians {st.median(overall):.1%}"
          f" ({sum(x <= 0.10 for x in overall)} at or under 10%), of their cache regions {st.median(cache):.1%}")


alone, same, other, moves = [], [], [], []
for (_, a, sa), (_, b, sb) in zip(runs, runs[1:]):
    ws = [w for w in b if w in a and not a[w][0] and not b[w][0]]
    if len(ws) < 10:
        continue
    moved = st.median([err(a[w][1], b[w][1]) for w in ws])
    moves.append(moved)
    own = st.median([err(b[w][2], b[w][1]) for w in ws])
    both = st.median([err(math.sqrt(a[w][2] * b[w][2]), b[w][1]) for w in ws])
    if moved < 0.06:
        alone.append((st.median([err(a[w][2], b[w][1]) for w in ws]), own))
    if moved < 0.08:
        apart = st.median([abs(math.log(a[w][2] / b[w][2])) for w in ws])
        (same if sa == sb else other).append((apart, own, both))
calm = sorted(m for m in moves if m < 0.15)
print(f"cache regions' measurements, {len(moves)} consecutive pairs: a median {st.median(moves):.1%} apart, "
      f"{calm[0]:.1%}-{calm[-1]:.1%} but for {len(moves) - len(calm)} changes of {min(m for m in moves if m >= 0.15):.0%} or more")
print(f"cache regions, {len(alone)} pairs: the previous profile {st.median([x[0] for x in alone]):.1%}, "
      f"the run's own {st.median([x[1] for x in alone]):.1%}")
for name, g in (('the same', same), ('other', other)):
    print(f"{len(g)} pairs with {name} regions and focal points: predictions {st.median([x[0] for x in g]):.1%} apart, "
          f"alone {st.median([x[1] for x in g]):.1%}, together {st.median([x[2] for x in g]):.1%}")
