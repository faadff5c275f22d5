//! `willy schema`: the JSON Schema of each document.

use clap::ValueEnum;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SchemaDoc {
    /// The document `willy run --json` writes.
    Run,
    /// The profile `willy run --scale` writes.
    Profile,
    /// The document `willy validate --json` writes.
    Validation,
    /// The document `willy predict --json` writes.
    Predictions,
    /// The document `willy compare --json` writes.
    Comparison,
    /// The document `willy interfere --json` writes.
    Interference,
    /// The document `willy anomalies --json` writes.
    Anomalies,
    /// The document `willy probe --json` writes.
    Probe,
    /// The document `willy bus-model --json` writes.
    Bus,
}

pub fn cmd_schema(document: SchemaDoc) -> anyhow::Result<()> {
    use willy::doc::{anomalies, bus, interference, prediction, probe, profile, validation};
    let text = match document {
        SchemaDoc::Run => willy::report::schema(),
        SchemaDoc::Profile => profile::schema(),
        SchemaDoc::Validation => validation::schema(),
        SchemaDoc::Predictions => prediction::predictions_schema(),
        SchemaDoc::Comparison => prediction::comparison_schema(),
        SchemaDoc::Interference => interference::schema(),
        SchemaDoc::Anomalies => anomalies::schema(),
        SchemaDoc::Probe => probe::schema(),
        SchemaDoc::Bus => bus::schema(),
    };
    out!("{text}")?;
    Ok(())
}
