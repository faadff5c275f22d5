//! `willy run`: one workload measured on a target; with `--scale`, the
//! self-scaling benchmark (`scale.rs`).

use super::check_json_path;
use crate::output;
use crate::progress::Progress;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use willy::engine::EngineKind;
use willy::report::{RunReport, RunTarget, TargetInfo, RUN_SCHEMA_VERSION};
use willy::run::{Measurement, RunConfig};
use willy::sysinfo::SystemInfo;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::{Bytes, Think};
use willy::workload::{Workload, WorkloadPatch};
use willy::Error;

/// The workload `willy run` measures when given none: Chen's usual focal
/// point for readFrac and seqFrac, a working set that fits in memory.
const DEFAULT_WORKLOAD: &str = include_str!("../../examples/default.json");

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Workload file (JSON). Flags below override its fields. Without it,
    /// the default workload is used (see README).
    #[arg(long, short)]
    pub workload: Option<PathBuf>,
    /// A directory to create files in, a raw block device, or a simulated
    /// system: sim:PRESET or sim:config.json. Repeat it to run on several
    /// targets at once (directories or devices, or the disks of one
    /// simulated bus: sim:cheetah-bus:0, sim:cheetah-bus:1, ...): the
    /// generators are spread over them. [default: ./willy-data]
    #[arg(long, short)]
    pub target: Vec<PathBuf>,
    /// I/O engine: psync (one thread per generator, pread/pwrite), uring
    /// (one io_uring, processNum requests in flight) or tokio-uring (the
    /// same on the tokio-uring runtime).
    #[arg(long, short, value_parser = super::engine_parser(), default_value = "psync")]
    pub engine: EngineKind,
    /// Use O_DIRECT on files (raw devices always do).
    #[arg(long)]
    pub direct: bool,

    /// Turn read-ahead off: posix_fadvise(POSIX_FADV_RANDOM) on the files
    /// (a simulated system: its read-ahead set to 0)
    #[arg(long)]
    pub no_readahead: bool,
    /// Barve's pipelining (simulated systems): before each read, an
    /// asynchronous read of the sector before it, so that the disk reads
    /// the block into its buffer while the bus serves others; each costs
    /// the host the preset's cpu.async_read_overhead_ms (docs/BUS.md).
    #[arg(long)]
    pub pipeline: bool,
    /// Write the result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed of the generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Permit writes to a raw device (refused anyway if it is in use or holds data).
    #[arg(long)]
    pub allow_device_writes: bool,
    /// Check the data: every block written carries a header (offset,
    /// generation, checksum) and a tag in every 512-byte sector, checked
    /// when it is read back; `--verify full` also checksums every byte. A
    /// mismatch names the file and offset and exits 3.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "sectors", conflicts_with = "scale")]
    pub verify: Option<VerifyArg>,
    /// Right after willy's measurement, run fio on the same files (the job
    /// `willy fio-job` prints, as long as willy's warm start and
    /// measurement) and print willy/fio. Needs fio.
    #[arg(long, conflicts_with = "scale")]
    pub compare_fio: bool,

    /// Working-set size over all generators, e.g. 1GiB.
    #[arg(long, help_heading = "Workload")]
    pub unique_bytes: Option<Bytes>,
    /// Mean request size, e.g. 16KiB.
    #[arg(long, help_heading = "Workload")]
    pub size_mean: Option<Bytes>,
    /// Fraction of reads, 0 to 1.
    #[arg(long, allow_negative_numbers = true, help_heading = "Workload")]
    pub read_frac: Option<f64>,
    /// Fraction of sequential requests, 0 to 1.
    #[arg(long, allow_negative_numbers = true, help_heading = "Workload")]
    pub seq_frac: Option<f64>,
    /// Number of closed-loop generators.
    #[arg(long, help_heading = "Workload")]
    pub process_num: Option<u32>,
    /// Think time between a completion and the next request, e.g. 1ms.
    #[arg(long, allow_hyphen_values = true, help_heading = "Workload")]
    pub cpu_think: Option<Think>,
    /// Block size: alignment and unit of request sizes [default: 4KiB].
    #[arg(long, help_heading = "Workload")]
    pub block_size: Option<Bytes>,

    /// Target relative half-width of the 95% confidence interval.
    #[arg(long, default_value_t = 0.05, help_heading = "Stopping rule")]
    pub ci: f64,
    /// Shortest measurement.
    #[arg(long, default_value = "5s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub min_time: Duration,
    /// Longest measurement [default: 60s; 600s of virtual time on sim: targets,
    /// where time is cheap]
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub max_time: Option<Duration>,
    /// Measurement interval (batch means works on these).
    #[arg(long, default_value = "250ms", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub interval: Duration,
    /// Shortest warm start.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_min: Duration,
    /// Longest warm start, which otherwise runs until uniqueBytes have moved
    /// [default: 60s; 600s of virtual time on sim: targets]
    #[arg(long, value_parser = humantime::parse_duration, help_heading = "Stopping rule")]
    pub warmup_max: Option<Duration>,

    /// Run the self-scaling benchmark instead of one workload (on a
    /// directory or a sim: target; not yet on raw devices): find the
    /// performance regions, their focal points and the curves around them,
    /// and write a profile.
    #[arg(long, help_heading = "Self-scaling")]
    pub scale: bool,
    /// Where --scale writes the profile; every measured point is saved at
    /// once in PROFILE.ckpt beside it.
    #[arg(
        long,
        default_value = "willy-profile.json",
        help_heading = "Self-scaling"
    )]
    pub profile: PathBuf,
    /// Continue an interrupted --scale run from its checkpoint, measuring no
    /// finished point again.
    #[arg(long, requires = "scale", help_heading = "Self-scaling")]
    pub resume: bool,
    /// Time for the whole --scale run on a real target (e.g. 15m, 8h): the
    /// plan divides it between the points. Ignored on sim: targets.
    #[arg(long, default_value = "15m", allow_hyphen_values = true, value_parser = super::positive_duration, help_heading = "Self-scaling")]
    pub budget: Duration,
    /// Probe the target first (`willy probe`: rotation, seek, boundaries,
    /// efficiency): its track or stripe unit and its efficient request size
    /// join every sizeMean curve, and the probe goes in the profile. Its
    /// time comes out of --budget.
    #[arg(
        long,
        requires = "scale",
        conflicts_with = "mpi",
        help_heading = "Self-scaling"
    )]
    pub probe: bool,
    /// How --scale chooses focal points: in the middle of each region
    /// (Chen's section 4.5), or one global knee at 75% of the maximum
    /// (section 4.4).
    #[arg(
        long,
        value_enum,
        default_value = "middle",
        help_heading = "Self-scaling"
    )]
    pub focus: FocusArg,
    /// Run inside a memory cgroup of this size (beneath willy's own, removed
    /// afterwards), so that the file cache is about this big, e.g. 1GiB.
    /// With --mpi, one per host, shared by its ranks.
    #[arg(long)]
    pub cache_limit: Option<Bytes>,

    /// Run as one rank of `mpirun -np N willy run --mpi ...` (a willy built
    /// with `--features mpi`): processNum and uniqueBytes are across all
    /// ranks, each rank runs its share of the generators on its own files,
    /// the ranks measure over the same window, and rank 0 writes the total
    /// with per-rank and per-node figures. `{rank}` in --target is each
    /// rank's number (node-local paths).
    #[arg(long, conflicts_with = "compare_fio", help_heading = "Many clients")]
    pub mpi: bool,
    /// With --mpi: IOR's stonewalling. Each rank plans to move this many
    /// bytes in the measurement; all stop when the first has (or at
    /// --max-time), instead of on the stopping rule.
    #[arg(
        long,
        requires = "mpi",
        conflicts_with = "scale",
        help_heading = "Many clients"
    )]
    pub stonewall: Option<Bytes>,
}

/// `--verify`'s level: see [`willy::verify::Level`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyArg {
    /// The header and a tag per 512-byte sector: lost, stale, torn,
    /// misplaced and overwritten sectors (cheap).
    Sectors,
    /// Also a checksum of every byte: a changed byte anywhere (costs up to
    /// 40% of page-cached throughput with large requests).
    Full,
}

impl From<VerifyArg> for willy::verify::Level {
    fn from(v: VerifyArg) -> Self {
        match v {
            VerifyArg::Sectors => willy::verify::Level::Sectors,
            VerifyArg::Full => willy::verify::Level::Full,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FocusArg {
    /// One focal vector in the middle of each performance region.
    Middle,
    /// One global knee: each parameter at its hardest value that still
    /// reaches 75% of the maximum, iterated until stable.
    Knee,
}

impl RunArgs {
    /// The testbed's options from the flags.
    pub fn testbed_options(&self) -> TestbedOptions {
        TestbedOptions {
            direct: self.direct,
            allow_device_writes: self.allow_device_writes,
            cache_limit: self.cache_limit.map(|b| b.0),
            verify: self.verify.map(Into::into),
            ..TestbedOptions::default()
        }
    }

    /// The stopping rule from the flags; `long` is the default longest
    /// warm-up and measurement.
    fn run_config(&self, long: Duration, interrupt: Arc<AtomicBool>) -> RunConfig {
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
            verify: self.verify.map(Into::into),
            cluster: None,
            stonewall_bytes: self.stonewall.map(|b| b.0),
            hold: None,
            readahead: !self.no_readahead,
            pipeline: self.pipeline,
        }
    }
}

fn workload_of(args: &RunArgs) -> Result<Workload, Error> {
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
fn check_stack_memory(w: &Workload) -> Result<(), Error> {
    let mem = SystemInfo::collect(Path::new(".")).memory_bytes;
    let need = w.stack_memory_bytes();
    if mem > 0 && need > mem / 4 {
        return Err(Error::Usage(format!(
            "the generators' LRU stacks would need {} of memory ({} per block), more than a quarter of this machine's {}; raise blockSize",
            Bytes(need),
            willy::workload::STACK_BYTES_PER_BLOCK,
            Bytes(mem)
        )));
    }
    Ok(())
}

/// psync runs a thread per generator: refuse a processNum beyond the
/// threads this user may start (RLIMIT_NPROC), which would otherwise fail
/// in the middle of starting them.
fn check_threads(w: &Workload, engine: EngineKind) -> Result<(), Error> {
    if !engine.thread_per_generator() {
        return Ok(());
    }
    // SAFETY: a zeroed rlimit is a valid out-parameter.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut lim) } == 0;
    // The limit counts every process and thread of this user; leave room
    // for the ones already running.
    let room = lim.rlim_cur.saturating_sub(256);
    if ok && lim.rlim_cur != libc::RLIM_INFINITY && u64::from(w.process_num) > room {
        return Err(Error::Usage(format!(
            "--process-num {} needs {} threads with --engine psync, more than this user may start (RLIMIT_NPROC {}, less 256 for those running): pass --process-num {} or less, or --engine uring",
            w.process_num, w.process_num, lim.rlim_cur, room
        )));
    }
    Ok(())
}

pub fn cmd_run(args: RunArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    if args.target.len() > 1 {
        return run_several(args, interrupt);
    }
    if args.mpi {
        return on_ranks(args, interrupt);
    }
    run_as(args, interrupt, None)
}

/// `--mpi`: this process as one rank of `mpirun`'s.
#[cfg(feature = "mpi")]
fn on_ranks(args: RunArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let session = crate::mpi::Session::start(interrupt.clone())?;
    let rank = session.cluster().rank();
    let r = run_as(args, interrupt, Some(session.cluster()));
    session.end(r.is_ok());
    // Bad input is the same on every rank: rank 0 says it, once.
    let usage = r
        .as_ref()
        .err()
        .and_then(|e| e.downcast_ref::<Error>())
        .is_some_and(Error::is_usage);
    if usage && rank != 0 {
        std::process::exit(2);
    }
    r
}

#[cfg(not(feature = "mpi"))]
fn on_ranks(_: RunArgs, _: Arc<AtomicBool>) -> anyhow::Result<()> {
    Err(Error::Usage(
        "--mpi needs a willy built with MPI: apt-get install libopenmpi-dev openmpi-bin libclang-dev, then cargo build --release --features mpi".into(),
    )
    .into())
}

/// Runs (or scales) on one process, or as one rank of `cluster`.
fn run_as(
    args: RunArgs,
    interrupt: Arc<AtomicBool>,
    cluster: Option<willy::cluster::ClusterRef>,
) -> anyhow::Result<()> {
    let w = workload_of(&args)?;
    let target = TargetArg::parse(args.target.first().map(PathBuf::as_path));
    // Virtual time costs little: let simulated runs go on until the interval
    // is tight, where a real run would give up after a minute.
    let long = Duration::from_secs(if target.is_simulated() { 600 } else { 60 });
    let cfg = args.run_config(long, interrupt.clone());
    cfg.validate()?;
    if args.verify.is_some() && target.is_simulated() {
        return Err(Error::Usage(
            "--verify checks real data: a simulated system (sim:) moves none; use a directory or a device".into(),
        )
        .into());
    }
    if args.compare_fio && target.is_simulated() {
        return Err(Error::Usage(
            "--compare-fio runs fio on willy's files: not on a simulated system (sim:)".into(),
        )
        .into());
    }
    check_stack_memory(&w)?;
    check_threads(&w, cfg.engine)?;
    if let Some(p) = &args.json {
        check_json_path(p)?;
    }
    check_pipeline(&args, target.is_simulated())?;
    let first = cluster.as_ref().is_none_or(|c| c.rank() == 0);
    // The cgroup and the files go when the testbed does, however this
    // function returns.
    if first {
        super::note_leftovers(&target);
    }
    let opts = TestbedOptions {
        cluster,
        ..args.testbed_options()
    };
    let mut bed = Testbed::open(target, &opts)?;
    if args.scale && !first {
        // Rank 0 plans and says what to measure.
        return Ok(bed.follow(interrupt)?);
    }
    if args.scale {
        bed.lead();
        return super::scale::run(&args, &w, cfg, &mut bed, &interrupt);
    }
    let mut prog = if first {
        Progress::new()
    } else {
        Progress::quiet()
    };
    let ws = std::slice::from_ref(&w);
    let mut fill = |done: u64, total: u64| {
        prog.filling(done, total);
        !interrupt.load(Ordering::Relaxed)
    };
    let prepared = bed.prepare(ws, &mut fill);
    // Described once the files exist (the default directory is made first).
    let system = bed.system();
    let m = prepared
        .and_then(|_| bed.measure_observed(ws, &cfg, &mut |_, _| true, &mut |s| prog.running(s)));
    prog.finish();
    let info = bed.info();
    let mut r = report(w, &cfg, info, system, m?.remove(0));
    if args.compare_fio {
        r.compare_fio = Some(compare_fio(&bed, &r)?);
    }
    drop(bed);
    if !first {
        return Ok(()); // rank 0 reports
    }
    finish(&args, r)
}

/// `--pipeline` runs on simulated systems, not with `--scale`.
fn check_pipeline(args: &RunArgs, simulated: bool) -> Result<(), Error> {
    if args.pipeline && (!simulated || args.scale) {
        return Err(Error::Usage(
            "--pipeline is simulated for now (sim: targets, willy run without --scale): willy issues no asynchronous reads on real devices yet".into(),
        ));
    }
    Ok(())
}

/// `willy run --target A --target B ...`: the workload's generators
/// spread over the targets, all run at once; per-target figures, their
/// totals and the rounds kept.
fn run_several(args: RunArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    for (set, flag) in [
        (args.scale, "--scale"),
        (args.mpi, "--mpi"),
        (args.compare_fio, "--compare-fio"),
        (args.verify.is_some(), "--verify"),
    ] {
        if set {
            return Err(Error::Usage(format!(
                "{flag} runs on one target; several --target run one workload spread over them"
            ))
            .into());
        }
    }
    let w = workload_of(&args)?;
    let targets: Vec<TargetArg> = args
        .target
        .iter()
        .map(|p| TargetArg::parse(Some(p)))
        .collect();
    let simulated = targets.iter().all(TargetArg::is_simulated);
    let long = Duration::from_secs(if simulated { 600 } else { 60 });
    let cfg = args.run_config(long, interrupt.clone());
    cfg.validate()?;
    let ws = willy::multi::spread(&w, targets.len())?;
    check_pipeline(&args, simulated)?;
    check_stack_memory(&w)?;
    check_threads(&w, cfg.engine)?;
    if let Some(p) = &args.json {
        check_json_path(p)?;
    }
    targets.iter().for_each(super::note_leftovers);
    let mut prog = Progress::new();
    let mut fill = |done: u64, total: u64| {
        prog.filling(done, total);
        !interrupt.load(Ordering::Relaxed)
    };
    let mut quiet = |_: &willy::run::Snapshot| {};
    let several = willy::multi::measure(
        &targets,
        &ws,
        &cfg,
        &args.testbed_options(),
        &mut fill,
        &mut quiet,
    );
    prog.finish();
    let several = several?;
    let ms = &several.measurements;
    let runs = target_runs(&several, &ws);
    let joined = args
        .target
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut r = report(
        w,
        &cfg,
        several.info[0].clone(),
        several.system,
        willy::multi::total(ms),
    );
    r.target = RunTarget::Several(joined);
    r.simulated = simulated;
    r.rounds_kept = willy::multi::rounds(ms);
    r.targets = Some(runs);
    finish(&args, r)
}

/// Each target's share and figures, for the document.
fn target_runs(several: &willy::multi::Several, ws: &[Workload]) -> Vec<willy::report::TargetRun> {
    several
        .info
        .iter()
        .zip(&several.measurements)
        .zip(ws)
        .map(|((info, m), w)| willy::report::TargetRun {
            target: info.path.clone(),
            kind: info.kind,
            direct: info.direct,
            workload: w.clone(),
            throughput_bytes_per_sec: m.throughput_bytes_per_sec,
            iops: m.iops,
            requests: m.requests,
            bytes_transferred: m.bytes_transferred,
            duration_secs: m.duration_secs,
            ci95_rel: m.ci95_rel,
        })
        .collect()
}

/// fio on willy's own files, as long as willy's warm start and measurement.
fn compare_fio(bed: &Testbed, r: &RunReport) -> anyhow::Result<willy::report::FioComparison> {
    let layout = bed
        .fio_layout()
        .ok_or_else(|| Error::Usage("no files for fio".into()))?;
    let m = &r.measurement;
    let opts = willy::fio::JobOptions {
        layout,
        engine: r.engine,
        direct: match &r.target {
            RunTarget::One(t) => t.direct,
            RunTarget::Several(_) => unreachable!("fio runs on one target"),
        },
        ramp_secs: m.warmup.secs.ceil().max(1.0) as u64,
        runtime_secs: m.duration_secs.ceil().max(2.0) as u64,
    };
    let job = willy::fio::job_file("willy", &r.workload, &opts);
    errln!(
        "willy: fio: running the same workload on the same files for {} s",
        opts.ramp_secs + opts.runtime_secs
    );
    let fio = super::fio::run_fio(&job)?;
    Ok(willy::report::FioComparison {
        fio_throughput_bytes_per_sec: fio,
        ratio: m.throughput_bytes_per_sec / fio,
        job,
    })
}

/// Prints the table and writes the JSON (atomically).
fn finish(args: &RunArgs, report: RunReport) -> anyhow::Result<()> {
    super::table_and_json(args.json.as_deref(), &output::table(&report), || {
        Ok(serde_json::to_string_pretty(&report)? + "\n")
    })
}

fn report(
    w: Workload,
    cfg: &RunConfig,
    target: TargetInfo,
    system: SystemInfo,
    m: Measurement,
) -> RunReport {
    RunReport {
        kind: "willy-run".into(),
        schema_version: RUN_SCHEMA_VERSION,
        workload: w,
        engine: cfg.engine,
        simulated: target.kind == willy::target::TargetKind::Simulated,
        target: RunTarget::One(target),
        targets: None,
        rounds_kept: None,
        seed: cfg.seed,
        measurement: m,
        system,
        compare_fio: None,
    }
}
