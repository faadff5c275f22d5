//! The self-scaling benchmark over any way of measuring a workload (Chen
//! 1992, section 4.5): the uniqueBytes curve, its regions, a focal vector per
//! region and the four single-parameter curves around it.
//!
//! Per region:
//! 1. uniqueBytes is the region's geometric middle; readFrac and seqFrac are
//!    0.5 (the middle of their range);
//! 2. sizeMean is measured from one block upwards, doubling, at least to
//!    1 MiB and on while throughput still improves by [`IMPROVES`]; its focal
//!    value is the measured size where the curve first reaches halfway
//!    between its minimum and maximum (on a curve that rises and falls,
//!    the rising side). processNum likewise, from 1, doubling, up to
//!    `max_process_num`.
//!    The focal processNum is at most the focal uniqueBytes over the
//!    region's lower border ([`share_cap`]): each generator works on its
//!    own share of uniqueBytes, and a share that fits a cache lets that
//!    generator keep all of it cached and run at cache speed while the
//!    others miss, which would put the focal vector in another region;
//! 3. if either focal value moved from the first guess (two blocks, one
//!    process), both curves are measured once more around the new focal
//!    vector and the focal values taken again (Chen: iterate once); then
//!    both are measured around the final focal vector, so that every curve
//!    of a region passes through its focal point;
//! 4. readFrac and seqFrac are measured at 0, 0.1, ..., 1;
//! 5. uniqueBytes is measured through the focal vector at the sweep's
//!    values over the region and the drops on either side of it, so that
//!    prediction scales by uniqueBytes with the region's own sizeMean and
//!    processNum.
//!
//! With [`Focus::Knee`] (Chen's section 4.4, for comparison) there is one
//! region over the whole sweep and one global focal vector: each parameter
//! at its hardest value that still reaches [`KNEE`] (75%) of its curve's
//! maximum (the largest uniqueBytes; the smallest sizeMean, processNum,
//! readFrac and seqFrac), set one parameter after another and iterated
//! until a round moves none, at most [`KNEE_ROUNDS`] rounds.
//!
//! Workloads that the model does not allow (a sizeMean larger than a
//! generator's file) are left out of a curve.

use crate::curve::{drops, regions_between, split_wide, Drop, Point, Region};
use crate::infer::{cache_size, check_fit, size_interval};
use crate::sweep::{sweep, with_unique, SweepPlan};
use std::collections::HashMap;
use willy::doc::profile::{
    plateau, read_cache_size, within, CacheFound, Curves, Probe, ProfilePoint, ProfileRegion,
    Ranges,
};
use willy::units::Bytes;
use willy::workload::Workload;

/// A curve goes on growing while a step improves throughput by this factor.
pub use willy::doc::profile::IMPROVES;

/// What a measurement returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Throughput, bytes per second.
    pub throughput: f64,
    /// Relative 95% half-width, if computed.
    pub ci95_rel: Option<f64>,
    /// Seconds measured.
    pub duration_secs: f64,
    /// The machine's background meanwhile (real targets).
    pub background: Option<willy::background::Background>,
    /// CPU cores busy with the requests (see
    /// [`willy::doc::profile::ProfilePoint::cpu_cores_busy`]).
    pub cpu_cores_busy: Option<f64>,
    /// The share of the time the device was busy, where known.
    pub device_busy_frac: Option<f64>,
    /// The throughput after a transient at the start, where one was found.
    pub steady: Option<f64>,
    /// Each generator's throughput (the run document's
    /// `generators_bytes_per_sec`).
    pub generators: Vec<f64>,
}

impl From<&willy::report::Measurement> for Measured {
    fn from(m: &willy::report::Measurement) -> Measured {
        Measured {
            background: m.background,
            throughput: m.throughput_bytes_per_sec,
            ci95_rel: m.ci95_rel,
            duration_secs: m.duration_secs,
            cpu_cores_busy: m.cpu.cores_busy.is_finite().then_some(m.cpu.cores_busy),
            device_busy_frac: m.device_busy_frac,
            steady: m.stopping.steady_after_transient(),
            generators: m.generators_bytes_per_sec.clone(),
        }
    }
}

/// The probes whose drops locate the caches: random reads and random
/// writes (readFrac 1 and 0, seqFrac 0, the focal sizeMean and processNum).
///
/// A read probe's cache is the uniqueBytes at its drop's onset (where the
/// first [`crate::curve::ONSET_H`] of the work is no longer served at the
/// faster level): a working set the cache holds whole is served whole
/// whatever its replacement policy, and misses begin where it no longer
/// fits. Further down the policies differ: Linux's fall is far more
/// gradual than LRU's with this loop-like pattern (its h = 1/2 lies at
/// 1.4 C, LRU's at 2 C), and reading the cache from the LRU stack distances
/// at the onset made it depend on how long the stack profile ran (0.97 U
/// at 1 GiB, 0.85 U at 21 MiB). The size's interval is the onset's
/// segment: the last point before it and the first after. A write probe's
/// cache is the LRU size that serves half its requests at the drop's centre
/// (h = 1/2): dirty pages are cleaned by age, not replaced by recency, and
/// the centre is where the simulated write limit's size is found (the onset
/// puts it 20% low).
pub const PROBES: [Probe; 2] = Probe::ALL;
/// A write probe's cache within this factor of a read probe's is the same
/// cache. On Linux the write probe falls at the file cache too, in a cliff
/// whose centre lies at the cliff: the centre rule reads it as half the
/// read probe's cache (a 1 GiB cgroup: 468 and 954 MiB; earlier 725 and 961
/// MiB), so the factor is 2.5; split caches differ far more (the
/// split-cache preset: 8x).
pub const SAME_CACHE: f64 = 2.5;

/// The knee of a curve: the fraction of its maximum (Chen section 4.3).
pub const KNEE: f64 = 0.75;
/// Most rounds of the global-knee iteration.
pub const KNEE_ROUNDS: usize = 4;

/// How focal vectors are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Focus {
    /// In the middle of each region (Chen section 4.5).
    #[default]
    Middle,
    /// One global knee (Chen section 4.4).
    Knee,
}

/// Where the scaler is, for progress reports and time planning.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// What is being measured, e.g. "uniqueBytes sweep" or "region 1 of 2:
    /// readFrac".
    pub what: String,
    /// The points the whole run is now expected to take (an estimate that
    /// is refined as regions are found).
    pub expected_points: usize,
    /// 0 for a point of the profile; k > 0 for the k-th measurement again
    /// of a point, to confirm a drop ([`CONFIRM_REPEATS`]). A measurer keeps
    /// repeats apart from the point itself (in the checkpoint, say).
    pub repeat: u32,
}

/// How many times both sides of a candidate drop are measured again,
/// interleaved (above, below, above, below), before the drop becomes a
/// cache: every time, the side above must beat the side below beyond both
/// confidence intervals and by [`CONFIRM_FALL`]. A drop made by background
/// load on some points does not reproduce; one made by a cache does.
pub const CONFIRM_REPEATS: u32 = 2;

/// The least fall a confirming re-measurement must show (above / below).
pub const CONFIRM_FALL: f64 = 1.1;

/// How many times each region's focal point is measured again during its
/// curves (halfway through them and after them). Every curve of a region
/// passes through its focal point and divides by its throughput, so a
/// focal point measured 8% low puts a workload that differs from it in
/// all four parameters 1.08^3 = 1.28 times too high; prediction takes the
/// median of the three measurements (docs/SCALING.md, "The focal point
/// three times").
pub const FOCAL_REPEATS: usize = 2;

/// Points a region but the last takes after its curves and the focal
/// point's repeats: all reads and all writes (readFrac 1 and 0) at the
/// least and the most size its sizeMean curve measured, the rest as at
/// the focal point. A write's time beyond a read's does not scale with
/// the request's size as the readFrac curve, measured at the focal size,
/// says: on this machine's cache region (4 generators, 13 MiB) writes
/// took 3.4 times as long as reads with 4 KiB requests, 1.7 times with
/// 64 KiB, 1.1 times with 2 MiB (docs/PREDICTION.md, step 17).
pub const KIND_ENDS: usize = 4;

/// Points a region but the last takes after its kind ends: at the
/// uniqueBytes its uniqueBytes curve measured nearest each end of the
/// region's plateau (its span without a cache's edge,
/// `willy::doc::profile::plateau`), the least and the
/// most size of its sizeMean curve that fit a generator's share there,
/// and the one between the focal size and the most ([`between`]), the
/// rest as at the focal point. How much a larger request gains
/// changes with uniqueBytes: on this machine's cache region (4
/// generators) 2 MiB requests ran as fast as 16 KiB ones at 1 MiB, 1.56
/// times as fast at the focal 11 MiB, 2.13 times at 123 MiB
/// (docs/PREDICTION.md, step 18).
pub const SIZE_ENDS: usize = 6;

/// Points a region but the last takes after its size ends: all reads and
/// all writes (readFrac 1 and 0) at its processNum curve's most
/// generators, the rest as at the focal point. How much more generators
/// gain changes with readFrac: on this machine's cache region (32 KiB
/// over 9 MiB) sixteen generators ran 1.54 times as fast as four with
/// writes alone, 1.40 with half reads, 1.11 with reads alone
/// (docs/PREDICTION.md, step 21).
pub const PROCS_ENDS: usize = 2;

/// How far to scale.
#[derive(Clone, Debug)]
pub struct ScalePlan {
    /// The uniqueBytes sweep.
    pub unique: SweepPlan,
    /// The largest processNum tried.
    pub max_process_num: u32,
    /// The largest sizeMean tried.
    pub max_size_mean: u64,
    /// How focal vectors are chosen.
    pub focus: Focus,
    /// sizeMean values every sizeMean curve includes, at every density:
    /// what `willy probe` found (a track or stripe unit, the efficient
    /// request size), in whole blocks.
    pub extra_sizes: Vec<u64>,
}

/// How densely a region's curves are measured. A run measures them
/// [`Density::Full`] while its budget affords that for every region left,
/// and thins them when it does not (a run that finds more regions than it
/// planned for would otherwise overrun its budget). Every curve keeps its
/// ends and its focal point at every density.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Density {
    /// sizeMean and processNum doubling, readFrac and seqFrac in steps of
    /// 0.1, every sweep value of uniqueBytes over the region.
    Full,
    /// Every other value: steps of 4x, of 0.25, every other uniqueBytes.
    Half,
    /// Every fourth value: steps of 16x, readFrac and seqFrac at 0, 0.5
    /// and 1, every fourth uniqueBytes.
    Sparse,
}

impl Density {
    /// Densest first.
    pub const ALL: [Density; 3] = [Density::Full, Density::Half, Density::Sparse];

    /// Every how many values of the full grid are kept.
    pub fn stride(self) -> usize {
        match self {
            Density::Full => 1,
            Density::Half => 2,
            Density::Sparse => 4,
        }
    }

    /// The readFrac and seqFrac values.
    pub fn fracs(self) -> Vec<f64> {
        let n: u32 = match self {
            Density::Full => 10,
            Density::Half => 4,
            Density::Sparse => 2,
        };
        (0..=n).map(|i| f64::from(i) / f64::from(n)).collect()
    }

    /// `values` (sorted) thinned to every `stride`-th, keeping the first,
    /// the last and `keep`, sorted; and the middle value where fewer than
    /// three would be left of a grid of three or more. The focal search
    /// takes the value where a curve first reaches halfway between its
    /// ends, which a curve of its two ends cannot tell: halfway is
    /// equally far from both, and rounding chose. On this machine, once
    /// the budget had the focal search measure one and sixteen generators
    /// only, the cache region's focal processNum came out at 1 in two
    /// runs and at 8 or 11 (16, capped by the shares) in three; with 1, 4
    /// and 16 it had been 4 in all seven runs before, and the focal point
    /// decides much of where the product of curves is off
    /// (docs/PERFORMANCE.md, "Where the error comes from").
    pub fn thin<T: Copy + PartialOrd>(self, values: &[T], keep: Option<T>) -> Vec<T> {
        let s = self.stride();
        let mut out: Vec<T> = values
            .iter()
            .enumerate()
            .filter(|&(i, _)| i % s == 0 || i + 1 == values.len())
            .map(|(_, &v)| v)
            .chain(keep)
            .collect();
        out.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
        out.dedup_by(|a, b| a == b);
        if out.len() < 3 && values.len() >= 3 {
            // Only the ends are left: the middle lies between them.
            out.insert(1, values[(values.len() - 1) / 2]);
        }
        out
    }

    /// The densest of [`Density::ALL`] whose `need` fits in `afford`
    /// points; the sparsest if none does.
    pub fn densest(afford: usize, need: impl Fn(Density) -> usize) -> Density {
        Density::ALL
            .into_iter()
            .find(|&d| need(d) <= afford)
            .unwrap_or(Density::Sparse)
    }

    fn describe(self) -> &'static str {
        match self {
            Density::Full => "",
            Density::Half => " (half density: the budget runs short)",
            Density::Sparse => " (sparse: the budget runs short)",
        }
    }
}

/// About how many values of a full grid of `n` a density keeps, with the
/// focal value.
fn thinned(n: usize, d: Density) -> usize {
    if d == Density::Full {
        n
    } else {
        n.div_ceil(d.stride()) + 2
    }
}

impl ScalePlan {
    /// About how many points one region's curves take for requests of
    /// `block` bytes: sizeMean and processNum (each about half again for
    /// the iteration), readFrac and seqFrac (11 each, sharing the focal
    /// point) and the region's uniqueBytes curve, at density `d`.
    pub fn points_per_region(&self, block: u64, d: Density) -> usize {
        let log2 = |x: u64| (64 - x.max(1).leading_zeros()) as usize;
        let sizes = log2(self.max_size_mean.max(1 << 20) / block.max(1)) + self.extra_sizes.len();
        let procs = log2(u64::from(self.max_process_num.max(1)));
        (thinned(sizes, d) + thinned(procs, d)) * 3 / 2 + Self::curves_points(d)
    }

    /// About how many new points the last stage of a region takes (its
    /// readFrac, seqFrac and uniqueBytes curves; its sizeMean and
    /// processNum curves are mostly measured by then) at density `d`.
    pub fn curves_points(d: Density) -> usize {
        // readFrac and seqFrac share the focal point; the region's
        // uniqueBytes curve has about 8 points at full density; then the
        // reads' and writes' points at the ends of sizeMean, the ends of
        // sizeMean at the ends of the region's span, and the reads' and
        // writes' points at the most generators.
        2 * (d.fracs().len() - 1) + thinned(8, d) + KIND_ENDS + SIZE_ENDS + PROCS_ENDS
    }

    /// About how many points the whole run takes, given the number of
    /// regions. Three are assumed before the sweep has found them: under a
    /// memory cgroup the write probe often shows the cgroup's dirty limit
    /// as a third region (docs/PERFORMANCE.md), and a plan for two then
    /// overran a 20-minute budget by 2%; with fewer regions the last points
    /// get longer shares instead.
    pub fn expected_points(&self, block: u64, regions: Option<usize>) -> usize {
        // The focal sweep and the two probes, each refined in full (the
        // real runs of docs/PERFORMANCE.md took 196 and 206 points where
        // half the refinement had predicted 168).
        let sweep = 3 * (self.unique.points + self.unique.refine);
        match self.focus {
            Focus::Middle => {
                sweep + regions.unwrap_or(3) * self.points_per_region(block, Density::Full)
            }
            // Rounds after the first mostly reuse points.
            Focus::Knee => sweep + 2 * self.points_per_region(block, Density::Full),
        }
    }
}

/// What scaling found, ready to become a profile.
#[derive(Clone, Debug)]
pub struct Scaled {
    /// Every point measured.
    pub points: Vec<ProfilePoint>,
    /// The uniqueBytes curve: indices into `points`.
    pub unique_bytes_curve: Vec<usize>,
    /// The regions with their curves.
    pub regions: Vec<ProfileRegion>,
    /// Inferred cache sizes, smallest first.
    pub cache_sizes_bytes: Vec<u64>,
    /// The same, with the probe that found each and where its drop lies.
    pub caches: Vec<CacheFound>,
    /// The ranges scaled over.
    pub ranges: Ranges,
    /// Candidate drops that did not reproduce (not caches).
    pub unconfirmed: Vec<UnconfirmedDrop>,
    /// Curve points the budget could not afford: not measured.
    pub skipped: Vec<Workload>,
}

/// Measures each workload once, whatever order the curves ask in.
struct Points<'a, E> {
    measure: &'a mut dyn FnMut(&Workload, &Stage) -> Result<Measured, E>,
    index: HashMap<String, usize>,
    points: Vec<ProfilePoint>,
    stage: Stage,
    /// How many more points the budget affords.
    afford: &'a dyn Fn() -> usize,
    /// Curve points the budget could not afford, not measured.
    skipped: Vec<Workload>,
}

impl<E> Points<'_, E> {
    fn key(w: &Workload) -> String {
        serde_json::to_string(w).expect("workloads serialise")
    }

    fn get(&mut self, w: &Workload) -> Result<usize, E> {
        let key = Self::key(w);
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let m = (self.measure)(w, &self.stage)?;
        self.points.push(ProfilePoint {
            background: m.background,
            workload: w.clone(),
            throughput_bytes_per_sec: m.throughput,
            ci95_rel: m.ci95_rel,
            duration_secs: m.duration_secs,
            cpu_cores_busy: m.cpu_cores_busy,
            device_busy_frac: m.device_busy_frac,
            steady_bytes_per_sec: m.steady,
            generators_bytes_per_sec: m.generators,
        });
        self.index.insert(key, self.points.len() - 1);
        Ok(self.points.len() - 1)
    }

    fn tp(&self, i: usize) -> f64 {
        self.points[i].throughput_bytes_per_sec
    }

    /// Measures `w` again, as repeat `k`, outside the profile's points.
    fn again(&mut self, w: &Workload, k: u32, what: &str) -> Result<Measured, E> {
        let stage = Stage {
            what: what.to_string(),
            repeat: k,
            ..self.stage.clone()
        };
        (self.measure)(w, &stage)
    }

    /// Measures `values` in order, through `set`, skipping invalid
    /// workloads; with `grow`, stops once a step no longer improves
    /// throughput by IMPROVES after `must` has been passed.
    fn curve<T: Copy + PartialOrd>(
        &mut self,
        focal: &Workload,
        values: &[T],
        set: fn(&mut Workload, T),
        grow: Option<T>,
    ) -> Result<Vec<(T, usize)>, E> {
        let mut out: Vec<(T, usize)> = Vec::new();
        for &v in values {
            let mut w = focal.clone();
            set(&mut w, v);
            if w.validate().is_err() {
                continue;
            }
            // Once the budget affords no more points, a curve keeps the
            // points it has (its focal point among them) and skips the
            // rest, rather than run past the budget.
            if !self.index.contains_key(&Self::key(&w)) && (self.afford)() == 0 {
                self.skipped.push(w);
                continue;
            }
            let i = self.get(&w)?;
            if let (Some(must), Some(&(_, prev))) = (grow, out.last()) {
                if v > must && self.tp(i) < IMPROVES * self.tp(prev) {
                    out.push((v, i));
                    break;
                }
            }
            out.push((v, i));
        }
        Ok(out)
    }

    /// The value where the curve first reaches halfway between its
    /// minimum and maximum throughput ([`first_halfway`]).
    fn halfway<T: Copy>(&self, curve: &[(T, usize)]) -> Option<T> {
        let tps: Vec<f64> = curve.iter().map(|&(_, i)| self.tp(i)).collect();
        first_halfway(&tps).map(|j| curve[j].0)
    }
}

/// The index of a curve's focal value, its throughputs `tps` in the order
/// of the parameter: the value nearest halfway between the curve's minimum
/// and maximum, among those up to the first on the other side of halfway
/// from the first value. On a curve that rises and falls again, the rising
/// side: on this machine's cache region, with four generators, sizeMean
/// rose from 3.2 to 10.9 GB/s by 64 KiB and fell back to 7.1 GB/s at
/// 4 MiB, where the copies' buffers outgrow the CPU caches and the
/// generators share memory's bandwidth. The value nearest halfway anywhere
/// was 4 MiB, far from where sizeMean does its work, and a focal point
/// there multiplied that one size's processNum curve into every other
/// size's prediction (docs/PERFORMANCE.md). On a monotone curve, the
/// nearest anywhere. A tie between the value across halfway and one
/// before it (a curve that goes from its minimum to its maximum in one
/// step) goes across where the value after that one stays across too:
/// the step then leads to a plateau, and its far side is what the larger
/// values share (this machine's processNum curve of 4.72, 10.25 and
/// 9.61 GB/s at 1, 2 and 4 generators: two keep both CPUs busy). With
/// nothing beyond to confirm it, the first. `None` when empty.
fn first_halfway(tps: &[f64]) -> Option<usize> {
    let (lo, hi) = extremes(tps);
    let mid = (lo + hi) / 2.0;
    let above = |t: f64| t >= mid;
    let first = above(*tps.first()?);
    let end = tps
        .iter()
        .position(|&t| above(t) != first)
        .map_or(tps.len(), |j| j + 1);
    let dist = |j: usize| (tps[j] - mid).abs();
    let best = (0..end).min_by(|&a, &b| dist(a).total_cmp(&dist(b)))?;
    // A tie with the value across halfway goes across where the value
    // after it stays there too.
    let across = end - 1;
    let confirmed = tps.get(end).is_some_and(|&t| above(t) != first);
    // (Equal up to rounding: halfway is the mean of the two.)
    let tie = dist(across) - dist(best) <= 1e-9 * (hi - lo);
    Some(if across != best && tie && confirmed {
        across
    } else {
        best
    })
}

/// The least and the most of `tps`.
fn extremes(tps: &[f64]) -> (f64, f64) {
    tps.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &t| {
            (a.min(t), b.max(t))
        })
}

/// A curve's values `xs` (sorted, a thinned `grid`) and throughputs `tps`,
/// with values of `grid` measured by `measure` (`None` where it cannot)
/// where the budget thinned them: first the middle one between the
/// curve's maximum and its higher neighbour, once, for the maximum that
/// halfway is taken from; then the middle one between the value
/// [`first_halfway`] picks and its neighbour across halfway, until the two
/// are neighbours on `grid`. The focal value then comes out as `grid` at
/// full density would give it, for two or three points more. The cache
/// region's focal sizeMean on this machine came out at 64 KiB where 4, 16,
/// 64 and 256 KiB were measured, and at 8 KiB where 4, 8 and 64 KiB and
/// 1 MiB were (its maximum at 256 KiB missed); at every size both runs'
/// curves measured, 32 KiB was nearest halfway (docs/PERFORMANCE.md, the
/// thirty-second run).
fn refine_halfway<E>(
    (xs, tps): (&mut Vec<u64>, &mut Vec<f64>),
    grid: &[u64],
    mut measure: impl FnMut(u64) -> Result<Option<f64>, E>,
) -> Result<(), E> {
    // The middle value of `grid` strictly between points `a` and `b`,
    // measured and put in its place; false where there is none or it
    // could not be measured.
    let mut between = |xs: &mut Vec<u64>, tps: &mut Vec<f64>, a: usize, b: usize| {
        let (lo, hi) = (xs[a.min(b)], xs[a.max(b)]);
        let inner: Vec<u64> = grid.iter().copied().filter(|&x| x > lo && x < hi).collect();
        let Some(&x) = inner.get(inner.len() / 2) else {
            return Ok(false);
        };
        let Some(t) = measure(x)? else {
            return Ok(false);
        };
        xs.insert(a.max(b), x);
        tps.insert(a.max(b), t);
        Ok(true)
    };
    let most = (0..tps.len()).max_by(|&a, &b| tps[a].total_cmp(&tps[b]));
    if let Some(m) = most {
        let next = [m.checked_sub(1), Some(m + 1)]
            .into_iter()
            .flatten()
            .filter(|&o| o < tps.len())
            .max_by(|&a, &b| tps[a].total_cmp(&tps[b]));
        if let Some(o) = next {
            between(xs, tps, m, o)?;
        }
    }
    while let Some(j) = first_halfway(tps) {
        let (lo, hi) = extremes(tps);
        let above = |t: f64| t >= (lo + hi) / 2.0;
        let across = [j.checked_sub(1), Some(j + 1)]
            .into_iter()
            .flatten()
            .find(|&o| o < tps.len() && above(tps[o]) != above(tps[j]));
        match across {
            Some(o) if between(xs, tps, j, o)? => {}
            _ => return Ok(()),
        }
    }
    Ok(())
}

impl<E> Points<'_, E> {
    /// The knee of a curve: its hardest value whose throughput reaches
    /// KNEE of the maximum; `hardest_last` when the hardest value is the
    /// largest (uniqueBytes), else the smallest.
    fn knee<T: Copy>(&self, curve: &[(T, usize)], hardest_last: bool) -> Option<T> {
        let max = curve.iter().map(|&(_, i)| self.tp(i)).fold(0.0, f64::max);
        let good = |&&(_, i): &&(T, usize)| self.tp(i) >= KNEE * max;
        if hardest_last {
            curve.iter().rev().find(good).map(|&(v, _)| v)
        } else {
            curve.iter().find(good).map(|&(v, _)| v)
        }
    }

    fn set_stage(&mut self, what: String, expected: usize) {
        self.stage = Stage {
            what,
            expected_points: expected.max(self.points.len() + 1),
            repeat: 0,
        };
    }
}

/// The point indices of a curve.
fn idx<T>(c: &[(T, usize)]) -> Vec<usize> {
    c.iter().map(|(_, i)| *i).collect()
}

fn doubling(from: u64, to: u64) -> Vec<u64> {
    std::iter::successors(Some(from), |&x| (x * 2 <= to).then_some(x * 2)).collect()
}

/// Runs the self-scaling benchmark with `measure`, from a first guess at
/// the focal vector (its uniqueBytes, sizeMean and processNum are scaled).
/// `measure` also hears which stage asks, and how many points the run is
/// expected to take. `afford` says how many more points the budget affords
/// (`usize::MAX` for no budget); the regions' curves are measured at the
/// densest [`Density`] that fits it, asked again before each region.
pub fn scale<E>(
    first: &Workload,
    plan: &ScalePlan,
    measure: &mut dyn FnMut(&Workload, &Stage) -> Result<Measured, E>,
    afford: &dyn Fn() -> usize,
    seed: u64,
) -> Result<Scaled, E> {
    let mut s = Scaler::new(first, plan, measure, afford, seed);
    let caches = s.caches()?;
    s.cache_sizes = caches.iter().map(|f| f.cache.size_bytes as f64).collect();
    s.read_cache = read_cache_size(caches.iter().map(|f| &f.cache)).map(|b| b as f64);
    let (curve, unique_bytes_curve) = s.focal_sweep()?;
    let spans: Vec<(f64, f64)> = caches.iter().map(|f| f.span).collect();
    let focals = match plan.focus {
        Focus::Middle => {
            let regions = regions_between(
                curve.first().map_or(0.0, |p| p.unique_bytes),
                curve.last().map_or(0.0, |p| p.unique_bytes),
                &spans,
            );
            let regions = split_wide(regions, &curve);
            s.focal_search(&regions)?
        }
        Focus::Knee => vec![s.global_knee(&curve, &unique_bytes_curve)?],
    };
    let regions = s.region_curves(focals, &curve)?;
    let ranges = s.ranges();
    Ok(Scaled {
        points: s.pts.points,
        unique_bytes_curve,
        regions,
        cache_sizes_bytes: caches.iter().map(|f| f.cache.size_bytes).collect(),
        caches: caches.into_iter().map(|f| f.cache).collect(),
        ranges,
        unconfirmed: s.unconfirmed,
        skipped: s.pts.skipped,
    })
}

/// A cache found, and the span of uniqueBytes its drop covers.
struct Found {
    cache: CacheFound,
    span: (f64, f64),
}

fn set_size(w: &mut Workload, v: u64) {
    w.size_mean = Bytes(v);
}
fn set_procs(w: &mut Workload, v: u64) {
    w.process_num = v as u32;
}
fn set_read(w: &mut Workload, v: f64) {
    w.read_frac = v;
}
fn set_seq(w: &mut Workload, v: f64) {
    w.seq_frac = v;
}
fn set_unique(w: &mut Workload, v: u64) {
    *w = with_unique(w, v as f64);
}

/// The self-scaling benchmark's stages, each a method: the caches, the
/// focal sweep, the focal search of each region (or the global knee), and
/// the curves of each region.
struct Scaler<'a, E> {
    pts: Points<'a, E>,
    plan: &'a ScalePlan,
    afford: &'a dyn Fn() -> usize,
    seed: u64,
    /// The first guess at the focal vector.
    guess: Workload,
    /// Candidate drops that did not reproduce.
    unconfirmed: Vec<UnconfirmedDrop>,
    /// The caches' sizes, bytes, once found.
    cache_sizes: Vec<f64>,
    /// The largest cache the read probe found (else the largest of any),
    /// bytes: the one the `willy` model composes generators' shares over.
    read_cache: Option<f64>,
}

/// A drop of a probe's curve that did not reproduce when its sides were
/// measured again ([`CONFIRM_REPEATS`]): not a cache, and no region.
#[derive(Clone, Debug, PartialEq)]
pub struct UnconfirmedDrop {
    /// The probe whose sweep showed it.
    pub probe: Probe,
    /// uniqueBytes of the point above the fall.
    pub from_unique_bytes: u64,
    /// uniqueBytes of the point below it.
    pub to_unique_bytes: u64,
}

impl<'a, E> Scaler<'a, E> {
    fn new(
        first: &Workload,
        plan: &'a ScalePlan,
        measure: &'a mut dyn FnMut(&Workload, &Stage) -> Result<Measured, E>,
        afford: &'a dyn Fn() -> usize,
        seed: u64,
    ) -> Scaler<'a, E> {
        let bs = first.block_size.0;
        let mut guess = first.clone();
        // Two blocks: small requests like Chen's 10-40 KB focal sizes. With
        // one block, write-back costs pull sparc1990's drop early (17.5 MiB
        // inferred for 21 MiB instead of 19.0).
        guess.size_mean = Bytes(2 * bs);
        guess.process_num = 1;
        guess.read_frac = 0.5;
        guess.seq_frac = 0.5;
        Scaler {
            pts: Points {
                measure,
                afford,
                skipped: Vec::new(),
                index: HashMap::new(),
                points: Vec::new(),
                stage: Stage {
                    what: "uniqueBytes sweep".into(),
                    expected_points: plan.expected_points(bs, None),
                    repeat: 0,
                },
            },
            plan,
            afford,
            seed,
            guess,
            unconfirmed: Vec::new(),
            cache_sizes: Vec::new(),
            read_cache: None,
        }
    }

    fn block(&self) -> u64 {
        self.guess.block_size.0
    }

    /// The sizeMean grid at density `d`, through `w`'s.
    fn sizes(&self, w: &Workload, d: Density) -> Vec<u64> {
        let top = self
            .plan
            .max_size_mean
            .max(1 << 20)
            .min(w.bytes_per_generator());
        let mut v = d.thin(&doubling(self.block(), top), Some(w.size_mean.0));
        let b = self.block();
        v.extend(
            self.plan
                .extra_sizes
                .iter()
                .map(|&x| (x / b).max(1) * b)
                .filter(|&x| x <= w.bytes_per_generator()),
        );
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The processNum grid at density `d`, through `w`'s.
    fn procs(&self, w: &Workload, d: Density) -> Vec<u64> {
        let all = doubling(1, u64::from(self.plan.max_process_num.max(1)));
        d.thin(&all, Some(u64::from(w.process_num)))
    }

    /// The focal sizeMean from `curve`, a sizeMean curve around `focal`:
    /// halfway, the full grid's sizes measured where the budget thinned
    /// them around it ([`refine_halfway`]).
    fn size_halfway(
        &mut self,
        focal: &Workload,
        curve: Vec<(u64, usize)>,
    ) -> Result<Option<u64>, E> {
        let grid = self.sizes(focal, Density::Full);
        let mut xs: Vec<u64> = curve.iter().map(|&(x, _)| x).collect();
        let mut tps: Vec<f64> = curve.iter().map(|&(_, i)| self.pts.tp(i)).collect();
        let pts = &mut self.pts;
        refine_halfway((&mut xs, &mut tps), &grid, |x| {
            let got = pts.curve(focal, &[x], set_size, None)?;
            Ok(got.first().map(|&(_, i)| pts.tp(i)))
        })?;
        Ok(first_halfway(&tps).map(|j| xs[j]))
    }

    fn per_region(&self, d: Density) -> usize {
        self.plan.points_per_region(self.block(), d)
    }

    /// Stage 1, the caches: drops of the random-read and random-write probes. A
    /// write probe's drop near a read cache is that cache, seen again.
    fn caches(&mut self) -> Result<Vec<Found>, E> {
        let mut found: Vec<Found> = Vec::new();
        for name in PROBES {
            found.extend(self.probe(name)?);
        }
        let is_read = |f: &Found| f.cache.probe == Probe::Reads;
        let reads: Vec<u64> = found
            .iter()
            .filter(|f| is_read(f))
            .map(|f| f.cache.size_bytes)
            .collect();
        found.retain(|f| {
            is_read(f)
                || reads
                    .iter()
                    .all(|&r| (f.cache.size_bytes as f64 / r as f64).ln().abs() > SAME_CACHE.ln())
        });
        found.sort_by_key(|f| f.cache.size_bytes);
        found.dedup_by_key(|f| f.cache.size_bytes);
        Ok(found)
    }

    /// One probe's sweep and the caches its drops show.
    fn probe(&mut self, name: Probe) -> Result<Vec<Found>, E> {
        let rf = name.read_frac();
        let mut probe = self.guess.clone();
        probe.read_frac = rf;
        probe.seq_frac = 0.0;
        self.pts.stage.what = format!("uniqueBytes probe: random {name}");
        let pts = &mut self.pts;
        let c = sweep(&probe, &self.plan.unique, |w| {
            let i = pts.get(w)?;
            Ok::<_, E>((pts.tp(i), pts.points[i].ci95_rel.unwrap_or(0.0)))
        })?;
        let mut found = Vec::new();
        for d in drops(&c) {
            if !self.confirmed(&probe, &c, &d, name)? {
                self.unconfirmed.push(UnconfirmedDrop {
                    probe: name,
                    from_unique_bytes: c[d.start].unique_bytes as u64,
                    to_unique_bytes: c[d.end].unique_bytes as u64,
                });
                continue;
            }
            let sized = if rf == 1.0 {
                let j = d.onset_segment;
                Some((d.onset as u64, [c[j].unique_bytes, c[j + 1].unique_bytes]))
            } else {
                cache_size(&probe, d.centre, 0.5, self.seed).map(|size| {
                    let i = size_interval(&probe, &c, &d, d.centre, 0.5, size, self.seed);
                    (size, i.map(|b| b as f64))
                })
            };
            if let Some((size, [lo, hi])) = sized {
                let interval = [(lo as u64).min(size), (hi as u64).max(size)];
                let fit = (name == Probe::Reads).then(|| check_fit(&probe, &d, size, self.seed));
                found.push(Found {
                    cache: CacheFound {
                        size_bytes: size,
                        probe: name,
                        onset_unique_bytes: d.onset as u64,
                        centre_unique_bytes: d.centre as u64,
                        size_interval_bytes: Some(interval),
                        fit_factor: fit.map(|f| f.factor),
                        poor_fit: fit.is_some_and(|f| f.poor()),
                    },
                    span: (c[d.start].unique_bytes, c[d.end].unique_bytes),
                });
            }
        }
        Ok(found)
    }

    /// Whether drop `d` of `probe`'s curve `c` reproduces: its two sides
    /// measured again, interleaved, [`CONFIRM_REPEATS`] times.
    fn confirmed(
        &mut self,
        probe: &Workload,
        c: &[Point],
        d: &Drop,
        name: Probe,
    ) -> Result<bool, E> {
        let above = with_unique(probe, c[d.start].unique_bytes);
        let below = with_unique(probe, c[d.end].unique_bytes);
        let what = format!("confirming the random-{name} drop");
        for k in 1..=CONFIRM_REPEATS {
            let a = self.pts.again(&above, k, &what)?;
            let b = self.pts.again(&below, k, &what)?;
            let ci = |m: &Measured| m.ci95_rel.unwrap_or(0.0);
            let beyond = a.throughput * (1.0 - ci(&a)) > b.throughput * (1.0 + ci(&b));
            if !beyond || a.throughput < CONFIRM_FALL * b.throughput {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Stage 2, the uniqueBytes curve of the focal vector, for prediction: its
    /// points, and their indices.
    fn focal_sweep(&mut self) -> Result<(Vec<Point>, Vec<usize>), E> {
        self.pts.stage.what = "uniqueBytes sweep".into();
        let pts = &mut self.pts;
        let curve = sweep(&self.guess, &self.plan.unique, |w| {
            let i = pts.get(w)?;
            Ok::<_, E>((pts.tp(i), pts.points[i].ci95_rel.unwrap_or(0.0)))
        })?;
        let idx = curve
            .iter()
            .map(|p| self.pts.get(&with_unique(&self.guess, p.unique_bytes)))
            .collect::<Result<_, _>>()?;
        Ok((curve, idx))
    }

    /// Stage 3, a focal vector in the middle of each region: sizeMean and
    /// processNum halfway, iterated once.
    fn focal_search(&mut self, found: &[Region]) -> Result<Vec<(Region, Workload)>, E> {
        let n = found.len();
        let mut focals = Vec::new();
        for (k, r) in found.iter().enumerate() {
            // This region's focal search and curves, the later regions'
            // focal searches and curves, and the earlier regions' curves.
            let need = |d: Density| (n - k) * self.per_region(d) + k * ScalePlan::curves_points(d);
            let density = Density::densest((self.afford)(), need);
            let expected = self.pts.points.len() + need(density);
            let mut focal = with_unique(&self.guess, r.focal);
            for round in 0..2 {
                self.pts.set_stage(
                    format!(
                        "region {} of {n}: focal sizeMean and processNum, round {}{}",
                        k + 1,
                        round + 1,
                        density.describe()
                    ),
                    expected,
                );
                let before = (focal.size_mean, focal.process_num);
                let sizes = self.sizes(&focal, density);
                let size_curve = self.pts.curve(&focal, &sizes, set_size, Some(1u64 << 20))?;
                if let Some(s) = self.size_halfway(&focal, size_curve)? {
                    focal.size_mean = Bytes(s);
                }
                let procs = self.procs(&focal, density);
                let proc_curve = self.pts.curve(&focal, &procs, set_procs, Some(1u64))?;
                if let Some(p) = self.pts.halfway(&proc_curve) {
                    focal.process_num = (p as u32).min(share_cap(r, &focal));
                }
                if (focal.size_mean, focal.process_num) == before {
                    break;
                }
            }
            focals.push((*r, focal));
        }
        Ok(focals)
    }

    /// Stage 3 with a knee: one region over the whole sweep and one global knee (Chen 4.4).
    fn global_knee(
        &mut self,
        curve: &[Point],
        sweep_idx: &[usize],
    ) -> Result<(Region, Workload), E> {
        let all = Region {
            from: curve.first().map_or(0.0, |p| p.unique_bytes),
            to: curve.last().map_or(0.0, |p| p.unique_bytes),
            focal: 0.0,
        };
        let mut focal = self.guess.clone();
        let density = Density::densest((self.afford)(), |d| 2 * self.per_region(d));
        let us: Vec<u64> = curve.iter().map(|p| p.unique_bytes as u64).collect();
        let first_sweep: Vec<(u64, usize)> =
            us.iter().copied().zip(sweep_idx.iter().copied()).collect();
        if let Some(u) = self.pts.knee(&first_sweep, true) {
            focal = with_unique(&focal, u as f64);
        }
        for round in 0..KNEE_ROUNDS {
            self.pts.set_stage(
                format!("global knee, round {}{}", round + 1, density.describe()),
                self.pts.points.len() + self.per_region(density),
            );
            let before = focal.clone();
            self.knee_round(&mut focal, density, &us, round > 0)?;
            if focal == before {
                break;
            }
        }
        Ok((all, focal))
    }

    /// One round of the global knee: each parameter in turn at its knee;
    /// uniqueBytes too once the others have moved (or after the first
    /// round).
    fn knee_round(
        &mut self,
        focal: &mut Workload,
        density: Density,
        us: &[u64],
        again: bool,
    ) -> Result<(), E> {
        let before = focal.clone();
        let fracs = density.fracs();
        let sizes = self.sizes(focal, density);
        let c = self.pts.curve(focal, &sizes, set_size, Some(1u64 << 20))?;
        if let Some(v) = self.pts.knee(&c, false) {
            focal.size_mean = Bytes(v);
        }
        let procs = self.procs(focal, density);
        let c = self.pts.curve(focal, &procs, set_procs, Some(1u64))?;
        if let Some(v) = self.pts.knee(&c, false) {
            focal.process_num = v as u32;
        }
        let c = self.pts.curve(focal, &fracs, set_read, None)?;
        if let Some(v) = self.pts.knee(&c, false) {
            focal.read_frac = v;
        }
        let c = self.pts.curve(focal, &fracs, set_seq, None)?;
        if let Some(v) = self.pts.knee(&c, false) {
            focal.seq_frac = v;
        }
        if again || *focal != before {
            let c = self.pts.curve(focal, us, set_unique, None)?;
            if let Some(v) = self.pts.knee(&c, true) {
                *focal = with_unique(focal, v as f64);
            }
        }
        Ok(())
    }

    /// Stages 4 and 5, each region's five curves through its final focal
    /// vector: first a sparse pass over every region's curves, then each
    /// region's at the densest [`Density`] the budget affords. A budget that
    /// runs out then leaves every curve of every region its sparse points
    /// (ends and focal), not the first curves whole and the last ones with
    /// their focal points alone (on this machine a 20-minute run measured
    /// the disk region's readFrac and seqFrac curves last and left its
    /// uniqueBytes curve one point; docs/SCALING.md, "Time").
    fn region_curves(
        &mut self,
        focals: Vec<(Region, Workload)>,
        curve: &[Point],
    ) -> Result<Vec<ProfileRegion>, E> {
        let n = focals.len();
        let uniques = region_uniques(&focals, curve);
        let sparse = ScalePlan::curves_points(Density::Sparse);
        // How far each region's processNum curve goes: every region's but
        // the last to the most generators the focal searches measured,
        // whatever a doubling gains (the profile's processNum range, which
        // validations sample, reaches it anyway, and a curve cut short
        // reads every workload beyond at its flat end: on this machine
        // the cache region's curve gained 3% from 2 to 4 generators and
        // stopped there in three of five runs, while the disk region's
        // went to 16; in the run whose curve went on, 21% more at 16 than
        // at 4, cutting it to 4 took that region's median error from
        // 7.3% to 14.6%). The last region's goes on while a doubling
        // gains IMPROVES, and at least to the first generators one of
        // whose shares fits the read cache ([`unfit_until`]).
        let most = self
            .pts
            .points
            .iter()
            .map(|p| u64::from(p.workload.process_num))
            .max()
            .unwrap_or(1);
        let procs_to = |k: usize| (k + 1 < n).then_some(most);
        // New points a region's curves take at `d` once the sparse pass is
        // done.
        let after_sparse = |d: Density| ScalePlan::curves_points(d).saturating_sub(sparse);
        for (k, (_, focal)) in focals.iter().enumerate() {
            let d = Density::densest((self.afford)(), |d| n * after_sparse(d));
            self.pts.set_stage(
                format!(
                    "region {} of {n}: a first, sparse pass over its curves",
                    k + 1
                ),
                self.pts.points.len() + (n - k) * sparse + n * after_sparse(d),
            );
            self.sparse_pass(focal, &uniques[k], procs_to(k))?;
        }
        let mut out = Vec::new();
        for (k, ((r, focal), us)) in focals.into_iter().zip(uniques).enumerate() {
            // This region's curves and the later regions' curves.
            let density = Density::densest((self.afford)(), |d| (n - k) * after_sparse(d));
            let us = density.thin(&us, Some(focal.unique_bytes.0));
            self.pts.set_stage(
                format!("region {} of {n}: four curves{}", k + 1, density.describe()),
                self.pts.points.len() + (n - k) * after_sparse(density),
            );
            let (curves, focal_repeats_bytes_per_sec) =
                self.curves_through(&focal, density, &us, (most, k + 1 == n), (k + 1, &r))?;
            out.push(ProfileRegion {
                from_unique_bytes: r.from as u64,
                to_unique_bytes: r.to as u64,
                curves,
                focal,
                focal_repeats_bytes_per_sec,
            });
        }
        Ok(out)
    }

    /// The sparse pass over the five curves through `focal`, its
    /// uniqueBytes values `us`: the focal point, then each curve's
    /// [`Density::Sparse`] values, sizeMean and processNum only up to
    /// where the full curves surely go (1 MiB; `procs_to`, else one
    /// generator; or the focal value), so that a budget that allows the
    /// full curves measures no point they would not.
    fn sparse_pass(
        &mut self,
        focal: &Workload,
        us: &[u64],
        procs_to: Option<u64>,
    ) -> Result<(), E> {
        let d = Density::Sparse;
        self.pts.get(focal)?;
        let sizes = up_to(self.sizes(focal, d), focal.size_mean.0.max(1 << 20));
        self.pts.curve(focal, &sizes, set_size, None)?;
        let procs = up_to(
            self.procs(focal, d),
            procs_to.unwrap_or(1).max(u64::from(focal.process_num)),
        );
        self.pts.curve(focal, &procs, set_procs, None)?;
        let fracs = |v: f64| Density::Full.thin(&d.fracs(), Some(v));
        self.pts
            .curve(focal, &fracs(focal.read_frac), set_read, None)?;
        self.pts
            .curve(focal, &fracs(focal.seq_frac), set_seq, None)?;
        self.pts.curve(
            focal,
            &d.thin(us, Some(focal.unique_bytes.0)),
            set_unique,
            None,
        )?;
        Ok(())
    }

    /// The five curves through `focal` (known points are reused), and
    /// the focal point measured again halfway through them and after
    /// them ([`FOCAL_REPEATS`], while the budget affords them), for
    /// region `region` (its number and its span). The processNum curve
    /// goes to `most` generators in a region but the `last`; in the last
    /// it goes on while a doubling gains, and at least as far as
    /// [`unfit_until`] says, but not beyond `most` either.
    fn curves_through(
        &mut self,
        focal: &Workload,
        density: Density,
        us: &[u64],
        (most, last): (u64, bool),
        (region, span): (usize, &Region),
    ) -> Result<(Curves, Vec<f64>), E> {
        let mut repeats = Vec::new();
        let mut again = |s: &mut Self| -> Result<(), E> {
            if repeats.len() < FOCAL_REPEATS && (s.afford)() > 0 {
                let k = repeats.len() as u32 + 1;
                let what = format!("region {region}: its focal point again");
                repeats.push(s.pts.again(focal, k, &what)?.throughput);
            }
            Ok(())
        };
        // The focal point first, whatever the budget: every curve passes
        // through it, however many of its other points are skipped.
        self.pts.get(focal)?;
        let sizes = self.sizes(focal, density);
        let size_curve = self.pts.curve(focal, &sizes, set_size, Some(1u64 << 20))?;
        let procs = up_to(self.procs(focal, density), most);
        let grow = last.then(|| unfit_until(&procs, focal, self.read_cache));
        let proc_curve = self.pts.curve(focal, &procs, set_procs, grow)?;
        again(self)?;
        // Through the focal fractions (0.5 but for the global knee).
        let fracs = |v: f64| Density::Full.thin(&density.fracs(), Some(v));
        let read_curve = self
            .pts
            .curve(focal, &fracs(focal.read_frac), set_read, None)?;
        let seq_curve = self
            .pts
            .curve(focal, &fracs(focal.seq_frac), set_seq, None)?;
        let unique_curve = self.pts.curve(focal, us, set_unique, None)?;
        again(self)?;
        if !last {
            self.kind_ends(focal, &size_curve)?;
            self.size_ends(focal, span, &unique_curve, &size_curve)?;
            self.procs_ends(focal, &proc_curve)?;
        }
        let curves = Curves {
            unique_bytes: idx(&unique_curve),
            size_mean: idx(&size_curve),
            read_frac: idx(&read_curve),
            seq_frac: idx(&seq_curve),
            process_num: idx(&proc_curve),
        };
        Ok((curves, repeats))
    }

    /// The [`KIND_ENDS`] points of a region but the last, after its
    /// curves (so that they do not move where its focal point's repeats
    /// lie, `Profile::focal_levels`), while the budget affords them.
    fn kind_ends(&mut self, focal: &Workload, size_curve: &[(u64, usize)]) -> Result<(), E> {
        let ends = [size_curve.first(), size_curve.last()];
        for &(z, _) in ends.into_iter().flatten() {
            if z == focal.size_mean.0 {
                continue;
            }
            let mut w = focal.clone();
            set_size(&mut w, z);
            self.pts.curve(&w, &[1.0, 0.0], set_read, None)?;
        }
        Ok(())
    }

    /// The [`PROCS_ENDS`] points of a region but the last, after its size
    /// ends, while the budget affords them: all reads and all writes at
    /// the most generators of `proc_curve`, where that is more than the
    /// focal point's.
    fn procs_ends(&mut self, focal: &Workload, proc_curve: &[(u64, usize)]) -> Result<(), E> {
        let Some(&(most, _)) = proc_curve.iter().max_by_key(|c| c.0) else {
            return Ok(());
        };
        if most <= u64::from(focal.process_num) {
            return Ok(());
        }
        let mut w = focal.clone();
        set_procs(&mut w, most);
        self.pts.curve(&w, &[1.0, 0.0], set_read, None)?;
        Ok(())
    }

    /// The [`SIZE_ENDS`] points of a region but the last, after its kind
    /// ends, while the budget affords them: at the uniqueBytes of
    /// `unique_curve` nearest each end of `span`'s plateau (no cache's
    /// edge, `willy::doc::profile::plateau`) and on it, the least and the
    /// most size of `size_curve` that fit a generator's share, and the one
    /// between the focal size and the most ([`between`]).
    fn size_ends(
        &mut self,
        focal: &Workload,
        span: &Region,
        unique_curve: &[(u64, usize)],
        size_curve: &[(u64, usize)],
    ) -> Result<(), E> {
        let (from, to) = plateau(
            span.from,
            span.to,
            focal.unique_bytes.0 as f64,
            &self.cache_sizes,
        );
        let inside: Vec<u64> = unique_curve
            .iter()
            .map(|c| c.0)
            .filter(|&u| within((from, to), u))
            .collect();
        let nearest = |b: f64| {
            let far = |u: &u64| (*u as f64 / b).ln().abs();
            inside
                .iter()
                .copied()
                .min_by(|a, c| far(a).total_cmp(&far(c)))
        };
        let mut ends: Vec<u64> = [nearest(from), nearest(to)]
            .into_iter()
            .flatten()
            .filter(|&u| u != focal.unique_bytes.0)
            .collect();
        ends.dedup();
        for u in ends {
            let mut w = focal.clone();
            set_unique(&mut w, u);
            let fit = size_curve
                .iter()
                .map(|c| c.0)
                .filter(|&z| z <= w.bytes_per_generator());
            let most = fit.clone().max();
            let sizes: Vec<u64> = [
                fit.clone().min(),
                between(fit, focal.size_mean.0, most),
                most,
            ]
            .into_iter()
            .flatten()
            .filter(|&z| z != focal.size_mean.0)
            .collect();
            self.pts.curve(&w, &sizes, set_size, None)?;
        }
        Ok(())
    }

    /// The ranges the points span.
    fn ranges(&self) -> Ranges {
        let all = &self.pts.points;
        let range = |f: fn(&Workload) -> u64| {
            let v = all.iter().map(|p| f(&p.workload));
            [v.clone().min().unwrap_or(0), v.max().unwrap_or(0)]
        };
        let [a, b] = range(|w| u64::from(w.process_num));
        Ranges {
            unique_bytes: range(|w| w.unique_bytes.0),
            size_mean: range(|w| w.size_mean.0),
            read_frac: [0.0, 1.0],
            seq_frac: [0.0, 1.0],
            process_num: [a as u32, b as u32],
        }
    }
}

/// The size of `sizes` nearest, in the logarithm, to the middle of the
/// focal size `zf` and the most `most`, strictly between them: where a
/// larger request's gain changes with uniqueBytes, the sizes between
/// the focal one and the most do not follow the most's change (on this
/// machine's middle region, three generators, 512 KiB requests gained
/// 1.84 times what 32 KiB ones did at 80 MiB and 1.51 times at the focal
/// 265 MiB, 2 MiB ones 1.22 and 1.30 times; docs/PREDICTION.md, step 18).
fn between(sizes: impl Iterator<Item = u64>, zf: u64, most: Option<u64>) -> Option<u64> {
    let most = most.filter(|&m| m > zf)?;
    let mid = ((zf as f64).ln() + (most as f64).ln()) / 2.0;
    let far = |z: &u64| ((*z as f64).ln() - mid).abs();
    sizes
        .filter(|&z| z > zf && z < most)
        .min_by(|a, b| far(a).total_cmp(&far(b)))
}

/// The largest focal processNum that keeps every generator's share of the
/// focal uniqueBytes at or above the region's lower border, at least 1.
/// In the first region the border is the sweep's smallest value, which
/// caps nothing in practice.
pub fn share_cap(r: &Region, focal: &Workload) -> u32 {
    let cap = (focal.unique_bytes.0 as f64 / r.from.max(1.0)).floor();
    cap.clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The most generators of `procs` none of whose shares of `focal`'s
/// uniqueBytes fits a cache of `cache` bytes (1 without a cache): the
/// last region's processNum curve goes on at least to the next value,
/// whatever a doubling gains there. The `willy` model composes a
/// workload's generators over their shares of the cache, and where they
/// mix it reads the mixing from this curve's points whose shares fit
/// (docs/PREDICTION.md, steps 5 and 22); a curve that stops at a dip
/// before them has none. sim:split-cache's disk region (97.5 MiB over a
/// 36.5 MiB cache) lost 7% from one generator to two and stopped there,
/// where four ran 28% faster than two.
fn unfit_until(procs: &[u64], focal: &Workload, cache: Option<f64>) -> u64 {
    let u = focal.unique_bytes.0 as f64;
    cache.map_or(1, |c| {
        procs
            .iter()
            .copied()
            .filter(|&n| u / n as f64 > c)
            .max()
            .unwrap_or(1)
    })
}

/// The values of `v` at most `most`.
fn up_to(v: Vec<u64>, most: u64) -> Vec<u64> {
    v.into_iter().filter(|&x| x <= most).collect()
}

/// Each region's own uniqueBytes values: the sweep's over the region and
/// the drops beside it, and its focal vector's.
fn region_uniques(focals: &[(Region, Workload)], curve: &[Point]) -> Vec<Vec<u64>> {
    let n = focals.len();
    let bounds: Vec<(f64, f64)> = focals.iter().map(|(r, _)| (r.from, r.to)).collect();
    focals
        .iter()
        .enumerate()
        .map(|(k, (_, focal))| {
            let lo = if k == 0 { f64::MIN } else { bounds[k - 1].1 };
            let hi = if k + 1 == n {
                f64::MAX
            } else {
                bounds[k + 1].0
            };
            let mut us: Vec<u64> = curve
                .iter()
                .map(|p| p.unique_bytes)
                .filter(|&u| u >= lo && u <= hi)
                .map(|u| u as u64)
                .chain(std::iter::once(focal.unique_bytes.0))
                .collect();
            us.sort_unstable();
            us.dedup();
            us
        })
        .collect()
}

/// Throughput of a curve's points, for tests and reports.
pub fn throughputs(s: &Scaled, idx: &[usize]) -> Vec<f64> {
    idx.iter()
        .map(|&i| s.points[i].throughput_bytes_per_sec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{between, doubling, first_halfway, refine_halfway, Density};
    use proptest::prelude::*;

    #[test]
    fn the_middle_size_lies_halfway_in_the_log() {
        let sizes = doubling(4096, 2 << 20);
        let at = |zf, most| between(sizes.iter().copied(), zf, most);
        assert_eq!(at(32768, Some(2 << 20)), Some(262144));
        assert_eq!(at(4096, Some(65536)), Some(16384));
        // Nothing strictly between, or no larger size: none.
        assert_eq!(at(32768, Some(65536)), None);
        assert_eq!(at(32768, Some(32768)), None);
        assert_eq!(at(32768, None), None);
    }

    #[test]
    fn a_thinned_grid_keeps_a_value_between_its_ends() {
        let procs = doubling(1, 16);
        assert_eq!(Density::Sparse.thin(&procs, Some(1)), [1, 4, 16]);
        assert_eq!(Density::Half.thin(&procs, Some(1)), [1, 4, 16]);
        assert_eq!(Density::Sparse.thin(&doubling(1, 8), Some(8)), [1, 2, 8]);
        // Where the grid's own stride or the kept value leave three, as
        // before.
        assert_eq!(Density::Sparse.thin(&procs, Some(8)), [1, 8, 16]);
        let sizes = doubling(4096, 8 << 20);
        assert_eq!(
            Density::Sparse.thin(&sizes, Some(4096)),
            [4096, 65536, 1 << 20, 8 << 20]
        );
        assert_eq!(Density::Sparse.thin(&[1, 2], None), [1, 2]);
        assert_eq!(Density::Full.thin(&procs, None), procs);
    }

    /// The cache region's sizeMean curves of docs/runs/2026-11-27c and
    /// -27d (four generators, GB/s, from 4 KiB to 2 and 1 MiB): measured at
    /// half density, sparse with the first guess's 8 KiB kept, or whole,
    /// the focal size comes out at 32 KiB, with at most three sizes more.
    /// (The runs' own searches, half density and sparse, took 64 and
    /// 8 KiB.)
    #[test]
    fn the_focal_size_does_not_depend_on_the_density() {
        let runs: [&[f64]; 2] = [
            &[9.2, 14.5, 20.5, 29.9, 40.7, 50.2, 52.8, 50.0, 34.7, 25.3],
            &[10.6, 17.2, 23.2, 32.7, 45.1, 54.5, 59.1, 56.2, 44.7],
        ];
        for tp in runs {
            let grid = doubling(4096, 4096 << (tp.len() - 1));
            let at = |x: u64| tp[grid.iter().position(|&g| g == x).unwrap()];
            for d in Density::ALL {
                let mut xs = d.thin(&grid, Some(8192));
                let mut tps: Vec<f64> = xs.iter().map(|&x| at(x)).collect();
                let before = xs.len();
                refine_halfway((&mut xs, &mut tps), &grid, |x| Ok::<_, ()>(Some(at(x)))).unwrap();
                let j = first_halfway(&tps).unwrap();
                assert_eq!(xs[j], 32 << 10, "{d:?}: {xs:?}");
                assert!(xs.len() <= before + 3, "{d:?}: {xs:?}");
                assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
            }
        }
        // Where the budget affords nothing more, the curve stays as the
        // thirty-second run measured it.
        let grid = doubling(4096, 1 << 20);
        let mut xs = Density::Sparse.thin(&grid, Some(8192));
        assert_eq!(xs, [4096, 8192, 65536, 1 << 20]);
        let mut tps = vec![10.6, 17.2, 45.1, 44.7];
        refine_halfway((&mut xs, &mut tps), &grid, |_| Ok::<_, ()>(None)).unwrap();
        assert_eq!(xs.len(), 4);
        assert_eq!(xs[first_halfway(&tps).unwrap()], 8192);
    }

    #[test]
    fn the_focal_value_is_on_the_rising_side() {
        // This machine's cache region, four generators, sizeMean 4 KiB to
        // 4 MiB (docs/runs/2026-11-24b): halfway is 7.04 GB/s; 4 MiB is
        // nearest it anywhere, 16 KiB on the rise.
        let sizes = [3212.0, 7695.0, 10649.0, 10862.0, 10249.0, 7113.0];
        assert_eq!(first_halfway(&sizes), Some(1));
        // Before the crossing, the nearest of the values so far.
        assert_eq!(first_halfway(&[1.0, 4.0, 2.0, 10.0]), Some(1));
        // A falling curve, and a flat one.
        assert_eq!(first_halfway(&[9.0, 8.0, 5.0, 1.0]), Some(2));
        assert_eq!(first_halfway(&[3.0, 3.0]), Some(0));
        assert_eq!(first_halfway(&[]), None);
        // A tie, halfway exactly between a curve's first two values: the
        // value across halfway where the next value stays across too
        // (this machine's processNum curve at 1, 2 and 4 generators,
        // docs/runs/2026-11-26e), the first where nothing confirms it.
        assert_eq!(first_halfway(&[4.72, 10.25, 9.61]), Some(1));
        assert_eq!(first_halfway(&[4.0, 10.0, 6.0]), Some(0));
        assert_eq!(first_halfway(&[1567.0, 3133.0]), Some(0));
        assert_eq!(first_halfway(&[8.0, 2.0, 2.5]), Some(1));
    }

    proptest! {
        /// The middle size is a measured one strictly between the focal
        /// size and the most, and none is nearer halfway in the log.
        #[test]
        fn the_middle_size_is_the_nearest_halfway(
            mut sizes in prop::collection::vec(1u64..1 << 30, 1..12),
            zf in 1u64..1 << 30,
            most in 1u64..1 << 30,
        ) {
            sizes.sort_unstable();
            let got = between(sizes.iter().copied(), zf, Some(most));
            let inside: Vec<u64> = sizes.iter().copied().filter(|&z| z > zf && z < most).collect();
            prop_assert_eq!(got.is_some(), !inside.is_empty());
            if let Some(m) = got {
                let mid = ((zf as f64).ln() + (most as f64).ln()) / 2.0;
                let far = |z: u64| ((z as f64).ln() - mid).abs();
                prop_assert!(inside.contains(&m));
                prop_assert!(inside.iter().all(|&z| far(m) <= far(z)));
            }
        }

        #[test]
        fn on_a_monotone_curve_it_is_the_value_nearest_halfway(
            mut tps in prop::collection::vec(1.0f64..1e10, 1..12),
            falling in any::<bool>(),
        ) {
            tps.sort_by(f64::total_cmp);
            if falling {
                tps.reverse();
            }
            let lo = tps.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = tps.iter().copied().fold(0.0, f64::max);
            let mid = (lo + hi) / 2.0;
            let j = first_halfway(&tps).unwrap();
            for t in &tps {
                prop_assert!((tps[j] - mid).abs() <= (t - mid).abs());
            }
        }

        #[test]
        fn no_value_before_it_crosses_halfway(
            tps in prop::collection::vec(1.0f64..1e10, 1..12),
        ) {
            let lo = tps.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = tps.iter().copied().fold(0.0, f64::max);
            let mid = (lo + hi) / 2.0;
            let j = first_halfway(&tps).unwrap();
            let side = |t: f64| t >= mid;
            // Every value before the chosen one is on the first value's side.
            prop_assert!(tps[..j].iter().all(|&t| side(t) == side(tps[0])));
        }

        /// On a rising curve, thinned to any density with any value kept,
        /// the refined search picks what the whole curve gives.
        #[test]
        fn refined_it_is_what_the_whole_curve_gives(
            mut tp in prop::collection::vec(1.0f64..1e10, 2..12),
            keep in 0usize..12,
            d in prop::sample::select(Density::ALL.to_vec()),
        ) {
            tp.sort_by(f64::total_cmp);
            tp.dedup();
            let grid: Vec<u64> = (0..tp.len() as u64).collect();
            let whole = first_halfway(&tp).unwrap();
            let mut xs = d.thin(&grid, grid.get(keep).copied());
            let mut tps: Vec<f64> = xs.iter().map(|&x| tp[x as usize]).collect();
            refine_halfway((&mut xs, &mut tps), &grid, |x| {
                Ok::<_, ()>(Some(tp[x as usize]))
            })
            .unwrap();
            prop_assert_eq!(xs[first_halfway(&tps).unwrap()], grid[whole]);
        }
    }
}
