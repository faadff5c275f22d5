//! `willy anomalies` (Shen, Zhong and Li, FAST'05): random samples over
//! the workload parameters and the settings willy can change, each
//! compared with what the system should do, and the anomalous ones
//! grouped into hyper-rectangles that point at a cause.
//!
//! - [`cluster`]: Algorithm 4.1, the greedy hyper-rectangle growth;
//! - [`model`]: the expected throughput from the device's parameters;
//! - here: the sampled space ([`Space`]), the samples scaled to the unit
//!   cube for clustering, and the clusters described in the space's own
//!   terms ([`characterise`]).

pub mod cluster;
pub mod model;

use crate::profile::Ranges;
pub use cluster::{clusters, Cluster};
use serde_json::Value;
use std::collections::BTreeMap;
use willy::doc::anomalies::{Cluster as ClusterDoc, Dimension, Range, Sample};
use willy::units::Bytes;
use willy::workload::Workload;

/// Shen's threshold: a sample 10% or more below its expected value is
/// anomalous.
pub const THRESHOLD: f64 = 0.10;

/// Shen's clustering threshold: at least 90% of the samples inside a
/// cluster are anomalous.
pub const EPS: f64 = 0.9;

/// One drawn setting: a workload and the settings it runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The workload.
    pub workload: Workload,
    /// Index into [`Space::engines`].
    pub engine: usize,
    /// O_DIRECT.
    pub direct: bool,
    /// Read-ahead on.
    pub readahead: bool,
    /// Index into [`Space::schedulers`] (0 when they are not varied).
    pub scheduler: usize,
}

/// What is sampled: the five parameters' ranges and the settings' values
/// (a setting with one value is fixed, not a dimension).
#[derive(Clone, Debug)]
pub struct Space {
    /// Ranges of the five parameters.
    pub ranges: Ranges,
    /// Engines, by name.
    pub engines: Vec<String>,
    /// O_DIRECT values.
    pub direct: Vec<bool>,
    /// Read-ahead values.
    pub readahead: Vec<bool>,
    /// A raw device's I/O schedulers, by name (empty: not varied).
    pub schedulers: Vec<String>,
    /// Block size of the workloads, bytes.
    pub block: u64,
}

impl Space {
    /// `n` settings drawn uniformly (the parameters as `willy validate`
    /// draws them; each setting's values equally likely).
    pub fn draw(&self, n: usize, seed: u64) -> Vec<Setting> {
        use rand::{Rng, SeedableRng};
        let ws = crate::validate::random_workloads(&self.ranges, n, seed, self.block);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5BE2_0005);
        ws.into_iter()
            .map(|workload| Setting {
                workload,
                engine: rng.random_range(0..self.engines.len()),
                direct: self.direct[rng.random_range(0..self.direct.len())],
                readahead: self.readahead[rng.random_range(0..self.readahead.len())],
                // Drawn only when varied, so that spaces without it draw
                // the same settings as before it existed.
                scheduler: if self.schedulers.len() > 1 {
                    rng.random_range(0..self.schedulers.len())
                } else {
                    0
                },
            })
            .collect()
    }

    /// The dimensions, in the order of [`Space::unit`]'s coordinates.
    pub fn dimensions(&self) -> Vec<Dimension> {
        let r = &self.ranges;
        let num = |name: &str, range: [f64; 2], log: bool| Dimension {
            name: name.into(),
            range: Some(range),
            log,
            values: None,
        };
        let mut d = vec![
            num(
                "uniqueBytes",
                [r.unique_bytes[0] as f64, r.unique_bytes[1] as f64],
                true,
            ),
            num(
                "sizeMean",
                [r.size_mean[0] as f64, r.size_mean[1] as f64],
                true,
            ),
            num("readFrac", r.read_frac, false),
            num("seqFrac", r.seq_frac, false),
            num(
                "processNum",
                [f64::from(r.process_num[0]), f64::from(r.process_num[1])],
                false,
            ),
        ];
        let cat = |name: &str, values: Vec<Value>| Dimension {
            name: name.into(),
            range: None,
            log: false,
            values: Some(values),
        };
        if self.engines.len() > 1 {
            d.push(cat(
                "engine",
                self.engines
                    .iter()
                    .map(|e| Value::from(e.as_str()))
                    .collect(),
            ));
        }
        if self.direct.len() > 1 {
            d.push(cat(
                "direct",
                self.direct.iter().map(|&b| Value::from(b)).collect(),
            ));
        }
        if self.readahead.len() > 1 {
            d.push(cat(
                "readahead",
                self.readahead.iter().map(|&b| Value::from(b)).collect(),
            ));
        }
        if self.schedulers.len() > 1 {
            d.push(cat(
                "scheduler",
                self.schedulers
                    .iter()
                    .map(|e| Value::from(e.as_str()))
                    .collect(),
            ));
        }
        d
    }

    /// A setting's scheduler, by name, where they are varied.
    pub fn scheduler_of(&self, s: &Setting) -> Option<&str> {
        (self.schedulers.len() > 1).then(|| self.schedulers[s.scheduler].as_str())
    }

    /// A setting's coordinates in the unit cube: each numeric dimension
    /// scaled over its range (its logarithm for sizes), each categorical
    /// one its value's index over the last index.
    pub fn unit(&self, s: &Setting) -> Vec<f64> {
        let w = &s.workload;
        let r = &self.ranges;
        let lin = |v: f64, lo: f64, hi: f64| if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
        let log = |v: u64, range: [u64; 2]| {
            let (lo, hi) = (range[0].max(1) as f64, range[1].max(1) as f64);
            lin((v.max(1) as f64).ln(), lo.ln(), hi.ln())
        };
        let mut x = vec![
            log(w.unique_bytes.0, r.unique_bytes),
            log(w.size_mean.0, r.size_mean),
            lin(w.read_frac, r.read_frac[0], r.read_frac[1]),
            lin(w.seq_frac, r.seq_frac[0], r.seq_frac[1]),
            lin(
                f64::from(w.process_num),
                f64::from(r.process_num[0]),
                f64::from(r.process_num[1]),
            ),
        ];
        let index = |i: usize, n: usize| i as f64 / (n - 1) as f64;
        if self.engines.len() > 1 {
            x.push(index(s.engine, self.engines.len()));
        }
        for (values, v) in [(&self.direct, s.direct), (&self.readahead, s.readahead)] {
            if values.len() > 1 {
                let i = values.iter().position(|&b| b == v).unwrap_or(0);
                x.push(index(i, values.len()));
            }
        }
        if self.schedulers.len() > 1 {
            x.push(index(s.scheduler, self.schedulers.len()));
        }
        x
    }
}

/// Whether a sample is anomalous: `1 - measured / expected` at least
/// `threshold`.
pub fn shortfall(expected: f64, measured: f64) -> f64 {
    if expected > 0.0 {
        1.0 - measured / expected
    } else {
        0.0
    }
}

/// The clusters of the anomalous samples, described: each dimension a
/// cluster does not span whole (over the samples drawn) becomes a range,
/// in the dimension's own units, and the cluster a sentence.
pub fn characterise(
    space: &Space,
    samples: &[Sample],
    settings: &[Setting],
    eps: f64,
) -> Vec<ClusterDoc> {
    let points: Vec<Vec<f64>> = settings.iter().map(|s| space.unit(s)).collect();
    let bad: Vec<bool> = samples.iter().map(|s| s.anomalous).collect();
    let total = bad.iter().filter(|&&b| b).count();
    let dims = space.dimensions();
    let span: Vec<(f64, f64)> = (0..dims.len())
        .map(|d| {
            points
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                    (a.min(p[d]), b.max(p[d]))
                })
        })
        .collect();
    clusters(&points, &bad, eps, (total / 10).max(5))
        .into_iter()
        .map(|c| {
            let mut ranges = BTreeMap::new();
            for (d, dim) in dims.iter().enumerate() {
                if c.lo[d] <= span[d].0 && c.hi[d] >= span[d].1 {
                    continue; // spans it whole: uncorrelated
                }
                let inside = settings
                    .iter()
                    .zip(&points)
                    .filter(|(_, p)| p[d] >= c.lo[d] && p[d] <= c.hi[d]);
                ranges.insert(dim.name.clone(), range_of(dim, inside.map(|(s, _)| s)));
            }
            let description = describe(&ranges, &c);
            ClusterDoc {
                ranges,
                unit_bounds: c.lo.iter().zip(&c.hi).map(|(&l, &h)| [l, h]).collect(),
                anomalies: c.anomalies,
                samples_inside: c.samples,
                precision: c.precision,
                recall: c.recall,
                description,
            }
        })
        .collect()
}

/// The values `settings` take on `dim`: `[min, max]` or the values seen.
fn range_of<'a>(dim: &Dimension, settings: impl Iterator<Item = &'a Setting>) -> Range {
    let value = |s: &Setting| -> Value {
        let w = &s.workload;
        match dim.name.as_str() {
            "uniqueBytes" => Value::from(w.unique_bytes.0),
            "sizeMean" => Value::from(w.size_mean.0),
            "readFrac" => Value::from(w.read_frac),
            "seqFrac" => Value::from(w.seq_frac),
            "processNum" => Value::from(w.process_num),
            "direct" => Value::from(s.direct),
            "readahead" => Value::from(s.readahead),
            name => {
                let i = if name == "scheduler" {
                    s.scheduler
                } else {
                    s.engine
                };
                dim.values
                    .as_ref()
                    .and_then(|v| v.get(i).cloned())
                    .unwrap_or(Value::Null)
            }
        }
    };
    let vals: Vec<Value> = settings.map(value).collect();
    if dim.values.is_some() {
        let mut seen: Vec<Value> = Vec::new();
        for v in dim.values.iter().flatten() {
            if vals.contains(v) {
                seen.push(v.clone());
            }
        }
        Range::Values(seen)
    } else {
        let nums = vals.iter().filter_map(Value::as_f64);
        let (lo, hi) = nums.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        Range::Numeric([lo, hi])
    }
}

/// A cluster as a sentence, e.g. "processNum 9 to 32, readahead on:
/// 61 anomalies among 64 samples (precision 0.95, recall 0.87)".
fn describe(ranges: &BTreeMap<String, Range>, c: &Cluster) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|(name, r)| match r {
            Range::Numeric([lo, hi]) if name == "uniqueBytes" || name == "sizeMean" => {
                format!("{name} {} to {}", Bytes(*lo as u64), Bytes(*hi as u64))
            }
            Range::Numeric([lo, hi]) if name == "processNum" => format!("{name} {lo} to {hi}"),
            Range::Numeric([lo, hi]) => format!("{name} {lo:.2} to {hi:.2}"),
            Range::Values(v) => {
                let words: Vec<String> = v
                    .iter()
                    .map(|x| match x {
                        Value::Bool(true) => "on".to_string(),
                        Value::Bool(false) => "off".to_string(),
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                format!("{name} {}", words.join(" or "))
            }
        })
        .collect();
    let what = if parts.is_empty() {
        "everywhere".to_string()
    } else {
        parts.join(", ")
    };
    format!(
        "{what}: {} anomalies among {} samples (precision {:.2}, recall {:.2})",
        c.anomalies, c.samples, c.precision, c.recall
    )
}

/// A sample's coordinates in the unit cube of `dims` (as [`Space::unit`]
/// gives them), from the document alone: what the figure draws.
pub fn unit_of(dims: &[Dimension], s: &Sample) -> Vec<f64> {
    let w = &s.workload;
    dims.iter()
        .map(|d| {
            let v = match d.name.as_str() {
                "uniqueBytes" => w.unique_bytes.0 as f64,
                "sizeMean" => w.size_mean.0 as f64,
                "readFrac" => w.read_frac,
                "seqFrac" => w.seq_frac,
                "processNum" => f64::from(w.process_num),
                _ => {
                    let values = d.values.as_deref().unwrap_or(&[]);
                    let me = match d.name.as_str() {
                        "direct" => Value::from(s.direct),
                        "readahead" => Value::from(s.readahead),
                        "scheduler" => Value::from(s.scheduler.as_deref().unwrap_or("")),
                        _ => Value::from(s.engine.as_str()),
                    };
                    let i = values.iter().position(|x| *x == me).unwrap_or(0);
                    return i as f64 / (values.len().max(2) - 1) as f64;
                }
            };
            let [lo, hi] = d.range.unwrap_or([0.0, 1.0]);
            let f = |x: f64| if d.log { x.max(1.0).ln() } else { x };
            if f(hi) > f(lo) {
                (f(v) - f(lo)) / (f(hi) - f(lo))
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(schedulers: &[&str]) -> Space {
        Space {
            ranges: Ranges {
                unique_bytes: [1 << 20, 1 << 30],
                size_mean: [4096, 1 << 20],
                read_frac: [0.0, 1.0],
                seq_frac: [0.0, 1.0],
                process_num: [1, 8],
            },
            engines: vec!["psync".into()],
            direct: vec![false, true],
            readahead: vec![false, true],
            schedulers: schedulers.iter().map(|s| s.to_string()).collect(),
            block: 4096,
        }
    }

    /// Schedulers are a dimension only where they are varied, and varying
    /// them leaves the workloads drawn as they were; a sample's position
    /// read back from the document is the one it was clustered at.
    #[test]
    fn schedulers_are_a_dimension_only_where_varied() {
        let plain = space(&[]);
        let varied = space(&["none", "mq-deadline", "bfq"]);
        let (a, b) = (plain.draw(60, 7), varied.draw(60, 7));
        assert!(a.iter().zip(&b).all(|(x, y)| x.workload == y.workload));
        assert_eq!((a[0].direct, a[0].readahead), (b[0].direct, b[0].readahead));
        assert!(a
            .iter()
            .all(|s| s.scheduler == 0 && plain.scheduler_of(s).is_none()));
        for k in 0..3 {
            assert!(
                b.iter().any(|s| s.scheduler == k),
                "scheduler {k} never drawn"
            );
        }
        let dims = varied.dimensions();
        assert_eq!(plain.dimensions().len() + 1, dims.len());
        let last = dims.last().unwrap();
        assert_eq!(last.name, "scheduler");
        assert_eq!(last.values.as_ref().unwrap().len(), 3);

        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/runs/2026-11-23/anomalies/hdd-64m.json"
        ))
        .unwrap();
        let doc = willy::doc::anomalies::Anomalies::from_json(&text).unwrap();
        for s in b.iter().take(10) {
            let sample = Sample {
                workload: s.workload.clone(),
                direct: s.direct,
                readahead: s.readahead,
                scheduler: varied.scheduler_of(s).map(String::from),
                ..doc.samples[0].clone()
            };
            let (got, want) = (unit_of(&dims, &sample), varied.unit(s));
            assert_eq!(got.len(), want.len());
            assert!(got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-9));
            assert_eq!(*got.last().unwrap(), s.scheduler as f64 / 2.0);
        }
    }
}
