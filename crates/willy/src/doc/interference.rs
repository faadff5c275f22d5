//! What `willy interfere --json` writes: each workload's throughput alone
//! and beside the others, and its R-value (Argon, FAST'07, section 3.1).

use super::{DocError, Document};
use crate::engine::EngineKind;
use crate::report::Measurement;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// The interference document's version: 2 added the measurements'
/// `device_busy_frac`, and on simulated systems the simulated host's CPU
/// time in `cpu`; 3 the measurements' `stopping.transient_intervals` and
/// `stopping.steady_throughput_bytes_per_sec`; 4 the measurements'
/// `generators_bytes_per_sec`.
pub const INTERFERENCE_SCHEMA_VERSION: u32 = 4;

/// Storage (or CPU) busy at least this fraction of the shared run: the
/// workloads contended for it.
pub const CONTENDED_BUSY: f64 = 0.9;

/// One workload of those run together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InterferingWorkload {
    /// Its name: the file it came from, without the directory.
    pub name: String,
    /// The workload.
    pub workload: Workload,
    /// Its share of the system (the `share` of its file, or an equal part
    /// of what the others leave).
    pub share: f64,
    /// Where its region starts on a device or simulated storage, bytes.
    pub offset: u64,
    /// The memory cgroup of its own process, bytes (`cacheLimit`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_limit_bytes: Option<u64>,
    /// Throughput alone, bytes per second.
    pub alone_bytes_per_sec: f64,
    /// Relative half-width of its 95% confidence interval (null: too few
    /// intervals).
    pub alone_ci95_rel: Option<f64>,
    /// Throughput beside the others, bytes per second.
    pub shared_bytes_per_sec: f64,
    /// Relative half-width of its 95% confidence interval.
    pub shared_ci95_rel: Option<f64>,
    /// `shared / (share x alone)`: the fraction of its stand-alone
    /// efficiency it keeps within its share. Always computed; meaningful
    /// where the run is `contended`.
    pub r_value: f64,
    /// 95% confidence interval of `r_value`, from the two measurements'
    /// (their relative half-widths added in quadrature).
    pub r_value_ci95: Option<[f64; 2]>,
    /// The measurement alone.
    pub alone: Measurement,
    /// The measurement beside the others.
    pub shared: Measurement,
}

/// What `willy interfere --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interference {
    /// Always `"willy-interference"`.
    pub kind: String,
    /// [`INTERFERENCE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// willy's version.
    pub willy_version: String,
    /// The target (`sim:PRESET`, a directory or a device).
    pub target: String,
    /// A simulated system.
    pub simulated: bool,
    /// O_DIRECT (or the simulated cache bypassed).
    pub direct: bool,
    /// The engine.
    pub engine: EngineKind,
    /// Seed of the first workload (workload k uses seed + k).
    pub seed: u64,
    /// The simulated system's insulation settings, if any.
    pub insulation: Option<serde_json::Value>,
    /// Each workload ran in its own willy process (`--processes`), not as
    /// threads of one.
    #[serde(default)]
    pub processes: bool,
    /// Whether the workloads contended during the shared run: the storage
    /// or the CPUs were busy at least 90% of it, or a workload got less
    /// than its share (its R interval wholly below 1). Where false, the
    /// R-values say nothing of interference.
    pub contended: bool,
    /// Fraction of the shared run the storage was busy (simulated: its
    /// disks' service time; real: the device's `io_ticks`). Null where
    /// unknown (a directory on no block device).
    pub storage_busy: Option<f64>,
    /// Fraction of the machine's cores busy during the shared run (willy
    /// and everything else; null on a simulated system).
    pub cpu_busy: Option<f64>,
    /// What was busy at least 90% of the shared run: `"storage"`,
    /// `"cpu"`, or null (then `contended` is true only where a workload
    /// got less than its share).
    pub bottleneck: Option<String>,
    /// Each workload, in the order given.
    pub workloads: Vec<InterferingWorkload>,
}

impl Document for Interference {
    const KIND: &'static str = "willy-interference";
    const WHAT: &'static str = "interference";
    const VERSIONS: &'static [u32] = &[1, 2, 3, INTERFERENCE_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy interfere`";
    fn check(&self) -> Result<(), DocError> {
        if self.workloads.len() < 2 {
            return Err(DocError::Invalid {
                what: Self::WHAT,
                msg: format!(
                    "{} workload(s): interference needs two or more",
                    self.workloads.len()
                ),
            });
        }
        Ok(())
    }
}

impl Interference {
    /// Parses and checks an interference document.
    pub fn from_json(text: &str) -> Result<Interference, DocError> {
        super::read(text)
    }
}

/// `shared / (share x alone)` and its 95% interval.
pub fn r_value(
    alone: f64,
    alone_ci: Option<f64>,
    shared: f64,
    shared_ci: Option<f64>,
    share: f64,
) -> (f64, Option<[f64; 2]>) {
    let r = if alone > 0.0 {
        shared / (share * alone)
    } else {
        f64::NAN
    };
    let ci = alone_ci
        .zip(shared_ci)
        .map(|(a, s)| (a * a + s * s).sqrt())
        .filter(|rel| rel.is_finite() && r.is_finite())
        .map(|rel| [r * (1.0 - rel).max(0.0), r * (1.0 + rel)]);
    (r, ci)
}

/// The JSON Schema of [`Interference`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<Interference>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_schema_is_current() {
        super::super::assert_schema_current("interference.schema.json", &schema());
    }

    #[test]
    fn r_is_the_shared_throughput_over_the_share_of_the_alone() {
        let (r, ci) = r_value(100.0, Some(0.03), 45.0, Some(0.04), 0.5);
        assert!((r - 0.9).abs() < 1e-12);
        let [lo, hi] = ci.unwrap();
        assert!(
            (lo - 0.855).abs() < 1e-9 && (hi - 0.945).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert!(r_value(0.0, None, 1.0, None, 0.5).0.is_nan());
    }

    proptest::proptest! {
        /// The interval holds R, and widens with either measurement's.
        #[test]
        fn the_interval_holds_r_and_widens(
            a in 1.0f64..1e9, s in 0.0f64..1e9, share in 0.01f64..1.0,
            ca in 0.0f64..0.5, cs in 0.0f64..0.5, more in 0.0f64..0.3,
        ) {
            let (r, ci) = r_value(a, Some(ca), s, Some(cs), share);
            let [lo, hi] = ci.unwrap();
            proptest::prop_assert!(lo <= r && r <= hi);
            let [lo2, hi2] = r_value(a, Some(ca + more), s, Some(cs), share).1.unwrap();
            proptest::prop_assert!(lo2 <= lo + 1e-9 && hi2 >= hi - 1e-9);
        }
    }

    #[test]
    fn the_recorded_runs_read() {
        let dir = format!(
            "{}/../../docs/runs/2026-11-23/interfere",
            env!("CARGO_MANIFEST_DIR")
        );
        for name in [
            "direct",
            "direct-2",
            "direct-3",
            "buffered-1g",
            "cached",
            "lru-1536m",
            "partitioned",
        ] {
            let text = std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap();
            let d = Interference::from_json(&text).unwrap();
            assert_eq!(d.processes, name == "partitioned", "{name}");
            for w in &d.workloads {
                let (r, _) = r_value(
                    w.alone_bytes_per_sec,
                    None,
                    w.shared_bytes_per_sec,
                    None,
                    w.share,
                );
                assert!((r - w.r_value).abs() < 1e-9, "{name}");
            }
        }
    }

    #[test]
    fn one_workload_is_not_interference() {
        let text = r#"{"kind":"willy-interference","schema_version":1}"#;
        assert!(Interference::from_json(text).is_err());
        let text = r#"{"kind":"willy-interference","schema_version":9}"#;
        let e = Interference::from_json(text).unwrap_err().to_string();
        assert!(e.contains("rerun `willy interfere`"), "{e}");
    }
}
