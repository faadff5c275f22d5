//! The self-scaling benchmark over any way of measuring a workload (Chen
//! 1992, section 4.5): the uniqueBytes curve, its regions, a focal vector per
//! region and the four single-parameter curves around it.
//!
//! Per region:
//! 1. uniqueBytes is the region's geometric middle; readFrac and seqFrac are
//!    0.5 (the middle of their range);
//! 2. sizeMean is measured from one block upwards, doubling, at least to
//!    1 MiB and on while throughput still improves by [`IMPROVES`]; its focal
//!    value is the measured size whose throughput is nearest halfway between
//!    the curve's minimum and maximum. processNum likewise, from 1, doubling,
//!    up to `max_process_num`;
//! 3. if either focal value moved from the first guess (two blocks, one
//!    process), both curves are measured once more around the new focal
//!    vector and the focal values taken again (Chen: iterate once); then
//!    both are measured around the final focal vector, so that every curve
//!    of a region passes through its focal point;
//! 4. readFrac and seqFrac are measured at 0, 0.1, ..., 1.
//!
//! Workloads that the model does not allow (a sizeMean larger than a
//! generator's file) are left out of a curve.

use crate::curve::{drops, regions, Point};
use crate::infer::cache_size;
use crate::sweep::{sweep, with_unique, SweepPlan};
use std::collections::HashMap;
use willy::units::Bytes;
use willy::workload::Workload;
use willy_predict::profile::{Curves, ProfilePoint, ProfileRegion, Ranges};

/// A curve goes on growing while a step improves throughput by this factor.
pub const IMPROVES: f64 = 1.05;

/// What a measurement returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Throughput, bytes per second.
    pub throughput: f64,
    /// Relative 95% half-width, if computed.
    pub ci95_rel: Option<f64>,
    /// Seconds measured.
    pub duration_secs: f64,
}

/// How far to scale.
#[derive(Clone, Debug)]
pub struct ScalePlan {
    /// The uniqueBytes sweep.
    pub unique: SweepPlan,
    /// The largest processNum tried.
    pub max_process_num: u32,
    /// The largest sizeMean tried.
    pub max_size_mean: u64,
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
    /// The ranges scaled over.
    pub ranges: Ranges,
}

/// Measures each workload once, whatever order the curves ask in.
struct Points<'a, E> {
    measure: &'a mut dyn FnMut(&Workload) -> Result<Measured, E>,
    index: HashMap<String, usize>,
    points: Vec<ProfilePoint>,
}

impl<E> Points<'_, E> {
    fn get(&mut self, w: &Workload) -> Result<usize, E> {
        let key = serde_json::to_string(w).expect("workloads serialise");
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let m = (self.measure)(w)?;
        self.points.push(ProfilePoint {
            workload: w.clone(),
            throughput_bytes_per_sec: m.throughput,
            ci95_rel: m.ci95_rel,
            duration_secs: m.duration_secs,
        });
        self.index.insert(key, self.points.len() - 1);
        Ok(self.points.len() - 1)
    }

    fn tp(&self, i: usize) -> f64 {
        self.points[i].throughput_bytes_per_sec
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

    /// The value whose throughput is nearest halfway between the curve's
    /// minimum and maximum.
    fn halfway<T: Copy>(&self, curve: &[(T, usize)]) -> Option<T> {
        let tps: Vec<f64> = curve.iter().map(|&(_, i)| self.tp(i)).collect();
        let (lo, hi) = tps
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &t| (a.min(t), b.max(t)));
        let mid = (lo + hi) / 2.0;
        curve
            .iter()
            .zip(&tps)
            .min_by(|a, b| (a.1 - mid).abs().total_cmp(&(b.1 - mid).abs()))
            .map(|(&(v, _), _)| v)
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
pub fn scale<E>(
    first: &Workload,
    plan: &ScalePlan,
    measure: &mut dyn FnMut(&Workload) -> Result<Measured, E>,
    seed: u64,
) -> Result<Scaled, E> {
    let mut pts = Points {
        measure,
        index: HashMap::new(),
        points: Vec::new(),
    };
    let bs = first.block_size.0;
    let mut guess = first.clone();
    // Two blocks: small requests like Chen's 10-40 KB focal sizes. With one
    // block, write-back costs pull sparc1990's drop early (17.5 MiB inferred
    // for 21 MiB instead of 19.0).
    guess.size_mean = Bytes(2 * bs);
    guess.process_num = 1;
    guess.read_frac = 0.5;
    guess.seq_frac = 0.5;

    // 1. uniqueBytes, its drops, regions and cache sizes.
    let curve = sweep(&guess, &plan.unique, |w| {
        let i = pts.get(w)?;
        Ok::<f64, E>(pts.tp(i))
    })?;
    let unique_bytes_curve: Vec<usize> = curve
        .iter()
        .map(|p| pts.get(&with_unique(&guess, p.unique_bytes)))
        .collect::<Result<_, _>>()?;
    let d = drops(&curve);
    let mut cache_sizes_bytes: Vec<u64> = d
        .iter()
        .filter_map(|d| cache_size(&guess, d.centre, seed))
        .collect();
    cache_sizes_bytes.sort_unstable();
    cache_sizes_bytes.dedup();

    // 2-4. A focal vector and four curves per region.
    let sizes = |w: &Workload| {
        doubling(
            bs,
            plan.max_size_mean.max(1 << 20).min(w.bytes_per_generator()),
        )
    };
    let procs = doubling(1, u64::from(plan.max_process_num.max(1)));
    let fracs: Vec<f64> = (0..=10).map(|i| f64::from(i) / 10.0).collect();
    let mut out_regions = Vec::new();
    for r in regions(&curve, &d) {
        let mut focal = with_unique(&guess, r.focal);
        for _round in 0..2 {
            let before = (focal.size_mean, focal.process_num);
            let size_curve = pts.curve(
                &focal,
                &sizes(&focal),
                |w, v| w.size_mean = Bytes(v),
                Some(1u64 << 20),
            )?;
            if let Some(s) = pts.halfway(&size_curve) {
                focal.size_mean = Bytes(s);
            }
            let proc_curve =
                pts.curve(&focal, &procs, |w, v| w.process_num = v as u32, Some(1u64))?;
            if let Some(p) = pts.halfway(&proc_curve) {
                focal.process_num = p as u32;
            }
            if (focal.size_mean, focal.process_num) == before {
                break;
            }
        }
        // Every curve must pass through the final focal vector: measure the
        // size and process curves around it (known points are reused).
        let size_curve = pts.curve(
            &focal,
            &sizes(&focal),
            |w, v| w.size_mean = Bytes(v),
            Some(1u64 << 20),
        )?;
        let proc_curve = pts.curve(&focal, &procs, |w, v| w.process_num = v as u32, Some(1u64))?;
        let read_curve = pts.curve(&focal, &fracs, |w, v| w.read_frac = v, None)?;
        let seq_curve = pts.curve(&focal, &fracs, |w, v| w.seq_frac = v, None)?;
        out_regions.push(ProfileRegion {
            from_unique_bytes: r.from as u64,
            to_unique_bytes: r.to as u64,
            curves: Curves {
                size_mean: idx(&size_curve),
                read_frac: idx(&read_curve),
                seq_frac: idx(&seq_curve),
                process_num: idx(&proc_curve),
            },
            focal,
        });
    }
    let all = &pts.points;
    let range = |f: fn(&Workload) -> u64| {
        let v = all.iter().map(|p| f(&p.workload));
        [v.clone().min().unwrap_or(0), v.max().unwrap_or(0)]
    };
    let ranges = Ranges {
        unique_bytes: range(|w| w.unique_bytes.0),
        size_mean: range(|w| w.size_mean.0),
        read_frac: [0.0, 1.0],
        seq_frac: [0.0, 1.0],
        process_num: {
            let [a, b] = range(|w| u64::from(w.process_num));
            [a as u32, b as u32]
        },
    };
    Ok(Scaled {
        points: pts.points,
        unique_bytes_curve,
        regions: out_regions,
        cache_sizes_bytes,
        ranges,
    })
}

/// Throughput of a curve's points, for tests and reports.
pub fn throughputs(s: &Scaled, idx: &[usize]) -> Vec<f64> {
    idx.iter()
        .map(|&i| s.points[i].throughput_bytes_per_sec)
        .collect()
}

/// The uniqueBytes curve as points.
pub fn unique_points(s: &Scaled) -> Vec<Point> {
    s.unique_bytes_curve
        .iter()
        .map(|&i| Point {
            unique_bytes: s.points[i].workload.unique_bytes.0 as f64,
            throughput: s.points[i].throughput_bytes_per_sec,
        })
        .collect()
}
