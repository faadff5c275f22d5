//! What `willy predict --json` and `willy compare --json` write.
//!
//! Both are written with their keys sorted (as version 1 always was), so a
//! rerun gives the same bytes.

use super::{DocError, Document};
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// Version of the predictions document.
pub const PREDICTIONS_SCHEMA_VERSION: u32 = 1;
/// Version of the comparison document.
pub const COMPARISON_SCHEMA_VERSION: u32 = 1;

/// A prediction and how far to trust it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Prediction {
    /// Predicted throughput, bytes per second.
    pub predicted_throughput_bytes_per_sec: f64,
    /// Predicted requests per second (throughput / sizeMean).
    pub predicted_iops: f64,
    /// Mean response time by Little's law, seconds.
    pub predicted_mean_response_secs: f64,
    /// The region whose curves were used.
    pub region: usize,
    /// Parameters outside their curve's measured range (clamped).
    pub extrapolated: Vec<String>,
    /// uniqueBytes is in or near the drop between two regions.
    pub near_border: bool,
}

/// One workload's prediction, with its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NamedPrediction {
    /// The workload's name (`"#1"`, ... when the file gave none).
    pub name: String,
    /// The workload.
    pub workload: Workload,
    /// The prediction.
    #[serde(flatten)]
    pub prediction: Prediction,
}

/// What `willy predict --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Predictions {
    /// Always `"willy-predictions"`.
    pub kind: String,
    /// [`PREDICTIONS_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The profile's path.
    pub profile: String,
    /// Every workload, in the order given.
    pub predictions: Vec<NamedPrediction>,
}

impl Document for Predictions {
    const KIND: &'static str = "willy-predictions";
    const WHAT: &'static str = "predictions";
    const VERSIONS: &'static [u32] = &[PREDICTIONS_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy predict`";
}

impl Predictions {
    /// The document for `predictions` made from the profile at `profile`.
    pub fn new(profile: String, predictions: Vec<NamedPrediction>) -> Predictions {
        Predictions {
            kind: Self::KIND.into(),
            schema_version: PREDICTIONS_SCHEMA_VERSION,
            profile,
            predictions,
        }
    }
}

/// One workload on both systems.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Compared {
    /// The workload's name.
    pub name: String,
    /// The workload.
    pub workload: Workload,
    /// Prediction on the first profile.
    pub a: Prediction,
    /// Prediction on the second profile.
    pub b: Prediction,
    /// `a / b` predicted throughput.
    pub ratio: f64,
}

/// What `willy compare --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Always `"willy-comparison"`.
    pub kind: String,
    /// [`COMPARISON_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The first profile's path.
    pub a: String,
    /// The second profile's path.
    pub b: String,
    /// Every workload.
    pub workloads: Vec<Compared>,
}

impl Document for Comparison {
    const KIND: &'static str = "willy-comparison";
    const WHAT: &'static str = "comparison";
    const VERSIONS: &'static [u32] = &[COMPARISON_SCHEMA_VERSION];
    const REDO: &'static str = "rerun `willy compare`";
    fn check(&self) -> Result<(), DocError> {
        if self.workloads.is_empty() {
            return Err(DocError::Invalid {
                what: Self::WHAT,
                msg: "no workloads".into(),
            });
        }
        Ok(())
    }
}

impl Comparison {
    /// The document comparing the profiles at `a` and `b`.
    pub fn new(a: String, b: String, workloads: Vec<Compared>) -> Comparison {
        Comparison {
            kind: Self::KIND.into(),
            schema_version: COMPARISON_SCHEMA_VERSION,
            a,
            b,
            workloads,
        }
    }

    /// Parses and checks a comparison.
    pub fn from_json(text: &str) -> Result<Comparison, DocError> {
        super::read(text)
    }
}

/// `doc` as pretty JSON with its keys sorted, ending in a newline.
pub fn to_sorted_json<T: Serialize>(doc: &T) -> String {
    let v = serde_json::to_value(doc).expect("documents serialise");
    serde_json::to_string_pretty(&v).expect("values serialise") + "\n"
}

/// The JSON Schema of [`Predictions`].
pub fn predictions_schema() -> String {
    super::schema_of::<Predictions>()
}

/// The JSON Schema of [`Comparison`].
pub fn comparison_schema() -> String {
    super::schema_of::<Comparison>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_schemas_are_current() {
        crate::doc::assert_schema_current("predictions.schema.json", &predictions_schema());
        crate::doc::assert_schema_current("comparison.schema.json", &comparison_schema());
    }

    #[test]
    fn the_checked_in_comparison_reads_and_writes_the_same_bytes() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/figures/sim-sparc1990/compare.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let c = Comparison::from_json(&text).unwrap();
        assert_eq!(to_sorted_json(&c), text);
    }
}
