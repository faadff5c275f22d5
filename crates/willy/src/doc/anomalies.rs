//! What `willy anomalies --json` writes: random samples of workloads and
//! settings, each measured and compared with what the system should do,
//! and the anomalous ones clustered into parameter ranges (Shen, Zhong
//! and Li, FAST'05).

use super::{DocError, Document};
use crate::report::Measurement;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The anomalies document's version.
///
/// - 1: the first.
/// - 2: `scheduler` on samples and `readahead_via`, for raw devices;
///   `calibration`, for `--expect model` on a real target.
/// - 3: the measurements' `device_busy_frac`, and on simulated systems
///   the simulated host's CPU time in `cpu`.
/// - 4: the measurements' `stopping.transient_intervals` and
///   `stopping.steady_throughput_bytes_per_sec`.
/// - 5: the measurements' `generators_bytes_per_sec`.
pub const ANOMALIES_SCHEMA_VERSION: u32 = 5;

/// One dimension of the sampled space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Dimension {
    /// Its name: a workload parameter (`uniqueBytes`, `sizeMean`,
    /// `readFrac`, `seqFrac`, `processNum`) or a setting (`engine`,
    /// `direct`, `readahead`, `scheduler`).
    pub name: String,
    /// For a numeric dimension, the range sampled (`[lo, hi]`, bytes for
    /// sizes), drawn uniformly in the logarithm where `log`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
    /// Drawn uniformly in the logarithm.
    #[serde(default)]
    pub log: bool,
    /// For a categorical dimension, its values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<serde_json::Value>>,
}

/// A range of one dimension within a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Range {
    /// `[lo, hi]` of a numeric dimension.
    Numeric([f64; 2]),
    /// The values of a categorical one.
    Values(Vec<serde_json::Value>),
}

/// One sampled setting, measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sample {
    /// The workload.
    pub workload: Workload,
    /// The engine.
    pub engine: String,
    /// O_DIRECT (or the simulated cache bypassed).
    pub direct: bool,
    /// Read-ahead on.
    pub readahead: bool,
    /// The raw device's I/O scheduler, where schedulers were varied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// What the system should do, bytes per second.
    pub expected_bytes_per_sec: f64,
    /// What it did, bytes per second.
    pub measured_bytes_per_sec: f64,
    /// `1 - measured / expected`: how far below the expectation it fell
    /// (negative: above it).
    pub shortfall: f64,
    /// `shortfall >= threshold`.
    pub anomalous: bool,
    /// The measurement.
    pub measurement: Measurement,
}

/// One cluster of anomalies: a hyper-rectangle of parameter ranges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cluster {
    /// The dimensions it restricts, each to a range (numeric) or to some
    /// values (categorical). A dimension it spans whole is left out.
    pub ranges: BTreeMap<String, Range>,
    /// Its bounds on every dimension, in the sampled space scaled to
    /// [0, 1] (logarithms for log dimensions, value indices for
    /// categorical ones): what the figure draws.
    pub unit_bounds: Vec<[f64; 2]>,
    /// Anomalous samples inside.
    pub anomalies: usize,
    /// Samples inside.
    pub samples_inside: usize,
    /// `anomalies / samples_inside`.
    pub precision: f64,
    /// `anomalies / all anomalies`.
    pub recall: f64,
    /// The cluster as a sentence.
    pub description: String,
}

/// What `--expect model` measured on a real target to build the layered
/// model from: a device with no seeks or rotation, and the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calibration {
    /// One generator's random 4 KiB O_DIRECT reads: time per read, ms.
    pub random_read_4k_ms: f64,
    /// One generator's sequential 1 MiB O_DIRECT reads, MB/s (10^6 B/s).
    pub seq_read_mb_per_s: f64,
    /// One generator's sequential 1 MiB O_DIRECT writes, MB/s.
    pub seq_write_mb_per_s: f64,
    /// One generator's random 4 KiB reads of cached data: time per read, ms.
    pub cached_4k_ms: f64,
    /// The same with 1 MiB reads, ms.
    pub cached_1m_ms: f64,
    /// CPUs online.
    pub cpus: u32,
    /// The cache: the memory cgroup's limit, bytes.
    pub cache_bytes: u64,
    /// The device's read-ahead (its queue's read_ahead_kb), bytes.
    pub readahead_bytes: u64,
    /// The model's parameters derived from these, in words.
    pub model: String,
    /// Time the calibration took, s.
    pub elapsed_s: f64,
}

/// What `willy anomalies --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Anomalies {
    /// Always `"willy-anomalies"`.
    pub kind: String,
    /// [`ANOMALIES_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// willy's version.
    pub willy_version: String,
    /// The target.
    pub target: String,
    /// A simulated system.
    pub simulated: bool,
    /// Where the expected values come from: `"model"` (Shen's layered
    /// model of the device) or `"profile"` (a profile's prediction).
    pub expect: String,
    /// The profile, with `expect` `"profile"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// A sample is anomalous when it falls this far below its expected
    /// value (Shen's 0.10).
    pub threshold: f64,
    /// The least fraction of anomalies inside a cluster (Shen's 0.9).
    pub eps: f64,
    /// Seed of the samples and the generators.
    pub seed: u64,
    /// How read-ahead was switched off, where it was varied:
    /// `"posix_fadvise"` (`POSIX_FADV_RANDOM` on the files or device),
    /// `"read_ahead_kb"` (the raw device's queue setting, 0 for off, put
    /// back afterwards) or `"simulator"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readahead_via: Option<String>,
    /// With `--expect model` on a real target: what the model was built
    /// from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// The sampled space, one entry per dimension, in the order of
    /// `unit_bounds`.
    pub dimensions: Vec<Dimension>,
    /// Every sample.
    pub samples: Vec<Sample>,
    /// Fraction of the samples that are anomalous.
    pub anomalous_fraction: f64,
    /// The clusters, most anomalies first.
    pub clusters: Vec<Cluster>,
    /// Wall-clock time the samples took, s.
    pub elapsed_s: f64,
}

impl Document for Anomalies {
    const KIND: &'static str = "willy-anomalies";
    const WHAT: &'static str = "anomalies document";
    const VERSIONS: &'static [u32] = &[1, 2, 3, 4, ANOMALIES_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy anomalies`";
    fn check(&self) -> Result<(), DocError> {
        let bad = |msg: String| DocError::Invalid {
            what: Self::WHAT,
            msg,
        };
        if self.samples.is_empty() {
            return Err(bad("no samples".into()));
        }
        if let Some(c) = self
            .clusters
            .iter()
            .find(|c| c.unit_bounds.len() != self.dimensions.len())
        {
            return Err(bad(format!(
                "a cluster has {} bounds for {} dimensions",
                c.unit_bounds.len(),
                self.dimensions.len()
            )));
        }
        Ok(())
    }
}

impl Anomalies {
    /// Parses and checks an anomalies document.
    pub fn from_json(text: &str) -> Result<Anomalies, DocError> {
        super::read(text)
    }
}

/// The JSON Schema of [`Anomalies`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<Anomalies>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_schema_is_current() {
        super::super::assert_schema_current("anomalies.schema.json", &schema());
    }

    #[test]
    fn the_recorded_runs_read() {
        let dir = format!(
            "{}/../../docs/runs/2026-11-23/anomalies",
            env!("CARGO_MANIFEST_DIR")
        );
        // Schema 1 documents: an older version still reads.
        for name in ["hdd-64m", "hdd-64m-readahead-bug", "hdd-default-rule"] {
            let text = std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap();
            let d = Anomalies::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(d.samples.len(), 400, "{name}");
        }
    }

    #[test]
    fn a_document_without_samples_or_of_another_version_is_refused() {
        let e = Anomalies::from_json(r#"{"kind":"willy-anomalies","schema_version":9}"#);
        assert!(
            matches!(e, Err(DocError::Version { found: 9, .. })),
            "{e:?}"
        );
        let dir = format!(
            "{}/../../docs/runs/2026-11-23/anomalies",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(format!("{dir}/hdd-64m.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["samples"] = serde_json::json!([]);
        let e = Anomalies::from_json(&v.to_string());
        assert!(matches!(e, Err(DocError::Invalid { .. })), "{e:?}");
    }
}
