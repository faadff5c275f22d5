//! The uniqueBytes sweep: log-spaced points, then more where it drops.

use crate::curve::{drops, Point};
use willy::units::Bytes;
use willy::workload::Workload;

/// A drop's onset segment is refined until its ends differ by at most this
/// factor of uniqueBytes: the cache's size is read there, and the usual
/// resolution, 1.15, left a 1 GiB cache 6% either way.
pub const ONSET_RESOLUTION: f64 = 1.05;

/// How the sweep spaces its points.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// Smallest uniqueBytes.
    pub from: u64,
    /// Largest uniqueBytes.
    pub to: u64,
    /// Log-spaced points first (about 20).
    pub points: usize,
    /// Most points added inside drops.
    pub refine: usize,
    /// Refine a drop's segment while its ends differ by more than this
    /// factor of uniqueBytes.
    pub resolution: f64,
}

impl SweepPlan {
    /// Chen's about 20 points from `from` to `to`, with up to 16 more.
    pub fn new(from: u64, to: u64) -> SweepPlan {
        SweepPlan {
            from,
            to,
            points: 20,
            refine: 16,
            resolution: 1.15,
        }
    }

    /// The uniqueBytes of the log-spaced points, smallest first.
    pub fn log_points(&self) -> Vec<u64> {
        let (a, b) = (self.from as f64, self.to as f64);
        let n = self.points.max(2);
        (0..n)
            .map(|i| (a * (b / a).powf(i as f64 / (n - 1) as f64)) as u64)
            .collect()
    }

    /// Bytes of files one sweep writes: every log-spaced point's files.
    pub fn fill_bytes(&self) -> u64 {
        self.log_points().iter().sum()
    }
}

/// `focal` with its uniqueBytes set to about `u`, in whole blocks per
/// generator.
pub fn with_unique(focal: &Workload, u: f64) -> Workload {
    let mut w = focal.clone();
    let unit = w.block_size.0 * u64::from(w.process_num);
    let min = w.size_mean.0.div_ceil(w.block_size.0) * unit;
    w.unique_bytes = Bytes((((u / unit as f64).round() as u64) * unit).max(min));
    w
}

/// Measures the uniqueBytes curve of `focal` with `measure` (throughput in
/// bytes per second, and its 95% confidence interval's half-width relative
/// to it). Returns the points sorted by uniqueBytes.
pub fn sweep<E>(
    focal: &Workload,
    plan: &SweepPlan,
    mut measure: impl FnMut(&Workload) -> Result<(f64, f64), E>,
) -> Result<Vec<Point>, E> {
    let mut pts: Vec<Point> = Vec::new();
    let mut add = |pts: &mut Vec<Point>, u: f64| -> Result<(), E> {
        let w = with_unique(focal, u);
        let ub = w.unique_bytes.0 as f64;
        if pts.iter().all(|p| p.unique_bytes != ub) {
            let (throughput, ci) = measure(&w)?;
            pts.push(Point {
                unique_bytes: ub,
                throughput,
                ci,
            });
            pts.sort_by(|a, b| a.unique_bytes.total_cmp(&b.unique_bytes));
        }
        Ok(())
    };
    let (from, to) = (plan.from as f64, plan.to as f64);
    for i in 0..plan.points {
        add(
            &mut pts,
            from * (to / from).powf(i as f64 / (plan.points - 1) as f64),
        )?;
    }
    for _ in 0..plan.refine {
        // The segment a drop's onset lies in, while it is wider than
        // ONSET_RESOLUTION (the cache size is read there), then the widest
        // segment inside any drop, if it is still too wide.
        let ratio = |j: usize| pts[j + 1].unique_bytes / pts[j].unique_bytes;
        let found = drops(&pts);
        let onset = found
            .iter()
            .map(|d| d.onset_segment)
            .filter(|&j| j + 1 < pts.len())
            .map(|j| (ratio(j), j))
            .find(|&(r, _)| r > ONSET_RESOLUTION);
        let widest = found
            .iter()
            .flat_map(|d| d.start..d.end)
            .map(|j| (ratio(j), j))
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .filter(|&(r, _)| r > plan.resolution);
        match onset.or(widest) {
            Some((_, j)) => {
                let before = pts.len();
                let mid = (pts[j].unique_bytes * pts[j + 1].unique_bytes).sqrt();
                add(&mut pts, mid)?;
                if pts.len() == before {
                    break; // blocks too coarse to split further
                }
            }
            None => break,
        }
    }
    Ok(pts)
}
