#!/usr/bin/env python3
"""Workloads around one region's focal point of a simulated system, each
measured (`willy run`) beside both models' predictions (`willy predict`):
docs/PREDICTION.md, "Tried in session 48".

  python3 benches/experiments/size_read_grid.py PROFILE sim:PRESET REGION
      five sizes (4 KiB to 1 MiB) by five readFracs (0 to 1), the
      focal point's other parameters
  python3 benches/experiments/size_read_grid.py PROFILE sim:PRESET REGION uniqueBytes
      readFrac 1, 0.81, 0.5 and 0 at five uniqueBytes (7 MB to 24 MB,
      and the focal point's), the other parameters the focal point's;
      each line also gives the throughput over that at the focal
      uniqueBytes

Uses ./target/release/willy (`cargo build --release`); the simulator is
deterministic, so one measurement each is enough. Seconds on
sim:split-cache.
"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WILLY = os.path.join(ROOT, 'target', 'release', 'willy')


def predict(profile, ws, model, tmp):
    src, out = os.path.join(tmp, 'ws.json'), os.path.join(tmp, 'p.json')
    json.dump(ws, open(src, 'w'))
    subprocess.run([WILLY, 'predict', '--profile', profile, '--model', model, src, '--json', out],
                   capture_output=True, check=True)
    return [x['predicted_throughput_bytes_per_sec'] for x in json.load(open(out))['predictions']]


def measure(target, w, tmp):
    src, out = os.path.join(tmp, 'w.json'), os.path.join(tmp, 'm.json')
    json.dump(w, open(src, 'w'))
    subprocess.run([WILLY, 'run', '-t', target, '-w', src, '--json', out], capture_output=True, check=True)
    m = json.load(open(out))
    return m.get('measurement', m)['throughput_bytes_per_sec']


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    profile, target, region = sys.argv[1], sys.argv[2], int(sys.argv[3])
    focal = json.load(open(profile))['regions'][region]['focal']
    ws = []
    if len(sys.argv) == 5 and sys.argv[4] == 'uniqueBytes':
        for r in (1.0, 0.81, 0.5, 0.0):
            for u in (7_000_000, 10_276_000, 13_000_000, focal['uniqueBytes'], 24_000_000):
                ws.append(dict(focal, readFrac=r, uniqueBytes=u))
    else:
        for z in (4096, 16384, 65536, 262144, 1048576):
            for r in (0.0, 0.25, 0.5, 0.75, 1.0):
                ws.append(dict(focal, sizeMean=z, readFrac=r))
    with tempfile.TemporaryDirectory() as tmp:
        chen, willy = predict(profile, ws, 'chen', tmp), predict(profile, ws, 'willy', tmp)
        measured = []
        for w, c, y in zip(ws, chen, willy):
            t = measure(target, w, tmp)
            measured.append(t)
            print('U %9d size %7d readFrac %.2f: measured %.4g B/s, chen %+.3f, willy %+.3f' % (
                w['uniqueBytes'], w['sizeMean'], w['readFrac'], t, c / t - 1, y / t - 1), flush=True)
        if len(sys.argv) == 5:
            for r in sorted({w['readFrac'] for w in ws}, reverse=True):
                row = [(w['uniqueBytes'], t) for w, t in zip(ws, measured) if w['readFrac'] == r]
                base = dict(row)[focal['uniqueBytes']]
                print('readFrac %.2f, over the focal uniqueBytes: %s' % (
                    r, ', '.join('%.1f MB %.2f' % (u / 1e6, t / base) for u, t in row)))

if __name__ == '__main__':
    main()
