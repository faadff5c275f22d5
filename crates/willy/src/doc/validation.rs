//! What `willy validate --json` writes: every random workload measured
//! twice and predicted from a profile, with the error statistics (Chen
//! 1992, sections 5.3-5.4). Its JSON Schema is checked in as
//! `docs/schema/validation.schema.json`.
//!
//! Versions: 1, the first; 2 adds `engine` and `direct` (how the workloads
//! were measured; absent in version 1); 3 adds `model` (the one selected,
//! whose numbers `predicted_bytes_per_sec`, `error` and the statistics are),
//! every model's error beside it (`error_by_model`,
//! `median_abs_error_by_model`) and the errors per region (`regions`); 4
//! adds `drift` (each region's focal point measured again before the
//! workloads, against the profile's measurement of it); 5 adds each
//! point's `measured_steady_bytes_per_sec`; 6 adds `min_time_secs` and
//! `max_time_secs` (how long each workload was measured); 7 adds
//! `ci95_target_rel` (the interval each workload was measured to,
//! `willy validate --ci`); 8 adds each point's `generators_bytes_per_sec`;
//! 9 adds each region's `repeatability_error`.

use super::{DocError, Document};
use crate::engine::EngineKind;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the validation document this willy writes.
pub const VALIDATION_SCHEMA_VERSION: u32 = 9;

/// One point of the error CDF: this fraction of workloads had at most this
/// error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CdfPoint {
    /// Relative error.
    pub error: f64,
    /// Fraction of workloads with at most this error.
    pub fraction: f64,
}

/// Median error of the workloads whose parameter falls in `[from, to)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Bin {
    /// Lower edge.
    pub from: f64,
    /// Upper edge (the last bin includes it).
    pub to: f64,
    /// Workloads in the bin.
    pub count: usize,
    /// Their median error (null when empty).
    pub median_abs_error: Option<f64>,
}

/// The error against one parameter (Chen Fig. 5.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParamErrors {
    /// The parameter's name.
    pub param: String,
    /// Equal-width bins (in the logarithm for sizes and processNum).
    pub bins: Vec<Bin>,
}

/// One validated workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidatedPoint {
    /// The workload.
    pub workload: Workload,
    /// Throughput measured, bytes per second.
    pub measured_bytes_per_sec: f64,
    /// Where that measurement began before its steady state: the
    /// throughput after the transient, bytes per second (the run
    /// document's `stopping.steady_throughput_bytes_per_sec`); absent
    /// where none was found and before version 5. The error is against
    /// the whole measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_steady_bytes_per_sec: Option<f64>,
    /// Each generator's throughput in that measurement, bytes per second
    /// (the run document's `generators_bytes_per_sec`): whether the
    /// shares that fit the cache ran apart from the others. Absent before
    /// version 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators_bytes_per_sec: Vec<f64>,
    /// Throughput measured again (the next seed), bytes per second.
    pub repeat_bytes_per_sec: f64,
    /// Throughput predicted from the profile, bytes per second.
    pub predicted_bytes_per_sec: f64,
    /// `|predicted - measured| / measured`.
    pub error: f64,
    /// Every model's `error` on this workload, by the model's name (absent
    /// before version 3).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub error_by_model: BTreeMap<String, f64>,
    /// `|repeat - measured| / measured`.
    pub repeat_error: f64,
    /// The baseline's prediction, if one was run.
    pub baseline_predicted_bytes_per_sec: Option<f64>,
    /// The region used.
    pub region: usize,
    /// Parameters outside their curve (clamped).
    pub extrapolated: Vec<String>,
    /// uniqueBytes in or near a drop between regions.
    pub near_border: bool,
}

/// A baseline's result beside the model's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineResult {
    /// `"orthogonal"`.
    pub kind: String,
    /// Values per parameter (uniqueBytes, sizeMean, readFrac, seqFrac,
    /// processNum) before duplicates are merged.
    pub levels: [usize; 5],
    /// Workloads the baseline measured.
    pub points: usize,
    /// Its median absolute relative error.
    pub median_abs_error: f64,
    /// 90% bootstrap interval of that median.
    pub median_abs_error_ci90: [f64; 2],
}

/// The errors of the workloads one region predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RegionErrors {
    /// The region (0 is the smallest uniqueBytes).
    pub region: usize,
    /// Workloads predicted in it.
    pub workloads: usize,
    /// Their median error under each model, by the model's name.
    pub median_abs_error_by_model: BTreeMap<String, f64>,
    /// The median of their `repeat_error`s: how much the same workloads
    /// measured again differ there, the noise the errors there stand on
    /// (a disk region's is often several times the whole document's
    /// `repeatability_error`). Absent before version 9.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeatability_error: Option<f64>,
}

/// A point of the profile measured again when the validation starts: how
/// far the system moved since it was profiled. A model is no better than
/// the profile it reads, so errors of this size are the system's, not the
/// model's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DriftPoint {
    /// The region whose focal point it is.
    pub region: usize,
    /// The workload (the focal point).
    pub workload: Workload,
    /// What the profile measured, bytes per second.
    pub profile_bytes_per_sec: f64,
    /// What the validation measured, bytes per second.
    pub measured_bytes_per_sec: f64,
    /// `measured / profile - 1`: -0.2 is 20% slower now.
    pub change: f64,
}

/// What `willy validate --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidationReport {
    /// Always `"willy-validation"`.
    pub kind: String,
    /// [`VALIDATION_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The profile's path.
    pub profile: String,
    /// Points the profile measured.
    pub profile_points: usize,
    /// Where the workloads were measured.
    pub target: String,
    /// The engine that measured them (absent in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineKind>,
    /// Whether they were measured with O_DIRECT (absent in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// Seed of the workloads (and of the first measurement).
    pub seed: u64,
    /// The shortest measurement of each workload, seconds (absent before
    /// version 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time_secs: Option<f64>,
    /// The longest, seconds (absent before version 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_secs: Option<f64>,
    /// The stopping rule's target: each workload measured until the
    /// half-width of its 95% confidence interval is within this share of
    /// its throughput, or for the longest (absent before version 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95_target_rel: Option<f64>,
    /// The model whose predictions `median_abs_error` and the points'
    /// `error` are (absent before version 3, where it was `chen`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Median absolute relative error of the predictions.
    pub median_abs_error: f64,
    /// 90% bootstrap confidence interval of that median.
    pub median_abs_error_ci90: [f64; 2],
    /// Every model's median error on the same workloads, by name (absent
    /// before version 3).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub median_abs_error_by_model: BTreeMap<String, f64>,
    /// The same per region (absent before version 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<RegionErrors>,
    /// Median relative difference between two measurements of the same
    /// workloads (Chen Table 5.1, third column).
    pub repeatability_error: f64,
    /// Each region's focal point measured again before the workloads,
    /// against the profile (absent before version 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<DriftPoint>,
    /// Predictions flagged as extrapolated.
    pub extrapolated: usize,
    /// Predictions flagged near a region border.
    pub near_border: usize,
    /// Median error of predictions near a border (null if none).
    pub near_border_median_abs_error: Option<f64>,
    /// The error CDF.
    pub error_cdf: Vec<CdfPoint>,
    /// The error against each parameter (Fig. 5.4).
    pub error_by_param: Vec<ParamErrors>,
    /// The baseline, if run.
    pub baseline: Option<BaselineResult>,
    /// Every workload.
    pub points: Vec<ValidatedPoint>,
}

impl Document for ValidationReport {
    const KIND: &'static str = "willy-validation";
    const WHAT: &'static str = "validation";
    const VERSIONS: &'static [u32] = &[1, 2, 3, 4, 5, 6, 7, 8, VALIDATION_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy validate`";
    fn check(&self) -> Result<(), DocError> {
        if self.points.is_empty() {
            return Err(DocError::Invalid {
                what: Self::WHAT,
                msg: "no points".into(),
            });
        }
        if self.error_cdf.len() != self.points.len() {
            return Err(DocError::Invalid {
                what: Self::WHAT,
                msg: format!(
                    "the error CDF has {} points for {} workloads",
                    self.error_cdf.len(),
                    self.points.len()
                ),
            });
        }
        Ok(())
    }
}

impl ValidationReport {
    /// Parses and checks a validation document.
    pub fn from_json(text: &str) -> Result<ValidationReport, DocError> {
        super::read(text)
    }

    /// The drift of each region as people read it, `region 0 -5.1%,
    /// region 1 +0.3%`; `None` without any (before version 4).
    pub fn drift_summary(&self) -> Option<String> {
        (!self.drift.is_empty()).then(|| {
            self.drift
                .iter()
                .map(|d| format!("region {} {:+.1}%", d.region, d.change * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// The workloads whose measurement began before its steady state,
    /// that state more than `tol` from the whole (`tol` 0.05: the stopping
    /// rule's default target), as people read it, with the selected
    /// model's median error against the steady states instead; `None`
    /// where there are none (and before version 5).
    pub fn transients_summary(&self, tol: f64) -> Option<String> {
        let far = |p: &ValidatedPoint| {
            p.measured_steady_bytes_per_sec
                .is_some_and(|s| (s / p.measured_bytes_per_sec - 1.0).abs() > tol)
        };
        let n = self.points.iter().filter(|p| far(p)).count();
        (n > 0).then(|| {
            let errors: Vec<f64> = self
                .points
                .iter()
                .map(|p| {
                    let m = p.measured_steady_bytes_per_sec.unwrap_or(p.measured_bytes_per_sec);
                    (p.predicted_bytes_per_sec / m - 1.0).abs()
                })
                .collect();
            format!(
                "{n} of {} workloads began more than {:.0}% from their steady state (docs/MEASUREMENT.md, \"Transients\"); against the steady states, the median error is {:.1}%",
                self.points.len(),
                tol * 100.0,
                crate::stats::median(&errors) * 100.0
            )
        })
    }
}

/// The JSON Schema of [`ValidationReport`], pretty-printed.
pub fn schema() -> String {
    super::schema_of::<ValidationReport>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_schema_is_current() {
        crate::doc::assert_schema_current("validation.schema.json", &schema());
    }

    #[test]
    fn the_checked_in_version_1_validation_reads() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/figures/real-1g/validation.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let v = ValidationReport::from_json(&text).unwrap();
        assert!(!v.points.is_empty());
        assert_eq!(v.engine, None);
        let err = ValidationReport::from_json(&text.replacen(
            "\"schema_version\": 1",
            "\"schema_version\": 10",
            1,
        ))
        .unwrap_err();
        assert!(
            err.to_string().contains("validation schema version 10"),
            "{err}"
        );
        let err = ValidationReport::from_json("{\"kind\":\"willy-profile\"}").unwrap_err();
        assert!(err.to_string().contains("not a willy validation"), "{err}");
    }

    #[test]
    fn transients_are_counted_and_scored_against_their_steady_states() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/figures/real-1g/validation.json"
        );
        let mut v = ValidationReport::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            v.transients_summary(0.05),
            None,
            "a version-1 document has none"
        );
        // Three workloads, each predicted at 100: one measured 80 with no
        // transient, one 50 settling to 100, one 99 settling to 101.
        v.points.truncate(3);
        for (p, (m, s)) in
            v.points
                .iter_mut()
                .zip([(80.0, None), (50.0, Some(100.0)), (99.0, Some(101.0))])
        {
            p.predicted_bytes_per_sec = 100.0;
            p.measured_bytes_per_sec = m;
            p.measured_steady_bytes_per_sec = s;
        }
        // Errors against the steady states: 25%, 0% and 1%.
        let t = v.transients_summary(0.05).unwrap();
        assert!(t.starts_with("1 of 3 workloads began more than 5%"), "{t}");
        assert!(t.ends_with("the median error is 1.0%"), "{t}");
        assert_eq!(v.transients_summary(1.5), None);
    }
}
