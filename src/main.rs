//! The `willy` binary: flags, configuration, progress and output. The work
//! is done by the `willy`, `willy-predict` and `willy-scale` crates.
//!
//! Exit codes: 0 success, 1 a failure while running, 2 bad input (flags,
//! workload, target), 130 interrupted.

mod cli;
mod output;
mod predict;
mod progress;
mod scale;

use anyhow::Context;
use clap::Parser;
use cli::{Cli, Command, RunArgs};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use willy::report::{RunReport, TargetInfo, RUN_SCHEMA_VERSION};
use willy::run::RunConfig;
use willy::sysinfo::SystemInfo;
use willy::target::{Target, TargetSpec};
use willy::workload::WorkloadPatch;
use willy::Error;

/// The workload `willy run` measures when given none: Chen's usual focal
/// point for readFrac and seqFrac, a working set that fits in memory.
const DEFAULT_WORKLOAD: &str = include_str!("../examples/default.json");

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's first line, without its usage block.
            let text = e.render().to_string();
            eprintln!("{}", text.lines().next().unwrap_or("error: bad arguments"));
            return ExitCode::from(2);
        }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let result = match cli.command {
        Command::Run(args) => cmd_run(*args, interrupt),
        Command::Sim {
            command: cli::SimCommand::Presets { json },
        } => sim_presets(json),
        Command::Predict(args) => predict::cmd_predict(args),
        Command::Validate(args) => predict::cmd_validate(*args, interrupt),
        Command::Compare(args) => predict::cmd_compare(args),
        Command::Plot(args) => predict::cmd_plot(args),
        Command::Report(args) => predict::cmd_report(args),
        Command::Schema { document } => {
            match document {
                cli::SchemaDoc::Run => print!("{}", willy::report::schema()),
                cli::SchemaDoc::Profile => print!("{}", willy::doc::profile::schema()),
                cli::SchemaDoc::Validation => print!("{}", willy::doc::validation::schema()),
                cli::SchemaDoc::Predictions => {
                    print!("{}", willy::doc::prediction::predictions_schema())
                }
                cli::SchemaDoc::Comparison => {
                    print!("{}", willy::doc::prediction::comparison_schema())
                }
            }
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let lib = e.downcast_ref::<Error>();
            if matches!(lib, Some(Error::Interrupted)) {
                eprintln!("willy: interrupted; the files willy created were removed");
                return ExitCode::from(130);
            }
            eprintln!("willy: {e:#}");
            if lib.is_some_and(Error::is_usage) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn workload_of(args: &RunArgs) -> Result<willy::workload::Workload, Error> {
    let base = match &args.workload {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                Error::Usage(format!("cannot read workload file {}: {e}", p.display()))
            })?;
            WorkloadPatch::from_json(&text).map_err(|e| match e {
                Error::BadWorkload(m) => Error::BadWorkload(format!("{}: {m}", p.display())),
                other => other,
            })?
        }
        None => WorkloadPatch::from_json(DEFAULT_WORKLOAD)?,
    };
    base.overlay(WorkloadPatch {
        unique_bytes: args.unique_bytes,
        size_mean: args.size_mean,
        read_frac: args.read_frac,
        seq_frac: args.seq_frac,
        process_num: args.process_num,
        cpu_think: args.cpu_think,
        block_size: args.block_size,
    })
    .build()
}

/// The generators' LRU stacks live in willy's memory, which the page cache
/// under test would otherwise have: refuse a workload whose stacks would
/// take more than a quarter of the machine's memory.
fn check_stack_memory(w: &willy::workload::Workload) -> Result<(), Error> {
    let mem = SystemInfo::collect(Path::new(".")).memory_bytes;
    let need = w.stack_memory_bytes();
    if mem > 0 && need > mem / 4 {
        return Err(Error::Usage(format!(
            "the generators' LRU stacks would need {} of memory ({} per block), more than a quarter of this machine's {}; raise blockSize",
            willy::units::Bytes(need),
            willy::workload::STACK_BYTES_PER_BLOCK,
            willy::units::Bytes(mem)
        )));
    }
    Ok(())
}

/// Checks that the JSON output can be written, before any file is created.
pub(crate) fn check_json_path(p: &Path) -> Result<(), Error> {
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let ok = std::fs::metadata(dir).map(|m| m.is_dir()).unwrap_or(false);
    if !ok {
        return Err(Error::Usage(format!(
            "cannot write --json {}: {} is not a directory",
            p.display(),
            dir.display()
        )));
    }
    if p.is_dir() {
        return Err(Error::Usage(format!(
            "cannot write --json {}: it is a directory",
            p.display()
        )));
    }
    Ok(())
}

fn cmd_run(args: RunArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let w = workload_of(&args)?;
    let simulated = args
        .target
        .as_deref()
        .and_then(|p| p.to_str())
        .is_some_and(|s| s.starts_with("sim:"));
    // Virtual time costs little: let simulated runs go on until the interval
    // is tight, where a real run would give up after a minute.
    let long = Duration::from_secs(if simulated { 600 } else { 60 });
    let cfg = RunConfig {
        engine: args.engine.into(),
        seed: args.seed,
        interval: args.interval,
        min_duration: args.min_time,
        max_duration: args.max_time.unwrap_or(long),
        target_ci_rel: args.ci,
        warmup_min: args.warmup_min,
        warmup_max: args.warmup_max.unwrap_or(long),
        interrupt: interrupt.clone(),
    };
    cfg.validate()?;
    check_stack_memory(&w)?;
    if let Some(p) = &args.json {
        check_json_path(p)?;
    }
    if simulated && args.cache_limit.is_some() {
        return Err(Error::Usage(
            "--cache-limit applies to real targets; a simulated system's cache is set by its preset".into(),
        )
        .into());
    }
    if args.scale {
        return scale::run(&args, &w, cfg, &interrupt);
    }
    if let Some(name) = args
        .target
        .as_deref()
        .and_then(|p| p.to_str())
        .and_then(|s| s.strip_prefix("sim:"))
    {
        return run_simulated(&args, w, &cfg, name);
    }
    // The cgroup is removed when this function returns, however it returns.
    let _cgroup = match args.cache_limit {
        Some(limit) => {
            let cg = willy::cgroup::MemoryCgroup::create(limit.0)?;
            cg.add(std::process::id())?;
            Some(cg)
        }
        None => None,
    };
    let spec = TargetSpec {
        path: args.target.clone(),
        direct: args.direct,
        allow_device_writes: args.allow_device_writes,
    };
    let mut prog = progress::Progress::new();
    let mut target = {
        let mut fill = |done: u64, total: u64| {
            prog.filling(done, total);
            !interrupt.load(Ordering::Relaxed)
        };
        Target::open(&spec, &w, &mut fill)?
    };
    let system = SystemInfo::collect(&target.path);
    let m = willy::run::run(&w, &cfg, &target, &mut |s| prog.running(s));
    prog.finish();
    target.cleanup();
    let info = TargetInfo {
        path: target.path.display().to_string(),
        kind: target.kind,
        direct: target.direct,
    };
    finish(&args, report(w, &cfg, info, system, m?))
}

/// `willy run --target sim:NAME`: the same report, in virtual time.
fn run_simulated(
    args: &RunArgs,
    w: willy::workload::Workload,
    cfg: &RunConfig,
    name: &str,
) -> anyhow::Result<()> {
    let sim = willy::sim::SimConfig::load(name)?;
    let (m, _) = willy::run::run_sim(&w, cfg, &sim, args.direct)?;
    let info = TargetInfo {
        path: format!("sim:{name}"),
        kind: willy::target::TargetKind::Simulated,
        direct: args.direct,
    };
    finish(args, report(w, cfg, info, SystemInfo::simulated(&sim), m))
}

/// Prints the table and writes the JSON (atomically).
fn finish(args: &RunArgs, report: RunReport) -> anyhow::Result<()> {
    print!("{}", output::table(&report));
    if let Some(p) = &args.json {
        let text = serde_json::to_string_pretty(&report)? + "\n";
        willy::target::write_atomic(p, &text)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

fn report(
    w: willy::workload::Workload,
    cfg: &RunConfig,
    target: TargetInfo,
    system: SystemInfo,
    m: willy::run::Measurement,
) -> RunReport {
    RunReport {
        kind: "willy-run".into(),
        schema_version: RUN_SCHEMA_VERSION,
        workload: w,
        engine: cfg.engine,
        simulated: target.kind == willy::target::TargetKind::Simulated,
        target,
        seed: cfg.seed,
        measurement: m,
        system,
    }
}

fn sim_presets(json: bool) -> anyhow::Result<()> {
    let mut all = Vec::new();
    for (name, _) in willy::sim::PRESETS {
        all.push(willy::sim::SimConfig::load(name)?);
    }
    if json {
        let v: Vec<serde_json::Value> = all
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "description": c.description,
                    "cache_sizes_bytes": c.cache_sizes_bytes,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for c in &all {
            let sizes: Vec<String> = c.cache_sizes_bytes.iter().map(|b| b.to_string()).collect();
            let sizes = if sizes.is_empty() {
                "none".to_string()
            } else {
                sizes.join(" + ")
            };
            println!("{:<14} cache {:<18} {}", c.name, sizes, c.description);
        }
    }
    Ok(())
}
