//! The subcommands, one file each: its flags and what it does. A new
//! subcommand is a file here and a line in [`Command`] and its dispatch.

/// `print!` that returns the error instead of panicking
/// ([`to_stdout`]).
macro_rules! out {
    ($($arg:tt)*) => {
        crate::cmd::to_stdout(format_args!($($arg)*))
    };
}

/// [`out!`] with a newline, as `println!`.
macro_rules! outln {
    ($($arg:tt)*) => {
        crate::cmd::to_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod anomalies;
mod bus_model;
mod compare;
mod csv;
mod fio;
mod interfere;
mod plot;
mod predict;
mod probe;
mod run;
mod scale;
mod schema;
mod shell;
mod sim;
mod validate;

use anyhow::Context;
use clap::Subcommand;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use willy::doc::profile::Profile;
use willy::workload::{Workload, WorkloadPatch};
use willy::Error;
use willy_predict::Model;

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Measure one workload on a directory (default ./willy-data) or a raw device.
    Run(Box<run::RunArgs>),
    /// Predict workloads' throughput from a profile (`willy run --scale`).
    Predict(predict::PredictArgs),
    /// Measure random workloads and compare them with their predictions.
    Validate(Box<validate::ValidateArgs>),
    /// Compare two profiles on standard or given workloads.
    Compare(compare::CompareArgs),
    /// Measure workloads alone and together: what each keeps of its
    /// stand-alone throughput within its share (Argon's R-value).
    Interfere(Box<interfere::InterfereArgs>),
    /// Sample workloads and settings, compare each with what the system
    /// should do, and cluster the anomalies into parameter ranges (Shen et al.).
    Anomalies(Box<anomalies::AnomaliesArgs>),
    /// Probe a device's own characteristics: seek curve, rotation, track or
    /// stripe boundaries, efficient request sizes (Lachesis, Barve et al.). Reads only.
    Probe(Box<probe::ProbeArgs>),
    /// Barve et al.'s model of several disks sharing a bus: read duration
    /// and throughput against disk count and block size, beside the
    /// simulated bus (--measure).
    BusModel(Box<bus_model::BusModelArgs>),
    /// Draw a profile's figures (and a validation's or comparison's) as SVG.
    Plot(plot::PlotArgs),
    /// Write a one-page HTML report of a profile, figures inline.
    Report(plot::ReportArgs),
    /// Export a profile's or a validation's points as CSV, for spreadsheets.
    Csv(csv::CsvArgs),
    /// Print the nearest fio job file for workloads, saying what fio cannot express.
    FioJob(fio::FioJobArgs),
    /// The simulated storage systems (`--target sim:NAME`).
    Sim {
        #[command(subcommand)]
        command: sim::SimCommand,
    },
    /// Print a shell's completion script (e.g. `willy completions bash > /etc/bash_completion.d/willy`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (`willy man | man -l -`), or a subcommand's (`willy man run`).
    Man {
        /// A subcommand, for its page willy-SUBCOMMAND(1).
        subcommand: Option<String>,
    },
    /// Print the JSON Schema of willy's documents.
    Schema {
        /// Which document.
        #[arg(value_enum, default_value = "run")]
        document: schema::SchemaDoc,
    },
}

impl Command {
    /// Runs the subcommand; `cli` is the whole command line's definition,
    /// for the completion script and the man page.
    pub fn run(self, interrupt: Arc<AtomicBool>, cli: clap::Command) -> anyhow::Result<()> {
        match self {
            Command::Completions { shell } => shell::cmd_completions(shell, cli),
            Command::Man { subcommand } => shell::cmd_man(cli, subcommand.as_deref()),
            Command::Run(args) => run::cmd_run(*args, interrupt),
            Command::Predict(args) => predict::cmd_predict(args),
            Command::Validate(args) => validate::cmd_validate(*args, interrupt),
            Command::Compare(args) => compare::cmd_compare(args),
            Command::Interfere(args) => interfere::cmd_interfere(*args, interrupt),
            Command::Anomalies(args) => anomalies::cmd_anomalies(*args, interrupt),
            Command::Probe(args) => probe::cmd_probe(*args, interrupt),
            Command::BusModel(args) => bus_model::cmd_bus_model(*args),
            Command::Plot(args) => plot::cmd_plot(args),
            Command::Report(args) => plot::cmd_report(args),
            Command::Csv(args) => csv::cmd_csv(args),
            Command::FioJob(args) => fio::cmd_fio_job(args),
            Command::Sim { command } => sim::cmd_sim(command),
            Command::Schema { document } => schema::cmd_schema(document),
        }
    }
}

/// Checks that a result can be written to `p`, before anything is measured.
pub(crate) fn check_json_path(p: &Path) -> Result<(), Error> {
    if is_stdout(p) {
        return Ok(());
    }
    check_output_path("--json", p)
}

/// Checks that the output of flag `flag` can be written to `p`.
pub(crate) fn check_output_path(flag: &str, p: &Path) -> Result<(), Error> {
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let ok = std::fs::metadata(dir).map(|m| m.is_dir()).unwrap_or(false);
    if !ok {
        return Err(Error::Usage(format!(
            "cannot write {flag} {}: {} is not a directory",
            p.display(),
            dir.display()
        )));
    }
    if p.is_dir() {
        return Err(Error::Usage(format!(
            "cannot write {flag} {}: it is a directory",
            p.display()
        )));
    }
    Ok(())
}

/// A checkpoint and `--resume` go together.
fn check_resume(ckpt: &Path, resume: bool) -> Result<(), Error> {
    match (ckpt.exists(), resume) {
        (true, false) => Err(Error::Usage(format!(
            "{} holds the points of an earlier run: pass --resume to continue it, or remove it",
            ckpt.display()
        ))),
        (false, true) => Err(Error::Usage(format!(
            "--resume: there is no checkpoint {} to resume",
            ckpt.display()
        ))),
        _ => Ok(()),
    }
}

/// Writes `text` to `p` atomically.
pub(crate) fn write_file(p: &Path, text: &str) -> anyhow::Result<()> {
    willy::target::write_atomic(p, text).with_context(|| format!("writing {}", p.display()))
}

/// Notes data files that a killed willy run left in the target directory
/// (willy never removes files it did not create), with the command that
/// removes them.
pub(crate) fn note_leftovers(target: &willy::testbed::TargetArg) {
    let Some(dir) = target.path().filter(|p| p.is_dir()) else {
        return;
    };
    let left = willy::target::leftovers(&dir);
    if left.is_empty() {
        return;
    }
    let bytes: u64 = left
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let names: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
    errln!(
        "willy: note: {} file(s) of {} left in {} by a willy run that no longer exists (killed?); willy leaves them alone. Remove them with: rm {}",
        left.len(),
        willy::units::Bytes(bytes),
        dir.display(),
        names.join(" ")
    );
}

/// A duration that must be more than zero (`--budget`).
pub(crate) fn positive_duration(s: &str) -> Result<std::time::Duration, String> {
    if s.trim_start().starts_with('-') {
        return Err("must be more than 0 (e.g. 15m or 8h), not negative".into());
    }
    let d = humantime::parse_duration(s).map_err(|e| e.to_string())?;
    if d.is_zero() {
        return Err("must be more than 0 (e.g. 15m or 8h)".into());
    }
    Ok(d)
}

/// True for `--json -`: the JSON document goes to standard output.
pub(crate) fn is_stdout(p: &Path) -> bool {
    p == Path::new("-")
}

/// Writes a `--json` document: to standard output for `-`, else to the
/// file, atomically.
pub(crate) fn write_json(p: &Path, text: &str) -> anyhow::Result<()> {
    if is_stdout(p) {
        out!("{text}").context("writing the JSON to standard output")
    } else {
        write_file(p, text)
    }
}

/// Standard output's reader went away (`willy predict W | head`): the
/// command stops printing, writes its files all the same, and `main`
/// exits quietly with success, as ripgrep does.
#[derive(Debug)]
pub(crate) struct ReaderGone;

impl std::fmt::Display for ReaderGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for ReaderGone {}

/// Writes `args` to standard output and flushes it; a closed pipe is
/// [`ReaderGone`].
pub(crate) fn to_stdout(args: std::fmt::Arguments) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|_| out.flush()).map_err(gone)
}

/// [`to_stdout`] of bytes.
pub(crate) fn bytes_to_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(gone)
}

/// A closed pipe's error as [`ReaderGone`]'s.
fn gone(e: std::io::Error) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => std::io::Error::new(e.kind(), ReaderGone),
        _ => e,
    }
}

/// Whether `e` is [`ReaderGone`]'s.
pub(crate) fn reader_gone(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(|inner| inner.is::<ReaderGone>())
    })
}

/// Prints a command's table, then writes its JSON document (`doc`, made
/// only where `--json` asks for it) to `json`: the table to standard
/// output, or to standard error when `--json -` has standard output for
/// the document alone. The document is written even where the table
/// could not be printed (a reader that went away).
pub(crate) fn table_and_json(
    json: Option<&Path>,
    table: &str,
    doc: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let printed = if json.is_some_and(is_stdout) {
        err!("{table}");
        Ok(())
    } else {
        out!("{table}")
    };
    if let Some(p) = json {
        write_json(p, &doc()?)?;
    }
    Ok(printed?)
}

/// Reads a profile, with errors that say what to do.
pub(crate) fn load_profile(p: &Path) -> Result<Profile, Error> {
    let text = std::fs::read_to_string(p).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::Usage(format!(
                "no profile at {}: run `willy run --scale` first, or pass --profile",
                p.display()
            ))
        } else {
            Error::Usage(format!("cannot read profile {}: {e}", p.display()))
        }
    })?;
    Profile::from_json(&text).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))
}

/// The model `name` made ready from the profile at `p`, with errors naming
/// the file.
pub(crate) fn model(name: &str, p: &Path, profile: &Profile) -> Result<Box<dyn Model>, Error> {
    willy_predict::model(name, profile).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))
}

/// `--model`: one of [`willy_predict::MODELS`] (or `product`, `chen`'s
/// former name).
pub(crate) fn model_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        willy_predict::MODEL_NAMES.iter().map(|&n| {
            clap::builder::PossibleValue::new(n).hide(!willy_predict::MODELS.contains(&n))
        }),
    )
}

/// Reads workloads: one JSON object, an array, or JSON Lines. An object
/// may carry a `"name"`; unnamed workloads are numbered from 1.
pub(crate) fn read_workloads(p: &Path) -> Result<Vec<(String, Workload)>, Error> {
    let text = std::fs::read_to_string(p)
        .map_err(|e| Error::Usage(format!("cannot read workloads {}: {e}", p.display())))?;
    let bad = |what: String| Error::BadWorkload(format!("{}: {what}", p.display()));
    let values: Vec<serde_json::Value> = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Array(a)) => a,
        Ok(v @ serde_json::Value::Object(_)) => vec![v],
        Ok(_) => {
            return Err(bad(
                "expected a workload object, an array or JSON Lines".into()
            ))
        }
        Err(_) => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| serde_json::from_str(l).map_err(|e| bad(format!("line {}: {e}", i + 1))))
            .collect::<Result<_, _>>()?,
    };
    if values.is_empty() {
        return Err(bad("no workloads".into()));
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, mut v)| {
            let name = v
                .as_object_mut()
                .and_then(|o| o.remove("name"))
                .and_then(|n| n.as_str().map(str::to_string))
                .unwrap_or_else(|| format!("#{}", i + 1));
            let w = WorkloadPatch::from_json(&v.to_string())
                .and_then(WorkloadPatch::build)
                .map_err(|e| match e {
                    Error::BadWorkload(m) => bad(format!("workload {name}: {m}")),
                    other => other,
                })?;
            Ok((name, w))
        })
        .collect()
}

/// The flags of a prediction worth a reader's attention.
pub(crate) fn flags(p: &willy::doc::prediction::Prediction) -> String {
    let mut f = Vec::new();
    if !p.extrapolated.is_empty() {
        f.push(format!("extrapolated: {}", p.extrapolated.join(", ")));
    }
    if p.near_border {
        f.push("near a region border: expect more error".into());
    }
    f.join("; ")
}

/// `--engine`: one of [`willy::engine::EngineKind::ALL`] by name.
pub(crate) fn engine_parser(
) -> impl clap::builder::TypedValueParser<Value = willy::engine::EngineKind> {
    use clap::builder::TypedValueParser;
    let names = willy::engine::EngineKind::ALL.map(|e| e.name());
    clap::builder::PossibleValuesParser::new(names).map(|s| s.parse().expect("a listed engine"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_needs_resume_and_resume_needs_a_checkpoint() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p.json.ckpt");
        assert!(check_resume(&p, false).is_ok());
        assert!(check_resume(&p, true)
            .unwrap_err()
            .to_string()
            .contains("no checkpoint"));
        std::fs::write(&p, "").unwrap();
        assert!(check_resume(&p, false)
            .unwrap_err()
            .to_string()
            .contains("--resume"));
        assert!(check_resume(&p, true).is_ok());
    }
}
