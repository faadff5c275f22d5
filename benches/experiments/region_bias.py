#!/usr/bin/env python3
"""Signed and absolute errors of both models in one region of a preset,
pooled over its held-out seeds and binned by each parameter
(docs/PREDICTION.md, "Where split-cache's middle region errs").

    cargo build --release -p willy-predict --examples
    python3 benches/experiments/region_bias.py PRESET REGION DIR [LO HI]

DIR is benches/score_model.sh's: PRESET.json and the validations
v-PRESET.json (seed 1) and vS-PRESET.json. With PRESET `runs`, this
machine's runs in DIR (docs/runs) since 2026-11-26g are pooled instead,
as benches/score_model.sh scores them (every run validates the same 50
workloads, so a bin counts each of its workloads once a run). REGION
is a number, or `last` for each profile's last region. With LO and HI
(MiB), the workloads of uniqueBytes in [LO, HI) are also listed, by
willy's error.
A signed error is predicted / measured - 1; each line gives the median
of it and of its absolute value over the workloads in the bin.
"""
import os
import re
import signal
import statistics as st
import subprocess
import sys

SEEDS = [1, 7, 3, 5, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
POINT = re.compile(
    r"\[(\d+)\] U ([\d.]+) (\w+) size ([\d.]+) (\w+) read ([\d.]+) seq ([\d.]+) N (\d+): "
    r"measured ([\d.e+]+), chen ([\d.e+]+), willy ([\d.e+]+)"
)
UNIT = {"B": 1 / 1048576, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}


def pairs(preset, d):
    """(label, profile, validation) for each validation to pool."""
    if preset == "runs":
        for run in sorted(os.listdir(d)):
            v = f"{d}/{run}/1g-psync-validation.json"
            if run >= "2026-11-26g" and os.path.exists(v):
                yield run, f"{d}/{run}/1g-psync-profile.json", v
        return
    for s in SEEDS:
        v = f"{d}/v-{preset}.json" if s == 1 else f"{d}/v{s}-{preset}.json"
        yield s, f"{d}/{preset}.json", v


def rows(preset, region, d):
    out = []
    for s, p, v in pairs(preset, d):
        try:
            text = subprocess.run(
                ["./target/release/examples/rescore", "--all", p, v],
                capture_output=True, text=True, check=True,
            ).stdout
        except (subprocess.CalledProcessError, FileNotFoundError):
            continue
        lines = text.splitlines()
        # The summary line names every region of this profile.
        last = len(re.findall(r"region \d+", lines[0].split("willy:")[-1])) - 1 if lines else 0
        want = last if region == "last" else int(region)
        for line in lines:
            m = POINT.search(line)
            if not m or int(m.group(1)) != want:
                continue
            g = m.groups()
            me, c, w = float(g[8]), float(g[9]), float(g[10])
            out.append({
                "seed": s, "u": float(g[1]) * UNIT[g[2]], "size": float(g[3]) * UNIT[g[4]] * 1024,
                "r": float(g[5]), "q": float(g[6]), "n": int(g[7]),
                "we": w / me - 1, "ce": c / me - 1,
            })
    return out


def line(name, rs):
    if not rs:
        return
    med = lambda k: st.median(x[k] for x in rs)
    amed = lambda k: st.median(abs(x[k]) for x in rs)
    print(f"{name:<26} n{len(rs):4d}  willy {med('we'):+.3f} / {amed('we'):.3f}"
          f"  chen {med('ce'):+.3f} / {amed('ce'):.3f}")


def bins(rs, key, edges):
    for lo, hi in zip(edges, edges[1:]):
        line(f"{key} {lo:g}-{hi:g}", [x for x in rs if lo <= x[key] < hi])


def main():
    if len(sys.argv) not in (4, 6):
        sys.exit(__doc__)
    preset, region, d = sys.argv[1], sys.argv[2], sys.argv[3]
    if region != "last" and not region.isdigit():
        sys.exit(f"region_bias.py: REGION is a number or `last`, got {region!r}")
    rs = rows(preset, region, d)
    print("median signed / absolute error (predicted / measured - 1)")
    line("all", rs)
    us = sorted(x["u"] for x in rs)
    if us:
        bins(rs, "u", [us[len(us) * i // 5] for i in range(5)] + [float("inf")])
    bins(rs, "r", [0, 0.25, 0.5, 0.75, 1.01])
    bins(rs, "q", [0, 0.25, 0.5, 0.75, 1.01])
    bins(rs, "size", [0, 16, 64, 256, 1024, float("inf")])
    bins(rs, "n", [1, 2, 3, 5, 9, 17])
    if len(sys.argv) == 6:
        lo, hi = float(sys.argv[4]), float(sys.argv[5])
        sub = [x for x in rs if lo <= x["u"] < hi]
        print(f"uniqueBytes {lo:g}-{hi:g} MiB, size >= 128 KiB and seqFrac >= 0.5:")
        line("", [x for x in sub if x["size"] >= 128 and x["q"] >= 0.5])
        print(f"uniqueBytes {lo:g}-{hi:g} MiB, by readFrac:")
        bins(sub, "r", [0, 0.25, 0.5, 0.75, 1.01])
        # Each workload once (a run's is measured in every run), by willy's
        # median signed error.
        same = {}
        for x in sub:
            same.setdefault((round(x["u"]), round(x["size"]), x["r"], x["q"], x["n"]), []).append(x)
        print("each workload: uniqueBytes MiB, size KiB, readFrac, seqFrac, processNum,"
              " validations, median signed error willy / chen")
        for k, xs in sorted(same.items(), key=lambda kv: st.median(x["we"] for x in kv[1])):
            print(f"  {k[0]:7d} {k[1]:6d} {k[2]:.3f} {k[3]:.3f} {k[4]:2d}  {len(xs):3d}"
                  f"  {st.median(x['we'] for x in xs):+.3f} / {st.median(x['ce'] for x in xs):+.3f}")


signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
main()
