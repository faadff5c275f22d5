//! `willy plot` and `willy report`: a profile's figures as SVG files, or
//! inline in one HTML page, with a validation's and a comparison's; or the
//! figure and page of an interference document (`willy interfere --json`)
//! or an anomalies document (`willy anomalies --json`).

use super::{check_output_path, load_profile, model, write_file};
use clap::Args;
use std::path::{Path, PathBuf};
use willy::doc::anomalies::Anomalies;
use willy::doc::interference::Interference;
use willy::doc::prediction::Comparison;
use willy::doc::probe::Probe;
use willy::doc::profile::Profile;
use willy::doc::validation::ValidationReport;
use willy::doc::DocError;
use willy::Error;
use willy_predict::plot::Figure;

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The profile (`willy run --scale`), or an interference, anomalies or
    /// probe document (`willy interfere`, `anomalies` or `probe --json`).
    #[arg(default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Directory for the SVG files (created if missing).
    #[arg(long, short, default_value = "willy-plots")]
    pub out: PathBuf,
    /// Also draw this `willy validate --json` result.
    #[arg(long)]
    pub validation: Option<PathBuf>,
    /// Also draw this `willy compare --json` result.
    #[arg(long)]
    pub comparison: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The profile (`willy run --scale`), or an interference, anomalies or
    /// probe document (`willy interfere`, `anomalies` or `probe --json`).
    #[arg(default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Include this `willy validate --json` result.
    #[arg(long)]
    pub validation: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(long, short, default_value = "willy-report.html")]
    pub output: PathBuf,
}

/// Reads a document with `parse`, with errors naming the file.
pub(crate) fn read_doc<T>(p: &Path, parse: fn(&str) -> Result<T, DocError>) -> Result<T, Error> {
    let text = std::fs::read_to_string(p)
        .map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))?;
    parse(&text).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))
}

fn figures(
    profile: &Profile,
    validation: Option<&ValidationReport>,
) -> anyhow::Result<Vec<Figure>> {
    let mut figs = willy_predict::plot::profile_figures(profile)
        .map_err(|e| anyhow::anyhow!("drawing the profile: {e}"))?;
    if let Some(v) = validation {
        figs.extend(
            willy_predict::plot::validation_figures(v)
                .map_err(|e| anyhow::anyhow!("drawing the validation: {e}"))?,
        );
    }
    Ok(figs)
}

/// A document with one figure and a page of its own (an interference or
/// anomalies document) at `p`: its figure and its HTML page. `None` for
/// anything else (a profile, whose reader says what is wrong).
fn single(p: &Path) -> Result<Option<(Vec<Figure>, String)>, Error> {
    let Ok(text) = std::fs::read_to_string(p) else {
        return Ok(None); // the profile's reader says why
    };
    let kind = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(String::from));
    let drawing =
        |e: Box<dyn std::error::Error>| Error::Usage(format!("{}: drawing: {e}", p.display()));
    match kind.as_deref() {
        Some("willy-interference") => {
            let d = read_doc(p, Interference::from_json)?;
            let f = willy_predict::plot::interference_figure(&d).map_err(drawing)?;
            let html = willy_predict::report::interference_html(&d, &f);
            Ok(Some((vec![f], html)))
        }
        Some("willy-anomalies") => {
            let d = read_doc(p, Anomalies::from_json)?;
            let f = willy_predict::plot::anomalies_figure(&d).map_err(drawing)?;
            let html = willy_predict::report::anomalies_html(&d, &f);
            Ok(Some((vec![f], html)))
        }
        Some("willy-bus") => {
            let d = read_doc(p, willy::doc::bus::BusDoc::from_json)?;
            let f = willy_predict::plot::bus_figure(&d).map_err(drawing)?;
            let html = willy_predict::report::bus_html(&d, &f);
            Ok(Some((vec![f], html)))
        }
        Some("willy-probe") => {
            let d = read_doc(p, Probe::from_json)?;
            let f = willy_predict::plot::probe_figures(&d).map_err(drawing)?;
            let html = willy_predict::report::probe_html(&d, &f);
            Ok(Some((f, html)))
        }
        _ => Ok(None),
    }
}

pub fn cmd_plot(args: PlotArgs) -> anyhow::Result<()> {
    if let Some((figs, _)) = single(&args.profile)? {
        return write_figures(&args.out, &figs);
    }
    let profile = load_profile(&args.profile)?;
    model(willy_predict::DEFAULT_MODEL, &args.profile, &profile)?;
    let validation = args
        .validation
        .as_deref()
        .map(|p| read_doc(p, ValidationReport::from_json))
        .transpose()?;
    let comparison = match &args.comparison {
        Some(p) => {
            let c = read_doc(p, Comparison::from_json)?;
            Some(
                willy_predict::plot::comparison_figure(&c)
                    .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?,
            )
        }
        None => None,
    };
    let mut figs = figures(&profile, validation.as_ref())?;
    figs.extend(comparison);
    write_figures(&args.out, &figs)
}

/// Writes each figure into `dir` as NAME.svg, then lists them: every file
/// is written even where the list could not be printed.
fn write_figures(dir: &Path, figs: &[Figure]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let mut list = String::new();
    for f in figs {
        let path = dir.join(format!("{}.svg", f.name));
        write_file(&path, &f.svg)?;
        list += &format!("{}  {}\n", path.display(), f.title);
    }
    Ok(out!("{list}")?)
}

pub fn cmd_report(args: ReportArgs) -> anyhow::Result<()> {
    if let Some((_, html)) = single(&args.profile)? {
        check_output_path("--output", &args.output)?;
        write_file(&args.output, &html)?;
        outln!("report     {}", args.output.display())?;
        return Ok(());
    }
    let profile = load_profile(&args.profile)?;
    model(willy_predict::DEFAULT_MODEL, &args.profile, &profile)?;
    check_output_path("--output", &args.output)?;
    let validation = args
        .validation
        .as_deref()
        .map(|p| read_doc(p, ValidationReport::from_json))
        .transpose()?;
    let figs = figures(&profile, validation.as_ref())?;
    let html = willy_predict::report::html(&profile, &figs, validation.as_ref());
    write_file(&args.output, &html)?;
    for f in willy_predict::report::findings(&profile) {
        outln!("{f}")?;
    }
    outln!("report     {}", args.output.display())?;
    Ok(())
}
