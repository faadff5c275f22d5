//! The profile format and predicted performance (Chen 1992, chapter 5).
//!
//! - [`profile`]: the versioned document a self-scaling run writes (it
//!   lives in `willy::doc`, below this crate and willy-scale);
//! - [`predict`]: throughput of any workload as a product of
//!   single-parameter functions (section 5.2, Appendix B): the `product`
//!   [`Model`];
//! - [`validate`]: random workloads, error statistics and the orthogonal
//!   baseline (sections 5.3-5.4);
//! - [`compare`]: two profiles on the same workloads (section 5.5);
//! - [`plot`]: the figures, as SVG; [`report`]: the one-page HTML report;
//! - [`anomalies`]: Shen et al.'s clustering of anomalous samples into
//!   hyper-rectangles;
//! - [`bus`]: Barve et al.'s analytic model of disks sharing a bus (the
//!   expected least seek over D disks, eqs. 10-11).
//!
//! A new prediction model is a file beside `predict.rs` with a type that
//! implements [`Model`], and its name in [`MODELS`] and [`model`] here:
//! `willy predict`, `validate` and `compare` take it with `--model NAME`,
//! and `validate` reports every model's error beside the selected one's.
#![deny(missing_docs)]

pub mod anomalies;
pub mod bus;
pub mod compare;
pub mod composed;
pub mod mva;
pub mod plot;
pub mod predict;
pub use willy::doc::profile;
pub mod report;
mod stack;
pub mod validate;

pub use willy;

use predict::{PredictError, Prediction, Predictor};
use willy::doc::profile::Profile;
use willy::workload::Workload;

/// What predicts workloads from a profile.
pub trait Model {
    /// Checks that `w` can be predicted (valid, not far outside the
    /// profile).
    fn check(&self, w: &Workload) -> Result<(), PredictError>;
    /// Predicts `w` (without checking it).
    fn predict(&self, w: &Workload) -> Prediction;
}

/// The models' names: `chen`, the product of the curves (Chen 1992,
/// section 5.2; [`predict`]), and `willy`, the curves composed over
/// per-process shares of the cache ([`composed`]).
pub const MODELS: &[&str] = &["chen", "willy"];

/// The default model, `willy`: no worse than `chen` on any preset (both
/// seeds, overall and in every region, tests/predict.rs) and on this
/// machine ahead overall in 14 of the 15 validations of docs/runs, 0.1
/// point behind in the other (docs/PREDICTION.md, "Why `willy` is the
/// default").
pub const DEFAULT_MODEL: &str = MODELS[1];

/// What `--model` accepts: [`MODELS`], and `product`, `chen`'s name before
/// there were two.
pub const MODEL_NAMES: &[&str] = &["chen", "willy", "product"];

/// A model made ready, with its name.
pub type Named = (&'static str, Box<dyn Model>);

/// Every model of [`MODELS`] made ready from `p`, by name.
pub fn all_models(p: &Profile) -> Result<Vec<Named>, PredictError> {
    MODELS.iter().map(|&n| Ok((n, model(n, p)?))).collect()
}

/// The name in [`MODELS`] of `name` (`product` is `chen`).
pub fn canonical(name: &str) -> &str {
    if name == "product" {
        "chen"
    } else {
        name
    }
}

/// The model `name` (one of [`MODEL_NAMES`]) made ready from profile `p`.
pub fn model(name: &str, p: &Profile) -> Result<Box<dyn Model>, PredictError> {
    match canonical(name) {
        "chen" => Ok(Box::new(Predictor::new(p)?)),
        "willy" => Ok(Box::new(composed::Composed::new(p)?)),
        other => Err(PredictError::Workload(format!(
            "unknown model {other:?} (known: {})",
            MODELS.join(", ")
        ))),
    }
}

impl Model for composed::Composed {
    fn check(&self, w: &Workload) -> Result<(), PredictError> {
        composed::Composed::check(self, w)
    }
    fn predict(&self, w: &Workload) -> Prediction {
        composed::Composed::predict(self, w)
    }
}

impl Model for Predictor {
    fn check(&self, w: &Workload) -> Result<(), PredictError> {
        Predictor::check(self, w)
    }
    fn predict(&self, w: &Workload) -> Prediction {
        Predictor::predict(self, w)
    }
}
