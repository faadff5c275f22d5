#!/usr/bin/env python3
"""A profile of a simulated preset with its processNum curves measured at
every whole number of generators up to their most (1, 2, 3, 4 where the
scaler measures 1, 2, 4): docs/PREDICTION.md, "Tried in session 49".

  python3 benches/experiments/every_generator.py PRESET PROFILE OUT [skip-last]

Each missing point is the region's focal point with that many generators,
measured once with `willy run` (the simulator is deterministic; hdd, ssd
and raid0 with the tests' short stopping rule) and added to the curve;
with `skip-last`, the last region's curve is left as it was. Then rescore
the preset's validations against OUT (`rescore OUT V`). Uses
./target/release/willy (`cargo build --release`).
"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WILLY = os.path.join(ROOT, 'target', 'release', 'willy')


def main():
    preset, src, dst = sys.argv[1:4]
    skip_last = len(sys.argv) > 4
    flags = ['--min-time', '1s', '--max-time', '20s', '--interval', '50ms'] \
        if preset in ('hdd', 'ssd', 'raid0') else []
    p = json.load(open(src))
    tmp = tempfile.mkdtemp()
    for k, r in enumerate(p['regions']):
        if skip_last and k == len(p['regions']) - 1:
            continue
        idx = r['curves']['processNum']
        ns = [p['points'][i]['workload']['processNum'] for i in idx]
        for n in range(1, max(ns) + 1):
            if n in ns:
                continue
            w = dict(r['focal'], processNum=n)
            json.dump(w, open(os.path.join(tmp, 'w.json'), 'w'))
            out = os.path.join(tmp, 'm.json')
            subprocess.run([WILLY, 'run', '-t', 'sim:' + preset, '-w', os.path.join(tmp, 'w.json'),
                            '--json', out] + flags, capture_output=True, check=True)
            m = json.load(open(out))
            p['points'].append(dict(
                workload=w, throughput_bytes_per_sec=m['throughput_bytes_per_sec'],
                ci95_rel=m['ci95_rel'], duration_secs=m['duration_secs'],
                cpu_cores_busy=m['cpu']['cores_busy'], device_busy_frac=m.get('device_busy_frac'),
                generators_bytes_per_sec=m.get('generators_bytes_per_sec')))
            idx.append(len(p['points']) - 1)
            print(f"{preset} region {k}: {n} generators, {m['throughput_bytes_per_sec']:.4g} B/s",
                  file=sys.stderr)
        idx.sort(key=lambda i: p['points'][i]['workload']['processNum'])
    json.dump(p, open(dst, 'w'))


main()
