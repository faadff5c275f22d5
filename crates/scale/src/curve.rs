//! The uniqueBytes curve: where throughput drops, and the regions between.
//!
//! Chen (section 4.5, Fig. 4.6) cuts the uniqueBytes curve where its slope
//! is steep. willy does the same in log-log space, where a plateau has slope
//! 0 whatever its level:
//!
//! - the slope of segment `i` is `ln(T[i+1] / T[i]) / ln(U[i+1] / U[i])`;
//! - a **drop** is a maximal run of consecutive segments each steeper than
//!   [`STEEP_SLOPE`] (throughput falling faster than `U^-0.5`), whose ends
//!   differ by at least [`MIN_DROP`] (a factor of 1.25, Chen's 75% knee);
//!   Two steep runs separated by a single segment, or by a stretch spanning
//!   less than [`MIN_PLATEAU`] (2x) of uniqueBytes, are one drop: one point
//!   off the trend in the middle of a fall is noise, and a fall that slows
//!   for a point or two is still one fall, not a plateau. Each
//!   plateau needs at least two points (a fall from the first point or to
//!   the last gives its end segment to the plateau), and the plateaus' medians, not only the run's ends,
//!   must differ by [`MIN_DROP`] (a noisy dip that comes back is none);
//! - a **region** is what lies between drops (or a sweep end), and its focal
//!   point is its geometric middle (Chen: "the middle of that region");
//! - a region (but the last) over which the curve still falls by
//!   [`SPLIT`] or more, end to end, is no plateau: it is cut in two where
//!   the curve crosses the geometric mean of its ends ([`split_wide`]), so
//!   that each part has a focal point of its own.
//!
//! Throughput is not linear in the hit ratio, but time per byte is. Across a
//! drop from plateau `T_hi` to `T_lo`, the fraction of the work the faster
//! level serves is `h(U) = (1/T - 1/T_lo) / (1/T_hi - 1/T_lo)`; the drop's
//! *centre* is where `h = 1/2`, found by interpolating `h` in `ln U`.

/// A region (but the last) whose curve falls by this factor or more from
/// its first two points to its last two is cut in two ([`split_wide`]).
/// On this machine the file cache's region, 1 MiB to the 1 GiB cache,
/// falls 2.3-6.1x through the CPUs' caches without a drop steep enough to
/// cut it, and the curves measured at its focal point (about 30 MiB) do not
/// hold at 100-900 MiB: many generators gain less there (docs/SCALING.md,
/// step 4). The simulated presets' regions fall 1.7x at most
/// (split-cache's first).
pub const SPLIT: f64 = 2.0;

/// Segments steeper than this (in log-log) belong to a drop.
pub const STEEP_SLOPE: f64 = -0.5;
/// A drop must lose at least this factor of throughput, between the
/// plateaus on either side (their medians), not only between its ends.
pub const MIN_DROP: f64 = 1.25;
/// A steep run must lose at least this factor beyond its ends' confidence
/// intervals, or it is noise (a noisy write probe's 6% step, steep only
/// because its points were 11% of uniqueBytes apart, merged with a later
/// fall and moved its start 30% down).
pub const MIN_RUN_FALL: f64 = 1.1;
/// A plateau between two steep runs must span at least this factor of
/// uniqueBytes; a shorter one is a fall that slows for a point or two (as
/// Linux's does past its file cache), and the two runs are one drop.
pub const MIN_PLATEAU: f64 = 2.0;
/// The share of the work served at the higher level that marks a drop's
/// onset: where the first 2% of requests miss.
pub const ONSET_H: f64 = 0.98;
/// The level a fall starts from is the median of this many points before
/// it.
pub const NEAR_POINTS: usize = 3;

/// One measured point of the curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// uniqueBytes.
    pub unique_bytes: f64,
    /// Throughput, bytes per second.
    pub throughput: f64,
    /// Half-width of its 95% confidence interval, relative to `throughput`
    /// (0 where unknown, as for recorded curves without one).
    pub ci: f64,
}

/// A fall in throughput between two plateaus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drop {
    /// Index of the last point before the fall.
    pub start: usize,
    /// Index of the first point after it.
    pub end: usize,
    /// Throughput where the fall starts: the level of the plateau's last
    /// points before it (see [`near_level`]).
    pub high: f64,
    /// Throughput of the plateau below.
    pub low: f64,
    /// uniqueBytes where half the work is served at the higher level.
    pub centre: f64,
    /// uniqueBytes where [`ONSET_H`] of the work is served at the higher
    /// level: where the fall begins.
    pub onset: f64,
    /// The segment the onset lies in: the index of its lower end (a sweep
    /// refines it first, [`crate::sweep`]).
    pub onset_segment: usize,
}

/// A stretch of the curve between drops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Region {
    /// Smallest uniqueBytes in the region.
    pub from: f64,
    /// Largest uniqueBytes in the region.
    pub to: f64,
    /// The geometric middle: the region's focal uniqueBytes.
    pub focal: f64,
}

impl Region {
    /// The region from `from` to `to`, its focal point at their geometric
    /// middle.
    pub fn spanning(from: f64, to: f64) -> Region {
        Region {
            from,
            to,
            focal: (from * to).sqrt(),
        }
    }
}

/// A curve from (uniqueBytes, throughput) pairs, as recorded runs are kept.
pub fn points(data: &[(f64, f64)]) -> Vec<Point> {
    data.iter()
        .map(|&(u, t)| Point {
            unique_bytes: u,
            throughput: t,
            ci: 0.0,
        })
        .collect()
}

/// The factor throughput falls from `a` to `b` with each end moved towards
/// the other by its confidence interval: the fall the points' noise cannot
/// explain (below 1 where it can).
fn sure_fall(a: &Point, b: &Point) -> f64 {
    a.throughput * (1.0 - a.ci).max(f64::MIN_POSITIVE) / (b.throughput * (1.0 + b.ci))
}

/// True when the segment from `a` to `b` falls faster than [`STEEP_SLOPE`]
/// beyond its points' noise ([`sure_fall`]): the refined points of a noisy
/// write probe, 11% of uniqueBytes apart, used to make a 1.5x slope over 4x
/// of uniqueBytes a 125 MiB cache.
fn steep(a: &Point, b: &Point) -> bool {
    -sure_fall(a, b).ln() / (b.unique_bytes / a.unique_bytes).ln() < STEEP_SLOPE
}

/// Median throughput of `pts` (the level of a plateau, robust to noise).
fn level(pts: &[Point]) -> f64 {
    let mut v: Vec<f64> = pts.iter().map(|p| p.throughput).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The drops of a curve sorted by uniqueBytes, all throughputs positive.
pub fn drops(pts: &[Point]) -> Vec<Drop> {
    let mut out = Vec::new();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 1 < pts.len() {
        if !steep(&pts[i], &pts[i + 1]) {
            i += 1;
            continue;
        }
        let start = i;
        while i + 1 < pts.len() && steep(&pts[i], &pts[i + 1]) {
            i += 1;
        }
        let end = i;
        if sure_fall(&pts[start], &pts[end]) < MIN_RUN_FALL {
            continue; // within the noise of its ends
        }
        // One segment, or a stretch narrower than MIN_PLATEAU, between two
        // steep runs is no plateau (a noisy point in the middle of a fall,
        // or a fall that slows): the runs are one drop.
        match runs.last_mut() {
            Some(prev)
                if prev.1 + 1 == start
                    || pts[start].unique_bytes / pts[prev.1].unique_bytes < MIN_PLATEAU =>
            {
                prev.1 = end
            }
            _ => runs.push((start, end)),
        }
    }
    for (mut start, mut end) in runs {
        // A plateau needs two points: a fall from the first point or to the
        // last gives up its end segment to the plateau (a floor that keeps
        // sinking, as a kernel's does when it keeps a share C/U of a large
        // working set, still ends the drop).
        if start == 0 {
            start = 1;
        }
        if end + 1 >= pts.len() {
            end = pts.len().saturating_sub(2);
        }
        if start >= end {
            continue;
        }
        if pts[start].throughput / pts[end].throughput >= MIN_DROP {
            out.push(Drop {
                start,
                end,
                high: 0.0,
                low: 0.0,
                centre: 0.0,
                onset: 0.0,
                onset_segment: start,
            });
        }
    }
    // Plateau levels: the points between neighbouring drops. A drop whose
    // plateaus differ by less than MIN_DROP (a noisy dip that comes back)
    // is none; levels are taken again without it.
    loop {
        levels(pts, &mut out);
        match out.iter().position(|d| d.high / d.low < MIN_DROP) {
            Some(k) => {
                out.remove(k);
            }
            None => break,
        }
    }
    for d in &mut out {
        // `high` is the whole plateau's median until here.
        d.high = near_level(pts, d.start, d.high);
        d.centre = level_crossing(pts, d, 0.5).0;
        (d.onset, d.onset_segment) = level_crossing(pts, d, ONSET_H);
    }
    out
}

fn levels(pts: &[Point], out: &mut [Drop]) {
    for k in 0..out.len() {
        let above_from = if k == 0 { 0 } else { out[k - 1].end };
        let below_to = if k + 1 < out.len() {
            out[k + 1].start
        } else {
            pts.len() - 1
        };
        let (start, end) = (out[k].start, out[k].end);
        out[k].high = level(&pts[above_from..=start]);
        out[k].low = level(&pts[end..=below_to]);
    }
}

/// The level the fall starts from: the median of the last [`NEAR_POINTS`]
/// points before it, where the plateau above has that many (never above
/// the whole plateau's median `whole`). A plateau that slopes down, as
/// Linux's does through the CPU's caches, has its median well above the
/// point where the fall begins; measured from there, the onset of a quiet
/// 1 GiB run's cache came 6% early and the cache 12% small.
fn near_level(pts: &[Point], start: usize, whole: f64) -> f64 {
    level(&pts[start.saturating_sub(NEAR_POINTS - 1)..=start]).min(whole)
}

/// Where `h` crosses `level` across drop `d`, interpolated in `ln U`, and
/// the segment it lies in (the index of its lower end).
///
/// The crossing lies before the first point of the fall that is below
/// `level` even at the top of its confidence interval: a point just below
/// it, within its noise, does not start the fall (one run's two noisy
/// points 22% under the plateau, with 9% intervals, put its 1 GiB cache
/// at 724 MiB). Where the point before that one is itself below `level`
/// (within its noise, or because the plateau above slopes down and its
/// last point lies below the plateau's level), the crossing is at that
/// point; where no point of the fall is below `level`, at the first point
/// after it. (Both used to fall back to the middle of the drop's span in
/// `ln U`: a quiet 1 GiB run put the onset of its file cache at 1.49 GiB,
/// though the fall plainly began at 987 MiB.)
fn level_crossing(pts: &[Point], d: &Drop, level: f64) -> (f64, usize) {
    let h = |t: f64| (1.0 / t - 1.0 / d.low) / (1.0 / d.high - 1.0 / d.low);
    let Some(below) = (d.start..=d.end).find(|&j| h(pts[j].throughput * (1.0 + pts[j].ci)) < level)
    else {
        return (pts[d.end].unique_bytes, d.end - 1);
    };
    if below == d.start {
        return (pts[below].unique_bytes, below);
    }
    let (a, b) = (&pts[below - 1], &pts[below]);
    let (ha, hb) = (h(a.throughput), h(b.throughput));
    if ha <= level {
        return (a.unique_bytes, below - 1);
    }
    let f = (ha - level) / (ha - hb);
    let u = (a.unique_bytes.ln() + f * (b.unique_bytes / a.unique_bytes).ln()).exp();
    (u, below - 1)
}

/// The regions between the drops of `pts`.
pub fn regions(pts: &[Point], drops: &[Drop]) -> Vec<Region> {
    let spans: Vec<(f64, f64)> = drops
        .iter()
        .map(|d| (pts[d.start].unique_bytes, pts[d.end].unique_bytes))
        .collect();
    regions_between(pts[0].unique_bytes, pts[pts.len() - 1].unique_bytes, &spans)
}

/// The regions of `[from, to]` outside the drop spans `spans` (each
/// `(first point before the fall, first point after it)`). Overlapping
/// spans are merged; empty regions are left out.
pub fn regions_between(from: f64, to: f64, spans: &[(f64, f64)]) -> Vec<Region> {
    let mut s: Vec<(f64, f64)> = spans.to_vec();
    s.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::new();
    for (a, b) in s {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let mut bounds = vec![from];
    for (a, b) in merged {
        bounds.push(a);
        bounds.push(b);
    }
    bounds.push(to);
    bounds
        .chunks(2)
        .filter(|c| c[0] < c[1])
        .map(|c| Region::spanning(c[0], c[1]))
        .collect()
}

/// `regions` with every one but the last whose curve `pts` falls by
/// [`SPLIT`] or more over it cut in two, once: where the curve crosses the
/// geometric mean of its ends (the mean of its first two points' throughput
/// and of its last two, in log), at the nearest of its inner points that
/// leaves each part [`MIN_PLATEAU`] of uniqueBytes (no sliver where the
/// curve falls into the next drop), if that point lies within a quarter of
/// the fall of the mean (a curve that falls at one end, and is flat
/// elsewhere, has no middle to cut at). A region needs four points of
/// `pts` to be cut. The parts touch (the first ends where the second
/// begins) and each focal point is its part's geometric middle.
pub fn split_wide(regions: Vec<Region>, pts: &[Point]) -> Vec<Region> {
    let n = regions.len();
    let mut out = Vec::with_capacity(n + n.saturating_sub(1));
    for (k, r) in regions.into_iter().enumerate() {
        let inside: Vec<&Point> = pts
            .iter()
            .filter(|p| p.unique_bytes >= r.from && p.unique_bytes <= r.to)
            .collect();
        let m = inside.len();
        let ln_end = |a: &Point, b: &Point| 0.5 * (a.throughput.ln() + b.throughput.ln());
        let cut = (k + 1 < n && m >= 4)
            .then(|| {
                (
                    ln_end(inside[0], inside[1]),
                    ln_end(inside[m - 2], inside[m - 1]),
                )
            })
            .filter(|(hi, lo)| hi - lo >= SPLIT.ln())
            .and_then(|(hi, lo)| {
                let mid = 0.5 * (hi + lo);
                inside[1..m - 1]
                    .iter()
                    .filter(|p| {
                        p.unique_bytes >= r.from * MIN_PLATEAU
                            && p.unique_bytes * MIN_PLATEAU <= r.to
                    })
                    .min_by(|a, b| {
                        (a.throughput.ln() - mid)
                            .abs()
                            .total_cmp(&(b.throughput.ln() - mid).abs())
                    })
                    .filter(|p| (p.throughput.ln() - mid).abs() <= 0.25 * (hi - lo))
                    .map(|p| p.unique_bytes)
            });
        match cut {
            Some(u) => out.extend([Region::spanning(r.from, u), Region::spanning(u, r.to)]),
            None => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A cache of C in front of a slower store: time per byte is the
    /// hit-weighted mix, the hit ratio falling linearly in ln U over
    /// [C, 4C] (a stand-in for a real drop's shape).
    fn staircase(levels: &[(f64, f64)], floor: f64, us: &[f64]) -> Vec<Point> {
        us.iter()
            .map(|&u| {
                let mut t_per_byte = 1.0 / floor;
                let mut above = floor;
                for &(c, t) in levels.iter().rev() {
                    let h = (1.0 - (u / c).ln() / 4f64.ln()).clamp(0.0, 1.0);
                    t_per_byte = h / t + (1.0 - h) / above;
                    above = 1.0 / t_per_byte;
                }
                Point {
                    unique_bytes: u,
                    throughput: 1.0 / t_per_byte,
                    ci: 0.0,
                }
            })
            .collect()
    }

    fn log_points(from: f64, to: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| from * (to / from).powf(i as f64 / (n - 1) as f64))
            .collect()
    }

    #[test]
    fn a_flat_curve_has_one_region() {
        let pts: Vec<Point> = log_points(1e6, 1e9, 20)
            .iter()
            .map(|&u| Point {
                unique_bytes: u,
                throughput: 5e6,
                ci: 0.0,
            })
            .collect();
        let d = drops(&pts);
        assert!(d.is_empty());
        let r = regions(&pts, &d);
        assert_eq!(r.len(), 1);
        assert!((r[0].focal / (1e6f64 * 1e9).sqrt() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn one_step_gives_two_regions_and_the_centre_where_half_is_served() {
        let pts = staircase(&[(32e6, 100e6)], 2e6, &log_points(1e6, 1e9, 25));
        let d = drops(&pts);
        assert_eq!(d.len(), 1, "{d:?}");
        // h = 1/2 at U = C * 4^(1/2) = 2C.
        assert!(
            (d[0].centre / 64e6 - 1.0).abs() < 0.05,
            "centre {}",
            d[0].centre
        );
        assert!((d[0].high / 100e6 - 1.0).abs() < 0.01 && (d[0].low / 2e6 - 1.0).abs() < 0.01);
        assert_eq!(regions(&pts, &d).len(), 2);
    }

    #[test]
    fn one_noisy_point_inside_a_fall_does_not_split_it() {
        let mut pts = staircase(&[(32e6, 100e6)], 2e6, &log_points(1e6, 1e9, 40));
        // Raise one point in the middle of the fall above its predecessor.
        let d = drops(&pts);
        assert_eq!(d.len(), 1);
        let mid = (d[0].start + d[0].end) / 2;
        pts[mid + 1].throughput = pts[mid].throughput * 1.2;
        let d = drops(&pts);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(regions(&pts, &d).len(), 2);
    }

    #[test]
    fn a_fall_that_slows_is_one_drop() {
        // The read probe of a 20-minute run under a 1 GiB cgroup
        // (docs/PERFORMANCE.md): the fall past the file cache pauses at
        // 1.8-2.1 GiB (186, 185, 177 MB/s) and goes on to 128 MB/s. That is
        // one drop, not a second cache of 2.27 GiB. The dip at 3-4 MiB (the
        // CPU's caches) stays a drop of its own.
        let data = [
            (1048576.0, 5084693845.0),
            (1626112.0, 5609735509.0),
            (2514944.0, 5810869043.0),
            (3133440.0, 5970375475.0),
            (3493888.0, 5527851827.0),
            (3899392.0, 4393430220.0),
            (6041600.0, 5402319530.0),
            (9359360.0, 4421129557.0),
            (14499840.0, 4396583594.0),
            (22462464.0, 3856773120.0),
            (34799616.0, 3443098965.0),
            (53915648.0, 3124677836.0),
            (83529728.0, 3289571328.0),
            (129409024.0, 3700663910.0),
            (200486912.0, 3253861034.0),
            (310607872.0, 2837646540.0),
            (481214464.0, 2981074261.0),
            (745525248.0, 3315896692.0),
            (927948800.0, 3377591091.0),
            (1035276288.0, 3087193925.0),
            (1155014656.0, 616921770.0),
            (1288601600.0, 421512533.0),
            (1437638656.0, 320918323.0),
            (1603911680.0, 249819136.0),
            (1789415424.0, 186414421.0),
            (1996378112.0, 184613546.0),
            (2227273728.0, 177416874.0),
            (2484875264.0, 158777344.0),
            (2772271104.0, 127885312.0),
            (4294967296.0, 128562517.0),
        ];
        let pts = points(&data);
        let d = drops(&pts);
        assert_eq!(d.len(), 2, "{d:?}");
        let last = d[1];
        assert!(
            (7e8..1.1e9).contains(&pts[last.start].unique_bytes),
            "{d:?}"
        );
        assert_eq!(pts[last.end].unique_bytes, 2772271104.0);
        assert!(d[0].onset < 4e6, "{d:?}");
    }

    #[test]
    fn regions_between_merges_overlapping_spans() {
        let r = regions_between(1.0, 1000.0, &[(10.0, 20.0), (15.0, 40.0), (200.0, 1000.0)]);
        let got: Vec<(f64, f64)> = r.iter().map(|r| (r.from, r.to)).collect();
        assert_eq!(got, vec![(1.0, 10.0), (40.0, 200.0)]);
    }

    #[test]
    fn a_small_dip_is_not_a_drop() {
        let pts = staircase(&[(32e6, 11e6)], 10e6, &log_points(1e6, 1e9, 25));
        assert!(drops(&pts).is_empty());
    }

    /// A curve falling as `U^-slope` from `t0` at 1 MiB, with no drop.
    fn sloping(slope: f64, t0: f64, us: &[f64]) -> Vec<Point> {
        let pts: Vec<(f64, f64)> = us
            .iter()
            .map(|&u| (u, t0 * (u / 1e6).powf(-slope)))
            .collect();
        points(&pts)
    }

    /// This machine's file-cache region, 1 MiB to 1 GiB, fell 6x through
    /// the CPUs' caches (2026-11-26b): cut in two where it crosses the
    /// geometric mean of its ends; the disk region after it stays whole.
    #[test]
    fn a_region_that_keeps_falling_is_cut_in_two() {
        let us = log_points(1e6, 1e9, 20);
        let pts = sloping(0.26, 31e9, &us);
        let whole = vec![Region::spanning(1e6, 1e9), Region::spanning(2e9, 4e9)];
        let r = split_wide(whole.clone(), &pts);
        assert_eq!(r.len(), 3, "{r:?}");
        assert_eq!((r[0].from, r[1].to, r[2]), (1e6, 1e9, whole[1]));
        assert_eq!(r[0].to, r[1].from);
        // The ends' means sit half a step in: the cut is near sqrt(1e6 * 1e9).
        let cut = r[0].to;
        assert!(
            (cut / 31.6e6).ln().abs() < (1e9f64 / 1e6).ln() / 19.0 + 1e-9,
            "cut at {cut}"
        );
        for x in &r[..2] {
            assert!((x.focal - (x.from * x.to).sqrt()).abs() < 1.0);
        }
        // A fall all at the end has no point near the ends' mean: not cut.
        let mut cliff = sloping(0.0, 31e9, &us);
        for p in &mut cliff[17..] {
            p.throughput /= 3.0;
        }
        assert_eq!(split_wide(whole.clone(), &cliff), whole);
        // A fall whose middle is within 2x of the region's end: no sliver.
        let mut late = sloping(0.0, 31e9, &us);
        for (p, f) in late[17..].iter_mut().zip([1.1, 1.5, 4.0]) {
            p.throughput /= f;
        }
        assert_eq!(split_wide(whole.clone(), &late), whole);
        // The same fall in the last region, or in a region of three points,
        // or a fall under SPLIT: nothing is cut.
        let last = vec![whole[0]];
        assert_eq!(split_wide(last.clone(), &pts), last);
        assert_eq!(split_wide(whole.clone(), &pts[..3]), whole);
        assert_eq!(split_wide(whole.clone(), &sloping(0.09, 31e9, &us)), whole);
    }

    proptest! {
        /// Cutting keeps the regions in order, covering what they covered,
        /// and cuts exactly where the ends' means differ by SPLIT (with
        /// eight points or more, one always lies near the middle).
        #[test]
        fn cut_regions_cover_the_same_span(slope in 0.0f64..0.5, t0 in 1e8f64..1e11, n in 8usize..30) {
            let us = log_points(1e6, 1e9, n);
            let pts = sloping(slope, t0, &us);
            let whole = vec![Region::spanning(1e6, 1e9), Region::spanning(2e9, 4e9)];
            let r = split_wide(whole.clone(), &pts);
            prop_assert!(r.len() == 2 || r.len() == 3);
            prop_assert_eq!(r[0].from, 1e6);
            prop_assert_eq!(r[r.len() - 1], whole[1]);
            prop_assert_eq!(r[r.len() - 2].to, 1e9);
            prop_assert!(r.windows(2).all(|w| w[0].to <= w[1].from && w[0].from < w[0].to));
            // The first two points' mean ln U lies half a step above the
            // first, the last two's half a step below the last.
            let span = 1e3f64.ln() * (1.0 - 1.0 / (n as f64 - 1.0));
            let fall = (slope * span).exp();
            prop_assume!((fall / SPLIT).ln().abs() > 1e-9);
            prop_assert_eq!(r.len() == 3, fall >= SPLIT, "fall {}", fall);
        }

        #[test]
        fn two_steps_are_found_where_they_are(c1 in 1e6f64..1e7, gap in 20.0f64..200.0, t_hi in 1e8f64..1e9, f1 in 3.0f64..20.0, f2 in 3.0f64..20.0) {
            let c2 = c1 * gap;
            let (t_mid, t_lo) = (t_hi / f1, t_hi / f1 / f2);
            let pts = staircase(&[(c1, t_hi), (c2, t_mid)], t_lo, &log_points(c1 / 16.0, c2 * 16.0, 40));
            let d = drops(&pts);
            prop_assert_eq!(d.len(), 2, "{:?}", d);
            prop_assert!((d[0].centre / (2.0 * c1) - 1.0).abs() < 0.1, "first centre {} for C {}", d[0].centre, c1);
            prop_assert!((d[1].centre / (2.0 * c2) - 1.0).abs() < 0.1, "second centre {} for C {}", d[1].centre, c2);
            let r = regions(&pts, &d);
            prop_assert_eq!(r.len(), 3);
            prop_assert!(r.windows(2).all(|w| w[0].to <= w[1].from));
        }
    }
}
