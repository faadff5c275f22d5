//! The result of one `willy run`: a versioned JSON document.
//!
//! Its JSON Schema is generated from these types ([`schema`]) and checked in
//! as `docs/schema/run.schema.json`; a test keeps the two equal.

use crate::engine::EngineKind;
use crate::sysinfo::SystemInfo;
use crate::target::TargetKind;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// Version of the run document. Bump on any incompatible change.
/// Version 2 added `stopping.stalled`; version 5 runs on several targets
/// (`targets`, `rounds_kept`, and `target` as the targets joined);
/// version 6 the simulated host's CPU time in `cpu` and
/// `device_busy_frac`; version 7 `stopping.transient_intervals` and
/// `stopping.steady_throughput_bytes_per_sec`; version 8
/// `generators_bytes_per_sec`.
pub const RUN_SCHEMA_VERSION: u32 = 8;

/// One measured workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunReport {
    /// Always `"willy-run"`.
    pub kind: String,
    /// [`RUN_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The workload, as validated.
    pub workload: Workload,
    /// The engine that moved the bytes.
    pub engine: EngineKind,
    /// Where the I/O went: the target, or with several the targets as
    /// given, joined with commas.
    pub target: RunTarget,
    /// A run on several targets (`--target A --target B ...`): each
    /// target's share of the workload and what it measured. The
    /// top-level figures are their totals. Absent with one target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets: Option<Vec<TargetRun>>,
    /// A run on several targets: the fraction of completions that kept
    /// round order (Barve et al.'s sliding window of as many completions
    /// as targets; docs/BUS.md), 0 to 1. Absent with one target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_kept: Option<f64>,
    /// True when the target was simulated and durations are virtual.
    pub simulated: bool,
    /// The seed of the generators.
    pub seed: u64,
    /// What was measured.
    #[serde(flatten)]
    pub measurement: Measurement,
    /// The machine.
    pub system: SystemInfo,
    /// With `--compare-fio`: fio's throughput on the same files right
    /// after willy's measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_fio: Option<FioComparison>,
}

/// The target of a run: one, described, or several, named.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RunTarget {
    /// One target.
    One(TargetInfo),
    /// Several: the targets as given, joined with commas (each is in
    /// `targets`).
    Several(String),
}

/// One target of a run on several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetRun {
    /// The target as given.
    pub target: String,
    /// Files, device or simulated.
    pub kind: TargetKind,
    /// Whether O_DIRECT was used.
    pub direct: bool,
    /// Its share of the workload: its generators and their bytes.
    pub workload: Workload,
    /// Throughput over its measurement, bytes per second.
    pub throughput_bytes_per_sec: f64,
    /// Requests per second.
    pub iops: f64,
    /// Requests completed in its measurement.
    pub requests: u64,
    /// Bytes moved in its measurement.
    pub bytes_transferred: u64,
    /// Length of its measurement, seconds.
    pub duration_secs: f64,
    /// Relative half-width of its 95% confidence interval.
    pub ci95_rel: Option<f64>,
}

/// fio on the same layout as willy's measurement (`--compare-fio`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FioComparison {
    /// fio's throughput, both directions, bytes per second.
    pub fio_throughput_bytes_per_sec: f64,
    /// willy's throughput over fio's.
    pub ratio: f64,
    /// The job file fio ran.
    pub job: String,
}

/// What the core loop measured: everything of a [`RunReport`] that a run
/// knows, whatever its target.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measurement {
    /// Combined throughput over the measurement, in bytes per second.
    pub throughput_bytes_per_sec: f64,
    /// Combined requests per second.
    pub iops: f64,
    /// Relative half-width of the 95% confidence interval of mean throughput
    /// (0.05 = ±5%), by batch means. `null` if it could not be computed.
    pub ci95_rel: Option<f64>,
    /// Length of the measurement in seconds (after the warm start).
    pub duration_secs: f64,
    /// Reads.
    pub reads: DirectionStats,
    /// Writes.
    pub writes: DirectionStats,
    /// Bytes moved during the measurement, both directions.
    pub bytes_transferred: u64,
    /// Requests completed during the measurement, both directions.
    pub requests: u64,
    /// CPU time the requests used during the measurement: willy's own
    /// (`getrusage`) on real targets; the simulated host's CPUs on
    /// simulated systems (since run document version 6).
    pub cpu: CpuUsage,
    /// The fraction of the measurement during which the device was busy
    /// serving requests (0..1): the `io_ticks` of the target's block
    /// device on real targets, the storage's busy time
    /// averaged over its disks or channels on simulated ones; absent where
    /// unknown (since run document version 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_busy_frac: Option<f64>,
    /// The warm start before the measurement.
    pub warmup: WarmupInfo,
    /// How the measurement was stopped.
    pub stopping: StoppingInfo,
    /// With `--verify`: blocks read back and checked (warm start and
    /// measurement), every one intact. Absent without `--verify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_blocks: Option<u64>,
    /// What the rest of the machine was doing meanwhile (real targets; see
    /// [`crate::background`]). Absent on simulated systems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<crate::background::Background>,
    /// A run on several ranks (`--mpi`): `ranks`, `nodes` and
    /// `start_skew_secs`, the per-rank and per-node figures behind this
    /// total. Absent otherwise.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<crate::cluster::ClusterInfo>,
    /// Each generator's throughput, bytes per second, in the order of its
    /// files (with several targets, target by target): its share of
    /// `throughput_bytes_per_sec` by the bytes its requests moved in the
    /// measurement, so they add up to it. Generators whose shares of
    /// uniqueBytes stay cached run faster than the others
    /// (docs/PREDICTION.md, "The willy model"). Absent on several ranks
    /// (`--mpi`) and where nothing was measured (since run document
    /// version 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators_bytes_per_sec: Vec<f64>,
    /// When each measured request completed, ns on the run's clock,
    /// ascending (not written: the rounds of a run on several targets are
    /// made from them).
    #[serde(skip)]
    #[schemars(skip)]
    pub completions: Completions,
}

/// Completion times, ns, ascending: kept beside a measurement, not part of
/// its value (two measurements that agree in every written field are
/// equal whatever their completion times).
#[derive(Clone, Default)]
pub struct Completions(pub Vec<u64>);

impl PartialEq for Completions {
    fn eq(&self, _: &Completions) -> bool {
        true
    }
}

impl std::fmt::Debug for Completions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} completion times", self.0.len())
    }
}

/// The target of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetInfo {
    /// Directory, device or simulator preset.
    pub path: String,
    /// Files, device or simulated.
    pub kind: TargetKind,
    /// Whether O_DIRECT was used.
    pub direct: bool,
}

/// Throughput and latency for one direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DirectionStats {
    /// Requests completed.
    pub requests: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Bytes per second over the measurement.
    pub throughput_bytes_per_sec: f64,
    /// Requests per second over the measurement.
    pub iops: f64,
    /// Latency from submission to completion, in microseconds. `null` when
    /// no request of this direction completed.
    pub latency_us: Option<Latency>,
}

/// Latency percentiles in microseconds (HDR histogram, 3 significant digits).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Latency {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest.
    pub max: f64,
}

impl Latency {
    /// The percentiles of a histogram of nanoseconds, in microseconds;
    /// `None` when it is empty.
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> Option<Latency> {
        (!h.is_empty()).then(|| Latency {
            mean: h.mean() / 1e3,
            p50: h.value_at_quantile(0.50) as f64 / 1e3,
            p90: h.value_at_quantile(0.90) as f64 / 1e3,
            p99: h.value_at_quantile(0.99) as f64 / 1e3,
            p999: h.value_at_quantile(0.999) as f64 / 1e3,
            max: h.max() as f64 / 1e3,
        })
    }
}

/// CPU time of the willy process during the measurement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuUsage {
    /// User time, seconds.
    pub user_secs: f64,
    /// System time, seconds.
    pub system_secs: f64,
    /// (user + system) / duration: 1.0 is one core busy.
    pub cores_busy: f64,
}

/// The warm start ("run the workload and discard the first run").
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WarmupInfo {
    /// How long it ran, seconds.
    pub secs: f64,
    /// Bytes moved while priming.
    pub bytes: u64,
    /// True if it moved `uniqueBytes` bytes; false if it hit its time limit.
    pub complete: bool,
}

/// The stopping rule's settings and outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoppingInfo {
    /// Target relative half-width.
    pub target_ci95_rel: f64,
    /// Whether the target was reached (else the maximum duration was). A
    /// stalled measurement never meets it.
    pub target_met: bool,
    /// True when most intervals moved no bytes: requests slower than an
    /// interval held the measurement up, and its interval says nothing
    /// (`latency_us.max` is the longest request). Absent before version 2.
    #[serde(default)]
    pub stalled: bool,
    /// Interval length, seconds.
    pub interval_secs: f64,
    /// Intervals measured.
    pub intervals: u64,
    /// Batches used by batch means.
    pub batches: u64,
    /// Minimum duration, seconds.
    pub min_secs: f64,
    /// Maximum duration, seconds.
    pub max_secs: f64,
    /// Throughput of each interval, bytes per second: the raw series.
    pub interval_throughput: Vec<f64>,
    /// Intervals at the start that were not yet the steady state (MSER-5,
    /// `willy::stats::transient`), 0 when none was found. The throughput
    /// above still counts them. Absent before run document version 7.
    #[serde(default)]
    pub transient_intervals: u64,
    /// Throughput over the intervals after `transient_intervals`, bytes per
    /// second. Absent before run document version 7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_throughput_bytes_per_sec: Option<f64>,
}

impl StoppingInfo {
    /// The steady state's throughput where the measurement began before
    /// it (a transient was cut), bytes per second; `None` otherwise.
    pub fn steady_after_transient(&self) -> Option<f64> {
        self.steady_throughput_bytes_per_sec
            .filter(|_| self.transient_intervals > 0)
    }
}

/// The JSON Schema of [`RunReport`], pretty-printed.
pub fn schema() -> String {
    let s = schemars::schema_for!(RunReport);
    serde_json::to_string_pretty(&s).expect("schema serialises") + "\n"
}

#[cfg(test)]
mod tests {
    #[test]
    fn checked_in_schema_is_current() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/schema/run.schema.json"
        );
        let want = super::schema();
        if std::env::var_os("WILLY_BLESS").is_some() {
            std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/schema/run.schema.json is stale: rerun with WILLY_BLESS=1"
        );
    }
}
