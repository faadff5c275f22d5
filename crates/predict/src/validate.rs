//! Checking predictions against measurements (Chen 1992, section 5.3 and
//! Table 5.1): random workloads over a profile's ranges, the error
//! statistics, and the orthogonal-sampling baseline of section 5.4.
//!
//! - Random workloads: uniqueBytes and sizeMean are drawn uniformly in
//!   their logarithm (a profile spans three or more decades: drawn linearly,
//!   nearly all would fall in the top decade), sizeMean rounded to whole
//!   blocks; readFrac and seqFrac uniformly in [0, 1]; processNum uniformly
//!   among the integers of its range. A draw the generator cannot run (a
//!   request larger than a generator's file) is drawn again.
//! - Error of one workload: `|predicted - measured| / measured`.
//! - The 90% confidence interval of the median error is a percentile
//!   bootstrap ([`BOOTSTRAP`] resamples, seeded).

use crate::predict::Param;
use crate::profile::Ranges;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeMap;
pub use willy::doc::validation::{
    BaselineResult, Bin, CdfPoint, DriftPoint, ParamErrors, RegionErrors, ValidatedPoint,
    ValidationReport, VALIDATION_SCHEMA_VERSION,
};
use willy::engine::EngineKind;
use willy::units::Bytes;
use willy::workload::Workload;

/// Bootstrap resamples for the median's confidence interval.
pub const BOOTSTRAP: usize = 2000;

/// `n` random workloads over `ranges` (see the module documentation).
pub fn random_workloads(ranges: &Ranges, n: usize, seed: u64, block: u64) -> Vec<Workload> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let log_uniform = |rng: &mut Xoshiro256PlusPlus, r: [u64; 2]| {
        let (a, b) = (
            (r[0].max(1) as f64).ln(),
            (r[1].max(r[0]).max(1) as f64).ln(),
        );
        (a + (b - a) * rng.random::<f64>()).exp()
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let u = log_uniform(&mut rng, ranges.unique_bytes);
        let s = log_uniform(&mut rng, ranges.size_mean);
        let p = rng.random_range(ranges.process_num[0].max(1)..=ranges.process_num[1].max(1));
        let unit = block * u64::from(p);
        let w = Workload {
            unique_bytes: Bytes(((u / unit as f64).round() as u64).max(1) * unit),
            size_mean: Bytes(((s / block as f64).round() as u64).max(1) * block),
            read_frac: round3(rng.random::<f64>()),
            seq_frac: round3(rng.random::<f64>()),
            process_num: p,
            cpu_think: Default::default(),
            block_size: Bytes(block),
        };
        if w.validate().is_ok() {
            out.push(w);
        }
    }
    out
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Relative error of a prediction.
pub fn rel_error(predicted: f64, measured: f64) -> f64 {
    (predicted - measured).abs() / measured
}

/// The median of `v` (the mean of the middle two for an even count).
pub use willy::stats::median;

/// A percentile-bootstrap `level` confidence interval of the median.
pub fn bootstrap_median_ci(v: &[f64], level: f64, seed: u64) -> [f64; 2] {
    if v.is_empty() {
        return [f64::NAN, f64::NAN];
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut meds: Vec<f64> = (0..BOOTSTRAP)
        .map(|_| {
            let s: Vec<f64> = (0..v.len())
                .map(|_| v[rng.random_range(0..v.len())])
                .collect();
            median(&s)
        })
        .collect();
    meds.sort_by(f64::total_cmp);
    let q = |p: f64| meds[((p * (BOOTSTRAP - 1) as f64).round() as usize).min(BOOTSTRAP - 1)];
    [q((1.0 - level) / 2.0), q((1.0 + level) / 2.0)]
}

/// The empirical CDF of `errors`, one point per workload.
pub fn cdf(errors: &[f64]) -> Vec<CdfPoint> {
    let mut s = errors.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    s.iter()
        .enumerate()
        .map(|(i, &e)| CdfPoint {
            error: e,
            fraction: (i + 1) as f64 / n,
        })
        .collect()
}

/// Errors binned against each parameter, `bins` bins each.
pub fn by_param(ws: &[Workload], errors: &[f64], bins: usize) -> Vec<ParamErrors> {
    Param::ALL
        .iter()
        .map(|&p| {
            let axis = |v: f64| if p.log_scale() { v.ln() } else { v };
            let xs: Vec<f64> = ws.iter().map(|w| axis(p.of(w))).collect();
            let (lo, hi) = xs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            let width = ((hi - lo) / bins as f64).max(f64::MIN_POSITIVE);
            let unaxis = |x: f64| if p.log_scale() { x.exp() } else { x };
            let out = (0..bins)
                .map(|b| {
                    let (from, to) = (lo + width * b as f64, lo + width * (b + 1) as f64);
                    let e: Vec<f64> = xs
                        .iter()
                        .zip(errors)
                        .filter(|(&x, _)| x >= from && (x < to || (b + 1 == bins && x <= hi)))
                        .map(|(_, &e)| e)
                        .collect();
                    Bin {
                        from: unaxis(from),
                        to: unaxis(to),
                        count: e.len(),
                        median_abs_error: (!e.is_empty()).then(|| median(&e)),
                    }
                })
                .collect();
            ParamErrors {
                param: p.name().into(),
                bins: out,
            }
        })
        .collect()
}

/// Chen's baseline (section 5.4): throughput measured on an orthogonal grid
/// of `levels` values per parameter, predicted by multilinear interpolation
/// between grid points (against `ln x` for sizes and processNum).
#[derive(Clone, Debug)]
pub struct Orthogonal {
    axes: [Vec<f64>; 5],
    /// Throughput at each grid point, uniqueBytes varying slowest.
    values: Vec<f64>,
}

impl Orthogonal {
    /// The fewest values per parameter, at least 3 each (raised one
    /// parameter at a time, in Chen's order), whose grid has at least
    /// `points` workloads: the baseline gets as many points as the profile
    /// or more.
    pub fn levels_for(ranges: &Ranges, points: usize) -> [usize; 5] {
        let mut l = [3usize; 5];
        for k in 0.. {
            if Self::axes(ranges, l)
                .iter()
                .map(Vec::len)
                .product::<usize>()
                >= points
            {
                break;
            }
            l[k % 5] += 1;
        }
        l
    }

    /// The grid's values of each parameter: `levels[i]` evenly spaced (in
    /// the logarithm for sizes and processNum), processNum rounded and
    /// deduplicated.
    pub fn axes(ranges: &Ranges, levels: [usize; 5]) -> [Vec<f64>; 5] {
        let spread = |lo: f64, hi: f64, log: bool, levels: usize| -> Vec<f64> {
            let levels = levels.max(2);
            (0..levels)
                .map(|i| {
                    let t = i as f64 / (levels - 1) as f64;
                    if log {
                        (lo.ln() + (hi.ln() - lo.ln()) * t).exp()
                    } else {
                        lo + (hi - lo) * t
                    }
                })
                .collect()
        };
        let mut procs: Vec<f64> = spread(
            f64::from(ranges.process_num[0].max(1)),
            f64::from(ranges.process_num[1].max(1)),
            true,
            levels[4],
        )
        .into_iter()
        .map(f64::round)
        .collect();
        procs.dedup();
        [
            spread(
                ranges.unique_bytes[0] as f64,
                ranges.unique_bytes[1] as f64,
                true,
                levels[0],
            ),
            spread(
                ranges.size_mean[0] as f64,
                ranges.size_mean[1] as f64,
                true,
                levels[1],
            ),
            spread(ranges.read_frac[0], ranges.read_frac[1], false, levels[2]),
            spread(ranges.seq_frac[0], ranges.seq_frac[1], false, levels[3]),
            procs,
        ]
    }

    /// The workloads of the grid, uniqueBytes varying slowest. A request
    /// larger than a generator's file is cut to the file (the generator
    /// could not run it); the grid point keeps its nominal coordinates.
    pub fn grid(axes: &[Vec<f64>; 5], block: u64) -> Vec<Workload> {
        let mut out = Vec::new();
        for &u in &axes[0] {
            for &s in &axes[1] {
                for &r in &axes[2] {
                    for &q in &axes[3] {
                        for &p in &axes[4] {
                            let p = p as u32;
                            let unit = block * u64::from(p);
                            let ub = ((u / unit as f64).round() as u64).max(1) * unit;
                            let per = ub / u64::from(p);
                            let sm = (((s / block as f64).round() as u64).max(1) * block).min(per);
                            out.push(Workload {
                                unique_bytes: Bytes(ub),
                                size_mean: Bytes(sm),
                                read_frac: r,
                                seq_frac: q,
                                process_num: p,
                                cpu_think: Default::default(),
                                block_size: Bytes(block),
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// A model from the grid's axes and the throughput measured at each of
    /// [`Orthogonal::grid`]'s workloads, in the same order.
    pub fn new(axes: [Vec<f64>; 5], values: Vec<f64>) -> Orthogonal {
        assert_eq!(
            values.len(),
            axes.iter().map(Vec::len).product::<usize>(),
            "one value per grid point"
        );
        Orthogonal { axes, values }
    }

    /// Multilinear interpolation at `w`, clamped to the grid.
    pub fn predict(&self, w: &Workload) -> f64 {
        // Per axis: lower index and weight of the upper neighbour.
        let mut pos = [(0usize, 0.0f64); 5];
        for (d, p) in Param::ALL.iter().enumerate() {
            let t = |v: f64| if p.log_scale() { v.ln() } else { v };
            let ax = &self.axes[d];
            let x = t(p.of(w));
            if ax.len() == 1 || x <= t(ax[0]) {
                pos[d] = (0, 0.0);
            } else if x >= t(ax[ax.len() - 1]) {
                pos[d] = (ax.len() - 2, 1.0);
            } else {
                let j = ax.partition_point(|&a| t(a) <= x).clamp(1, ax.len() - 1);
                let (a, b) = (t(ax[j - 1]), t(ax[j]));
                pos[d] = (j - 1, (x - a) / (b - a));
            }
        }
        let strides: Vec<usize> = (0..5)
            .map(|d| self.axes[d + 1..].iter().map(Vec::len).product())
            .collect();
        let mut sum = 0.0;
        for corner in 0..32u32 {
            let mut weight = 1.0;
            let mut idx = 0;
            for d in 0..5 {
                let up = corner >> d & 1 == 1;
                let (i, f) = pos[d];
                if self.axes[d].len() == 1 {
                    if up {
                        weight = 0.0;
                    }
                    continue;
                }
                weight *= if up { f } else { 1.0 - f };
                idx += (i + usize::from(up)) * strides[d];
            }
            if weight > 0.0 {
                sum += weight * self.values[idx];
            }
        }
        sum
    }
}

/// How the validated workloads were measured: where, with which engine,
/// with O_DIRECT or not.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The profile's path.
    pub profile: String,
    /// Points the profile measured.
    pub profile_points: usize,
    /// Where the workloads were measured.
    pub target: String,
    /// The engine.
    pub engine: EngineKind,
    /// O_DIRECT or not.
    pub direct: bool,
    /// Seed of the workloads.
    pub seed: u64,
    /// The shortest and the longest measurement of each workload,
    /// seconds.
    pub measured_secs: [f64; 2],
    /// The stopping rule's target, relative half-width of each workload's
    /// 95% confidence interval.
    pub ci: f64,
    /// The selected model, whose predictions the points carry.
    pub model: String,
}

/// Every model's median error over `points` (from their
/// `error_by_model`), by name.
pub fn median_by_model(points: &[&ValidatedPoint]) -> BTreeMap<String, f64> {
    let mut errors: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for p in points {
        for (n, &e) in &p.error_by_model {
            errors.entry(n.clone()).or_default().push(e);
        }
    }
    errors.into_iter().map(|(n, e)| (n, median(&e))).collect()
}

/// [`median_by_model`] for each region the points were predicted in, with
/// the median of their repeat errors.
pub fn by_region(points: &[ValidatedPoint]) -> Vec<RegionErrors> {
    let mut regions: BTreeMap<usize, Vec<&ValidatedPoint>> = BTreeMap::new();
    for p in points {
        regions.entry(p.region).or_default().push(p);
    }
    regions
        .into_iter()
        .map(|(k, here)| {
            let repeat: Vec<f64> = here.iter().map(|p| p.repeat_error).collect();
            RegionErrors {
                region: k,
                workloads: here.len(),
                median_abs_error_by_model: median_by_model(&here),
                repeatability_error: Some(median(&repeat)),
            }
        })
        .collect()
}

/// The validation document: the statistics of `points`, with the baseline's
/// (levels, points measured) when one was run, and the profile's points
/// measured again (`drift`).
pub fn report(
    setup: Setup,
    points: Vec<ValidatedPoint>,
    baseline: Option<([usize; 5], usize)>,
    drift: Vec<DriftPoint>,
) -> ValidationReport {
    let errors: Vec<f64> = points.iter().map(|p| p.error).collect();
    let repeat: Vec<f64> = points.iter().map(|p| p.repeat_error).collect();
    let ws: Vec<Workload> = points.iter().map(|p| p.workload.clone()).collect();
    let border: Vec<f64> = points
        .iter()
        .filter(|p| p.near_border)
        .map(|p| p.error)
        .collect();
    let seed = setup.seed;
    let baseline = baseline.map(|(levels, n)| {
        let e: Vec<f64> = points
            .iter()
            .filter_map(|p| {
                p.baseline_predicted_bytes_per_sec
                    .map(|b| rel_error(b, p.measured_bytes_per_sec))
            })
            .collect();
        BaselineResult {
            kind: "orthogonal".into(),
            levels,
            points: n,
            median_abs_error: median(&e),
            median_abs_error_ci90: bootstrap_median_ci(&e, 0.9, seed),
        }
    });
    ValidationReport {
        kind: "willy-validation".into(),
        schema_version: VALIDATION_SCHEMA_VERSION,
        profile: setup.profile,
        profile_points: setup.profile_points,
        target: setup.target,
        engine: Some(setup.engine),
        direct: Some(setup.direct),
        seed,
        min_time_secs: Some(setup.measured_secs[0]),
        max_time_secs: Some(setup.measured_secs[1]),
        ci95_target_rel: Some(setup.ci),
        model: Some(setup.model),
        median_abs_error_by_model: median_by_model(&points.iter().collect::<Vec<_>>()),
        regions: by_region(&points),
        median_abs_error: median(&errors),
        median_abs_error_ci90: bootstrap_median_ci(&errors, 0.9, seed),
        repeatability_error: median(&repeat),
        drift,
        extrapolated: points.iter().filter(|p| !p.extrapolated.is_empty()).count(),
        near_border: border.len(),
        near_border_median_abs_error: (!border.is_empty()).then(|| median(&border)),
        error_cdf: cdf(&errors),
        error_by_param: by_param(&ws, &errors, 5),
        baseline,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ranges() -> Ranges {
        Ranges {
            unique_bytes: [1 << 20, 1 << 30],
            size_mean: [4096, 1 << 20],
            read_frac: [0.0, 1.0],
            seq_frac: [0.0, 1.0],
            process_num: [1, 16],
        }
    }

    #[test]
    fn random_workloads_are_valid_seeded_and_cover_the_ranges() {
        let a = random_workloads(&ranges(), 400, 7, 4096);
        assert_eq!(a, random_workloads(&ranges(), 400, 7, 4096));
        assert_ne!(a, random_workloads(&ranges(), 400, 8, 4096));
        assert!(a.iter().all(|w| w.validate().is_ok()));
        // Log-uniform: about a third of uniqueBytes in each third of the
        // decades (1 MiB-10 MiB-100 MiB-1 GiB).
        let low = a.iter().filter(|w| w.unique_bytes.0 < 10 << 20).count();
        assert!((80..190).contains(&low), "{low} of 400 below 10 MiB");
        let reads = a.iter().filter(|w| w.read_frac < 0.5).count();
        assert!((160..240).contains(&reads), "{reads} of 400 below 0.5");
        assert!(a.iter().any(|w| w.process_num == 16) && a.iter().any(|w| w.process_num == 1));
    }

    #[test]
    fn median_and_cdf() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let c = cdf(&[0.3, 0.1, 0.2]);
        assert_eq!(c[0].error, 0.1);
        assert_eq!(c[2].fraction, 1.0);
    }

    proptest! {
        /// The bootstrap interval contains the sample median and lies within
        /// the sample's range.
        #[test]
        fn bootstrap_interval_brackets_the_median(v in proptest::collection::vec(0.0f64..10.0, 11..60), seed in 0u64..100) {
            let m = median(&v);
            let [lo, hi] = bootstrap_median_ci(&v, 0.9, seed);
            let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = v.iter().cloned().fold(0.0, f64::max);
            prop_assert!(lo >= min && hi <= max);
            prop_assert!(lo <= m && m <= hi, "{m} outside [{lo}, {hi}]");
        }

        /// Multilinear interpolation reproduces any function that is linear
        /// on each axis (in the axis' own scale), also between grid points.
        #[test]
        fn orthogonal_interpolation_is_exact_for_multilinear_functions(
            c in proptest::collection::vec(-1.0f64..1.0, 6),
            w_u in 0.0f64..1.0, w_s in 0.0f64..1.0, r in 0.0f64..1.0, q in 0.0f64..1.0,
        ) {
            let rg = ranges();
            let axes = Orthogonal::axes(&rg, [3; 5]);
            let f = |u: f64, s: f64, r: f64, q: f64, p: f64| {
                10.0 + c[0] * u.ln() + c[1] * s.ln() + c[2] * r + c[3] * q + c[4] * p.ln()
                    + c[5] * r * q
            };
            let mut vals = Vec::new();
            for &u in &axes[0] { for &s in &axes[1] { for &r in &axes[2] { for &q in &axes[3] { for &p in &axes[4] {
                vals.push(f(u, s, r, q, p));
            }}}}}
            let m = Orthogonal::new(axes.clone(), vals);
            let lerp = |a: f64, b: f64, t: f64| (a.ln() + (b.ln() - a.ln()) * t).exp();
            let w = Workload {
                unique_bytes: Bytes(lerp((1 << 20) as f64, (1 << 30) as f64, w_u) as u64),
                size_mean: Bytes(lerp(4096.0, (1 << 20) as f64, w_s) as u64),
                read_frac: r,
                seq_frac: q,
                process_num: 4,
                cpu_think: Default::default(),
                block_size: Bytes(4096),
            };
            let got = m.predict(&w);
            let want = f(w.unique_bytes.0 as f64, w.size_mean.0 as f64, r, q, 4.0);
            prop_assert!((got - want).abs() < 1e-6 * want.abs().max(1.0), "{got} vs {want}");
        }
    }

    #[test]
    fn baseline_levels_reach_the_profile_size_with_the_fewest_points() {
        for n in [1, 100, 169, 243, 400, 1000] {
            let l = Orthogonal::levels_for(&ranges(), n);
            let size = |l: [usize; 5]| {
                Orthogonal::axes(&ranges(), l)
                    .iter()
                    .map(Vec::len)
                    .product::<usize>()
            };
            assert!(size(l) >= n, "{n}: {l:?}");
            assert!(l.iter().all(|&x| x >= 3));
            // One value fewer on the last raised axis would not be enough.
            if let Some(k) = (0..5).rev().find(|&k| l[k] > 3 && l[k] >= l[(k + 1) % 5]) {
                let mut less = l;
                less[k] -= 1;
                assert!(size(less) < n, "{n}: {l:?} is more than needed");
            }
        }
    }

    #[test]
    fn errors_by_parameter_put_every_workload_in_one_bin() {
        let ws = random_workloads(&ranges(), 100, 3, 4096);
        let e: Vec<f64> = (0..100).map(|i| f64::from(i) / 100.0).collect();
        for p in by_param(&ws, &e, 5) {
            assert_eq!(
                p.bins.iter().map(|b| b.count).sum::<usize>(),
                100,
                "{}",
                p.param
            );
        }
    }
}
