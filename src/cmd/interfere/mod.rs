//! `willy interfere`: workloads measured alone and together, with each
//! one's R-value (Argon); `--amortization R` prints the amortization size
//! for R instead. `--processes`: each workload in its own process
//! (`processes.rs`).

mod processes;

use super::{check_json_path, table_and_json};
use crate::progress::Progress;
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use willy::doc::interference::Interference;
use willy::engine::EngineKind;
use willy::interfere::{Member, Stage};
use willy::run::RunConfig;
use willy::sim::insulate::Amortization;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::{human_bytes, Bytes};
use willy::Error;

#[derive(Args, Debug)]
pub struct InterfereArgs {
    /// A workload file (JSON, as for `willy run --workload`), with an
    /// optional `share` (its part of the system, 0 to 1; equal parts by
    /// default) and `offset` (where its region starts on a device or
    /// simulated disk, e.g. "1TB"; by default after the one before it).
    /// Two or more.
    #[arg(long, short)]
    pub workload: Vec<PathBuf>,
    /// A directory, a raw block device, or a simulated system (sim:PRESET
    /// or sim:config.json, whose `insulation` turns on Argon's mechanisms).
    /// [default: ./willy-data]
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    /// Print the amortization size for this R-value (e.g. 0.9) on the
    /// target (a sim: target, or any with --probe), with the formula and
    /// its inputs, and measure nothing.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    pub amortization: Option<f64>,
    /// With --amortization on a directory or device: its `willy probe
    /// --json` document, for the positioning time and media rate.
    #[arg(long, value_name = "PROBE", requires = "amortization")]
    pub probe: Option<PathBuf>,
    /// Write the result as JSON to this file (`-`: standard output).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// I/O engine.
    #[arg(long, short, value_parser = super::engine_parser(), default_value = "psync")]
    pub engine: EngineKind,
    /// Use O_DIRECT on files (raw devices always do; on sim: bypasses the
    /// simulated cache).
    #[arg(long)]
    pub direct: bool,
    /// Seed of the first workload's generators (workload k uses seed + k).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Permit writes to a raw device (refused anyway if it is in use or
    /// holds data).
    #[arg(long)]
    pub allow_device_writes: bool,
    /// Run inside a memory cgroup of this size (all workloads in one), so
    /// that the file cache is about this big, e.g. 1GiB.
    #[arg(long, conflicts_with = "processes")]
    pub cache_limit: Option<Bytes>,
    /// Run each workload in its own willy process (directories and
    /// devices), each in a memory cgroup of its file's `cacheLimit` if it
    /// has one: the page cache partitioned between the workloads.
    #[arg(long)]
    pub processes: bool,
    /// (internal) Run workload K for a `--processes` leader.
    #[arg(long, hide = true, value_name = "K")]
    pub worker: Option<usize>,
    /// Target relative half-width of each measurement's 95% confidence
    /// interval.
    #[arg(long, default_value_t = 0.05, help_heading = "Stopping rule")]
    pub ci: f64,
    /// Shortest measurement.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub min_time: Duration,
    /// Longest measurement [default: 60s; 600s of virtual time on sim:].
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub max_time: Option<Duration>,
    /// Measurement interval.
    #[arg(long, default_value = "250ms", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub interval: Duration,
    /// Shortest warm start.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_min: Duration,
    /// Longest warm start [default: 60s; 600s of virtual time on sim:].
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_max: Option<Duration>,
}

impl InterfereArgs {
    fn run_config(&self, sim: bool, interrupt: Arc<AtomicBool>) -> RunConfig {
        let long = Duration::from_secs(if sim { 600 } else { 60 });
        RunConfig {
            engine: self.engine,
            seed: self.seed,
            interval: self.interval,
            min_duration: self.min_time,
            max_duration: self.max_time.unwrap_or(long),
            target_ci_rel: self.ci,
            warmup_min: self.warmup_min,
            warmup_max: self.warmup_max.unwrap_or(long),
            interrupt,
            ..RunConfig::default()
        }
    }
}

pub fn cmd_interfere(args: InterfereArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let target = TargetArg::parse(args.target.as_deref());
    if let Some(r) = args.amortization {
        return calculator(&target, r, args.probe.as_deref());
    }
    let members = args
        .workload
        .iter()
        .map(|p| Member::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    if members.len() < 2 {
        return Err(Error::Usage(format!(
            "interference needs two or more workloads (--workload A.json --workload B.json), got {}",
            members.len()
        ))
        .into());
    }
    willy::interfere::shares(&members)?;
    let cfg = args.run_config(target.is_simulated(), interrupt.clone());
    cfg.validate()?;
    if let Some(k) = args.worker {
        return processes::work(&args, &members, k, cfg, &interrupt);
    }
    check_processes(&args, &target, &members)?;
    if let Some(p) = &args.json {
        check_json_path(p)?;
    }
    let in_dir = target.path().is_some_and(|p| p.is_dir()) || matches!(target, TargetArg::Default);
    if in_dir && members.iter().any(|m| m.offset.is_some()) {
        errln!("willy: note: `offset` places a workload on a device or simulated disk; in a directory the file system places the files");
    }
    super::note_leftovers(&target);
    let opts = TestbedOptions {
        direct: args.direct,
        allow_device_writes: args.allow_device_writes,
        cache_limit: args.cache_limit.map(|b| b.0),
        ..TestbedOptions::default()
    };
    if let Some(note) = io_control_note(&target) {
        errln!("willy: note: {note}");
    }
    let doc = if args.processes {
        processes::lead(&args, &members, &interrupt)?
    } else {
        let mut bed = Testbed::open(target, &opts)?;
        measure(&mut bed, &members, &cfg, &interrupt)?
    };
    table_and_json(args.json.as_deref(), &table(&doc), || {
        Ok(serde_json::to_string_pretty(&doc)? + "\n")
    })
}

/// `--processes` and `cacheLimit` go together, on real targets.
fn check_processes(
    args: &InterfereArgs,
    target: &TargetArg,
    members: &[Member],
) -> Result<(), Error> {
    if args.processes && target.is_simulated() {
        return Err(Error::Usage(
            "--processes runs workloads as processes on a directory or device: a simulated system (sim:) runs them in one virtual time".into(),
        ));
    }
    if let Some(m) = members.iter().find(|m| m.cache_limit.is_some()) {
        if !args.processes {
            return Err(Error::Usage(format!(
                "{}: cacheLimit needs --processes (each workload in its own process and memory cgroup)",
                m.name
            )));
        }
    }
    let least = willy::cgroup::MIN_LIMIT;
    if let Some(m) = members
        .iter()
        .find(|m| m.cache_limit.is_some_and(|c| c < least))
    {
        return Err(Error::Usage(format!(
            "{}: cacheLimit {} is too small to run in (willy itself needs memory inside the cgroup): give it {} or more",
            m.name,
            Bytes(m.cache_limit.unwrap_or(0)),
            Bytes(least)
        )));
    }
    Ok(())
}

/// Measures with progress: a line per measurement, a bar within it.
fn measure(
    bed: &mut Testbed,
    members: &[Member],
    cfg: &RunConfig,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<Interference> {
    let n = members.len();
    let prog = std::cell::RefCell::new(Progress::new());
    let mut current: Option<Stage> = None;
    let name = |s: Stage| match s {
        Some(k) => format!("{} alone ({} of {})", members[k].name, k + 1, n + 1),
        None => format!("all {n} together ({} of {})", n + 1, n + 1),
    };
    let doc = willy::interfere::measure(
        bed,
        members,
        cfg,
        &mut |stage, s| {
            if current != Some(stage) {
                errln!("willy: measuring {}", name(stage));
                current = Some(stage);
            }
            if interrupt.load(Ordering::Relaxed) {
                return;
            }
            prog.borrow_mut().running(s);
        },
        &mut |stage, ms| {
            let mut p = prog.borrow_mut();
            p.finish();
            *p = Progress::new();
            let each: Vec<String> = ms
                .iter()
                .map(|m| {
                    let ci = m
                        .ci95_rel
                        .map_or("n/a".into(), |c| format!("±{:.1}%", c * 100.0));
                    format!("{}/s (CI {ci})", human_bytes(m.throughput_bytes_per_sec))
                })
                .collect();
            errln!("willy: {}: {}", name(stage), each.join(", "));
        },
    );
    prog.borrow_mut().finish();
    Ok(doc?)
}

/// The table printed after the measurements.
pub fn table(d: &Interference) -> String {
    let mut s = format!(
        "{:<24} {:>6} {:>14} {:>14} {:>8}  {}\n",
        "workload", "share", "alone", "shared", "R", "R 95% CI"
    );
    for w in &d.workloads {
        let r = if d.contended {
            format!("{:.3}", w.r_value)
        } else {
            "not contended".into()
        };
        let ci = match (d.contended, w.r_value_ci95) {
            (true, Some([lo, hi])) => format!("[{lo:.3}, {hi:.3}]"),
            (false, _) => format!("(R {:.3})", w.r_value),
            _ => "n/a".into(),
        };
        s += &format!(
            "{:<24} {:>6.3} {:>12}/s {:>12}/s {:>8}  {}\n",
            w.name,
            w.share,
            human_bytes(w.alone_bytes_per_sec),
            human_bytes(w.shared_bytes_per_sec),
            r,
            ci
        );
    }
    let pct = |x: Option<f64>| x.map_or("unknown".into(), |b| format!("{:.0}%", b * 100.0));
    let cpus = if d.simulated {
        String::new()
    } else {
        format!(", CPUs busy {}", pct(d.cpu_busy))
    };
    let busy = format!(
        "storage busy {}{cpus} during the shared run",
        pct(d.storage_busy)
    );
    s += &match (&d.bottleneck, d.contended) {
        (Some(b), _) => format!("contended ({b} saturated): {busy}\n"),
        (None, true) => format!(
            "contended: a workload got less than its share, though no resource was busy 90% of the time ({busy})\n"
        ),
        (None, false) => format!(
            "not contended: {busy}; each workload had at least its share, so the R-values say nothing of interference\n"
        ),
    };
    s
}

/// `--amortization R`: Argon's amortization size on the target, from a
/// simulated system's parameters or from the target's probe.
fn calculator(target: &TargetArg, r: f64, probe: Option<&std::path::Path>) -> anyhow::Result<()> {
    if let Some(p) = probe {
        let text = std::fs::read_to_string(p)
            .map_err(|e| Error::Usage(format!("--probe {}: {e}", p.display())))?;
        let doc = willy::doc::probe::Probe::from_json(&text)
            .map_err(|e| Error::Usage(format!("--probe {}: {e}", p.display())))?;
        let a = Amortization::from_probe(&doc, r)?;
        outln!(
            "amortization for R = {r} on {} (probed): {} ({} bytes)",
            doc.target,
            Bytes(a.size_bytes),
            a.size_bytes
        )?;
        outln!("  {}", a.explain())?;
        return Ok(());
    }
    let TargetArg::Sim(spec) = target else {
        return Err(Error::Usage(format!(
            "--amortization on {target} needs its probe: run `willy probe --target {target} --json P` and pass --probe P"
        ))
        .into());
    };
    let sim = willy::sim::SimConfig::load(spec)?;
    let a = Amortization::of(&sim.storage, r)?;
    outln!(
        "amortization for R = {r} on sim:{}: {} ({} bytes)",
        sim.name,
        Bytes(a.size_bytes),
        a.size_bytes
    )?;
    outln!("  {}", a.explain())?;
    outln!(
        "  use it: \"insulation\": {{\"amortization\": {}}} in a copy of the system's JSON (willy sim presets)",
        a.size_bytes
    )?;
    Ok(())
}

/// What the device under a real target offers to weight or prioritise
/// workloads: willy uses none of it yet, and says so.
fn io_control_note(target: &TargetArg) -> Option<String> {
    // A partition's queue is its disk's.
    let queue = willy::queue::Queue::of(&target.path()?).ok()?;
    let (_, active) = queue.schedulers().ok()?;
    Some(match active.as_str() {
        "bfq" => "the device's I/O scheduler is bfq, which offers per-cgroup weights; willy runs the workloads unweighted".into(),
        other => format!(
            "the device's I/O scheduler is {other}, which offers no I/O weights or priorities between workloads: they share it unweighted"
        ),
    })
}
