//! `willy csv`: a profile's or a validation's points as CSV.

use clap::Args;
use std::path::PathBuf;
use willy::doc::csv;
use willy::doc::profile::Profile;
use willy::doc::validation::ValidationReport;
use willy::Error;

#[derive(Args, Debug)]
pub struct CsvArgs {
    /// A profile (`willy run --scale`) or a validation (`willy validate --json`).
    pub document: PathBuf,
    /// The CSV file to write [default: standard output].
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn cmd_csv(args: CsvArgs) -> anyhow::Result<()> {
    if let Some(p) = &args.output {
        super::check_output_path("--output", p)?;
    }
    let p = &args.document;
    let text = std::fs::read_to_string(p)
        .map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))?;
    let kind = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string));
    let named = |e: &dyn std::fmt::Display| Error::Usage(format!("{}: {e}", p.display()));
    let out = match kind.as_deref() {
        Some("willy-profile") => {
            csv::profile_csv(&Profile::from_json(&text).map_err(|e| named(&e))?)
        }
        Some("willy-validation") => {
            csv::validation_csv(&ValidationReport::from_json(&text).map_err(|e| named(&e))?)
        }
        other => {
            return Err(Error::Usage(format!(
                "{}: {} has no points to export: willy csv takes a profile or a validation",
                p.display(),
                other.map_or("a document that is not willy's".into(), |k| format!(
                    "a {k} document"
                ))
            ))
            .into())
        }
    };
    match &args.output {
        Some(o) => super::write_file(o, &out),
        None => {
            out!("{out}")?;
            Ok(())
        }
    }
}
