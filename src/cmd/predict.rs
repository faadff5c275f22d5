//! `willy predict`: workloads' throughput from a profile.

use super::{check_json_path, flags, load_profile, model, read_workloads, table_and_json};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use willy::doc::prediction::{to_sorted_json, NamedPrediction, Predictions};
use willy::units::human_bytes;
use willy::Error;

#[derive(Args, Debug)]
pub struct PredictArgs {
    /// The prediction model: chen (the product of the curves) or willy (the
    /// curves composed over per-process shares of the cache; see
    /// docs/PREDICTION.md).
    #[arg(long, value_parser = super::model_parser(), default_value = willy_predict::DEFAULT_MODEL)]
    pub model: String,
    /// Workloads: one JSON object, an array of them, or JSON Lines.
    pub workloads: PathBuf,
    /// The profile to predict from.
    #[arg(long, default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Also write the predictions as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn cmd_predict(args: PredictArgs) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    let pred = model(&args.model, &args.profile, &profile)?;
    let ws = read_workloads(&args.workloads)?;
    if let Some(j) = &args.json {
        check_json_path(j)?;
    }
    let mut out = Vec::new();
    for (name, w) in ws {
        pred.check(&w)
            .map_err(|e| Error::BadWorkload(format!("workload {name}: {e}")))?;
        let prediction = pred.predict(&w);
        out.push(NamedPrediction {
            name,
            workload: w,
            prediction,
        });
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<12} {:>14} {:>12} {:>12} {:>7}  notes",
        "workload", "throughput", "IOPS", "mean resp.", "region"
    );
    for n in &out {
        let p = &n.prediction;
        let _ = writeln!(
            t,
            "{:<12} {:>12}/s {:>12.0} {:>9.3} ms {:>7}  {}",
            n.name,
            human_bytes(p.predicted_throughput_bytes_per_sec),
            p.predicted_iops,
            p.predicted_mean_response_secs * 1e3,
            p.region,
            flags(p)
        );
    }
    table_and_json(args.json.as_deref(), &t, || {
        let doc = Predictions::new(args.profile.display().to_string(), out);
        Ok(to_sorted_json(&doc))
    })
}
