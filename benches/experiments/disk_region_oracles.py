#!/usr/bin/env python3
"""Three bounds on the presets' disk regions (docs/PREDICTION.md, "Tried in
session 47"), each on a validation's last-region workloads:

  slice  an exact processNum x uniqueBytes slice: each workload measured
         at its own N and U with the region's focal sizeMean, readFrac and
         seqFrac (W'), the other three parameters' change taken from the
         willy model's own ratio willy(W) / willy(W')
  focal2 a second focal point at N2 generators (default 8) with its own
         uniqueBytes, sizeMean, readFrac and seqFrac curves; the workloads
         of NMIN generators or more (default 4) predicted as Chen's product
         around it, processNum's ratio from the profile's curve
  floor  each workload measured with run seeds 1..S (default 8), the
         validation's own measurement scored against their median: what a
         model that knew each workload's typical throughput would score

Usage (after `cargo build --release`; DIR from benches/score_model.sh):
  python3 benches/experiments/disk_region_oracles.py slice|focal2|floor PRESET DIR/P.json DIR/v-P.json [more validations]
"""
import json, math, os, statistics as st, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WILLY = os.path.join(ROOT, 'target', 'release', 'willy')
KEYS = ('uniqueBytes', 'sizeMean', 'readFrac', 'seqFrac', 'processNum')


def flags(preset):
    return ['--min-time', '1s', '--max-time', '20s', '--interval', '50ms'] if preset in ('hdd', 'ssd', 'raid0') else []


def run(preset, w, seed=1):
    fd, out = tempfile.mkstemp(suffix='.json')
    os.close(fd)
    args = [WILLY, 'run', '--target', 'sim:' + preset, '--seed', str(seed), '--json', out]
    for k, f in zip(KEYS, ('--unique-bytes', '--size-mean', '--read-frac', '--seq-frac', '--process-num')):
        args += [f, str(w[k])]
    subprocess.run(args + flags(preset), check=True, capture_output=True)
    tp = json.load(open(out))['throughput_bytes_per_sec']
    os.unlink(out)
    return tp


def predict(prof, ws):
    fd, path = tempfile.mkstemp(suffix='.json')
    os.close(fd)
    json.dump(ws, open(path, 'w'))
    subprocess.run([WILLY, 'predict', '--profile', prof, path, '--json', path + '.out'], check=True, capture_output=True)
    out = json.load(open(path + '.out'))['predictions']
    os.unlink(path), os.unlink(path + '.out')
    return [x['predicted_throughput_bytes_per_sec'] for x in out]


def last_points(prof, val):
    p, v = json.load(open(prof)), json.load(open(val))
    last = len(p['regions']) - 1
    return p, v, [x for x in v['points'] if x['region'] == last]


def pmap(f, xs):
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(f, xs))


def slice_(preset, prof, val):
    p, _, pts = last_points(prof, val)
    f = p['regions'][-1]['focal']
    ws = [dict(x['workload']) for x in pts]
    wps = [dict(w, sizeMean=f['sizeMean'], readFrac=f['readFrac'], seqFrac=f['seqFrac']) for w in ws]
    pr = predict(prof, ws + wps)
    pw, pwp = pr[:len(ws)], pr[len(ws):]
    mw = pmap(lambda w: run(preset, w), wps)
    m = [x['measured_bytes_per_sec'] for x in pts]
    ew = [abs(a / b - 1) for a, b in zip(pw, m)]
    eo = [abs(t * a / b / c - 1) for t, a, b, c in zip(mw, pw, pwp, m)]
    print(f"{preset} {os.path.basename(val)}: {len(m)} workloads, willy {st.median(ew):.1%}, slice {st.median(eo):.1%}")


def interp(curve, x, logx):
    c = sorted(curve)
    xs = [math.log(a) if logx else a for a, _ in c]
    ys = [math.log(b) for _, b in c]
    v = math.log(x) if logx else x
    if v <= xs[0]:
        return math.exp(ys[0])
    if v >= xs[-1]:
        return math.exp(ys[-1])
    for i in range(len(xs) - 1):
        if xs[i] <= v <= xs[i + 1]:
            a = (v - xs[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] > xs[i] else 0.0
            return math.exp(ys[i] + a * (ys[i + 1] - ys[i]))


def focal2(preset, prof, vals):
    n2, nmin = int(os.environ.get('N2', 8)), int(os.environ.get('NMIN', 4))
    p = json.load(open(prof))
    pts, reg = p['points'], p['regions'][-1]
    f2 = dict(reg['focal'], processNum=n2)
    jobs = []
    for k in ('uniqueBytes', 'sizeMean', 'readFrac', 'seqFrac'):
        xs = [0, .25, .5, .75, 1] if k in ('readFrac', 'seqFrac') else sorted({pts[i]['workload'][k] for i in reg['curves'][k]})
        jobs += [(k, x, dict(f2, **{k: x})) for x in xs]
    tps = pmap(lambda j: run(preset, j[2]), jobs)
    t2 = run(preset, f2)
    curves = {}
    for (k, x, _), t in zip(jobs, tps):
        curves.setdefault(k, []).append((x, t))
    pn = [(pts[i]['workload']['processNum'], pts[i]['throughput_bytes_per_sec']) for i in reg['curves']['processNum']]
    for val in vals:
        _, _, lp = last_points(prof, val)
        sel = [x for x in lp if x['workload']['processNum'] >= nmin]
        if not sel:
            continue
        pw = predict(prof, [x['workload'] for x in sel])
        ew, eo = [], []
        for x, a in zip(sel, pw):
            w, m = x['workload'], x['measured_bytes_per_sec']
            pr = t2
            for k, logx in (('uniqueBytes', True), ('sizeMean', True), ('readFrac', False), ('seqFrac', False)):
                pr *= interp(curves[k], w[k], logx) / t2
            pr *= interp(pn, w['processNum'], True) / interp(pn, n2, True)
            ew.append(abs(a / m - 1))
            eo.append(abs(pr / m - 1))
        print(f"{preset} {os.path.basename(val)}: {len(sel)} workloads of {nmin}+ generators, willy {st.median(ew):.1%}, focal point at {n2}: {st.median(eo):.1%}")


def floor(preset, prof, val):
    seeds = int(os.environ.get('S', 8))
    _, _, pts = last_points(prof, val)
    jobs = [(x['workload'], s) for x in pts for s in range(1, seeds + 1)]
    tps = pmap(lambda j: run(preset, j[0], j[1]), jobs)
    e = []
    for i, x in enumerate(pts):
        med = st.median(tps[i * seeds:(i + 1) * seeds])
        e.append(abs(x['measured_bytes_per_sec'] / med - 1))
    print(f"{preset} {os.path.basename(val)}: {len(pts)} workloads, the measurement against the median of {seeds} run seeds: {st.median(e):.1%}")


if __name__ == '__main__':
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    what, preset, prof, vals = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if what == 'focal2':
        focal2(preset, prof, vals)
    else:
        for v in vals:
            {'slice': slice_, 'floor': floor}[what](preset, prof, v)
