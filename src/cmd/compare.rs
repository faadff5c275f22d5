//! `willy compare`: two profiles on the same workloads (Chen 5.5).

use super::{check_json_path, flags, load_profile, model, read_workloads, table_and_json};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use willy::doc::prediction::{to_sorted_json, Comparison};
use willy::units::human_bytes;
use willy::Error;
use willy_predict::compare::{compare, scale_factor, standard_workloads};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The prediction model: chen (the product of the curves) or willy (the
    /// curves composed over per-process shares of the cache; see
    /// docs/PREDICTION.md).
    #[arg(long, value_parser = super::model_parser(), default_value = willy_predict::DEFAULT_MODEL)]
    pub model: String,
    /// First profile (the numerator of the ratios).
    pub a: PathBuf,
    /// Second profile.
    pub b: PathBuf,
    /// Workloads to compare on (as for `predict`) instead of Chen's
    /// Table 5.2 set.
    #[arg(long)]
    pub workloads: Option<PathBuf>,
    /// Also write the comparison as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn cmd_compare(args: CompareArgs) -> anyhow::Result<()> {
    let (pa, pb) = (load_profile(&args.a)?, load_profile(&args.b)?);
    let (a, b) = (
        model(&args.model, &args.a, &pa)?,
        model(&args.model, &args.b, &pb)?,
    );
    if let Some(j) = &args.json {
        check_json_path(j)?;
    }
    let (ws, note) = match &args.workloads {
        Some(p) => (read_workloads(p)?, String::new()),
        None => {
            let f = scale_factor(&pa, &pb);
            let block = pa.regions[0].focal.block_size.0;
            (
                standard_workloads(f, block),
                format!(
                    "Chen's Table 5.2 workloads, uniqueBytes scaled by {f:.1} (the larger cache / 16 MiB)\n"
                ),
            )
        }
    };
    for (name, w) in &ws {
        for (p, pr) in [(&args.a, &a), (&args.b, &b)] {
            pr.check(w).map_err(|e| {
                Error::BadWorkload(format!("workload {name} on {}: {e}", p.display()))
            })?;
        }
    }
    let rows = compare(a.as_ref(), b.as_ref(), &ws);
    let mut t = note.clone();
    let _ = writeln!(
        t,
        "{:<18} {:>10} {:>14} {:>14} {:>8}  notes",
        "workload", "uniqueBytes", "A", "B", "A/B"
    );
    for r in &rows {
        let notes: Vec<String> = [("A", &r.a), ("B", &r.b)]
            .iter()
            .filter(|(_, p)| !flags(p).is_empty())
            .map(|(n, p)| format!("{n}: {}", flags(p)))
            .collect();
        let _ = writeln!(
            t,
            "{:<18} {:>10} {:>12}/s {:>12}/s {:>8.2}  {}",
            r.name,
            r.workload.unique_bytes.to_string(),
            human_bytes(r.a.predicted_throughput_bytes_per_sec),
            human_bytes(r.b.predicted_throughput_bytes_per_sec),
            r.ratio,
            notes.join("; ")
        );
    }
    table_and_json(args.json.as_deref(), &t, || {
        let (a, b) = (args.a.display().to_string(), args.b.display().to_string());
        Ok(to_sorted_json(&Comparison::new(a, b, rows)))
    })
}
