//! `willy anomalies`: random samples over the workload parameters and
//! the settings willy can change, each measured and compared with what
//! the system should do; the anomalous ones (at least `--threshold`
//! below) clustered into parameter ranges (Shen, Zhong and Li, FAST'05).
//! Every measured sample is saved at once, so `--resume` measures none
//! again.

mod calibrate;

use super::{check_json_path, check_resume, load_profile};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use willy::checkpoint::{path_beside, Checkpoint, Setting as CkSetting};
use willy::doc::anomalies::{Anomalies, Sample, ANOMALIES_SCHEMA_VERSION};
use willy::doc::profile::Ranges;
use willy::engine::EngineKind;
use willy::queue::{Guard, Queue, Saved};
use willy::report::Measurement;
use willy::run::RunConfig;
use willy::sim::SimConfig;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::{human_bytes, Bytes};
use willy::Error;
use willy_predict::anomalies::model::Layered;
use willy_predict::anomalies::{self as an, Setting, Space};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Expect {
    /// Shen's layered model (prefetching, scheduling, device) from the
    /// device's parameters: a simulated system's preset, or a short
    /// calibration on a real target (with --cache-limit as its cache).
    Model,
    /// A profile's own prediction (`--profile`).
    Profile,
}

#[derive(Args, Debug)]
pub struct AnomaliesArgs {
    /// A directory, a raw block device, or a simulated system:
    /// sim:PRESET or sim:config.json (whose "faults" plant known
    /// performance bugs).
    #[arg(long, short, default_value = "./willy-data")]
    pub target: PathBuf,
    /// Random settings to measure.
    #[arg(long, default_value_t = 400)]
    pub samples: usize,
    /// What a sample is compared with.
    #[arg(long, value_enum, default_value = "model")]
    pub expect: Expect,
    /// The profile whose predictions are the expected values (with
    /// --expect profile); its ranges are sampled, with its engine and
    /// O_DIRECT setting.
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// A sample at least this fraction below its expected throughput is
    /// anomalous.
    #[arg(long, default_value_t = an::THRESHOLD)]
    pub threshold: f64,
    /// Largest processNum sampled (with --expect model).
    #[arg(long, default_value_t = 32)]
    pub max_processes: u32,
    /// Write the samples and clusters as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed of the samples and of the generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory cgroup limit for real targets: the model's cache with
    /// --expect model [default: the profile's].
    #[arg(long)]
    pub cache_limit: Option<Bytes>,
    /// Shortest measurement of one sample (capped by --max-time).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "5s")]
    pub min_time: Duration,
    /// Longest measurement of one sample [default: 20s; 600s on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub max_time: Option<Duration>,
    /// Measurement interval.
    #[arg(long, value_parser = humantime::parse_duration, default_value = "250ms")]
    pub interval: Duration,
    /// Longest warm start of one sample [default: 20s; unbounded on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub warmup_max: Option<Duration>,
    /// Continue an interrupted run from its checkpoint (JSON.ckpt, or
    /// willy-anomalies.ckpt without --json).
    #[arg(long)]
    pub resume: bool,
    /// Permit writes to a raw device (refused anyway if it is in use or
    /// holds data); read-ahead is then switched through the device's
    /// read_ahead_kb, put back afterwards.
    #[arg(long)]
    pub allow_device_writes: bool,
    /// Sample the raw device's I/O schedulers too, each switched to in
    /// turn and the device's own put back afterwards (refused while the
    /// device is in use).
    #[arg(long)]
    pub vary_scheduler: bool,
    /// Engines to sample, e.g. psync,uring (with --expect model on a real
    /// target; a profile fixes its own, a simulated system has one)
    /// [default: psync].
    #[arg(long, value_enum, value_delimiter = ',')]
    pub engines: Vec<EngineKind>,
}

/// Where the expected values come from.
enum Expected {
    Model(Box<Layered>),
    /// The layered model of a real target, to be calibrated on it with
    /// this cache (the memory cgroup's limit), bytes.
    Calibrate(u64),
    Profile(Box<dyn willy_predict::Model>),
}

impl Expected {
    fn of(&self, s: &Setting) -> f64 {
        match self {
            Expected::Model(m) => m.throughput(&s.workload, s.direct, s.readahead),
            Expected::Profile(p) => p.predict(&s.workload).predicted_throughput_bytes_per_sec,
            Expected::Calibrate(_) => unreachable!("calibrated before any sample"),
        }
    }
}

/// Where samples are measured: a simulated system, or real files or a
/// raw device through a testbed of the sample's O_DIRECT setting (one at
/// a time: two would name their files alike, and a random sample's files
/// are new anyway); read-ahead is switched per sample
/// (`RunConfig::readahead`: posix_fadvise), or through the device's
/// queue, with its scheduler.
enum Bench {
    Sim(Box<SimConfig>),
    Real {
        target: TargetArg,
        opts: TestbedOptions,
        bed: Option<(bool, Box<Testbed>)>,
        queue: Option<Box<Device>>,
    },
}

/// A raw device's queue settings, varied per sample and put back.
struct Device {
    guard: Guard,
    /// Read-ahead on, KiB, where it is switched through read_ahead_kb
    /// (0 for off); `None`: through posix_fadvise.
    readahead_kb: Option<u64>,
    /// The schedulers sampled (empty: the device's own, unchanged).
    schedulers: Vec<String>,
}

impl Device {
    fn apply(&self, s: &Setting) -> Result<(), Error> {
        let saved = self.guard.saved();
        let kb = match self.readahead_kb {
            Some(on) if s.readahead => on,
            Some(_) => 0,
            None => saved.read_ahead_kb,
        };
        let sched = self.schedulers.get(s.scheduler).unwrap_or(&saved.scheduler);
        self.guard.set(kb, sched)
    }
}

impl Bench {
    fn measure(&mut self, s: &Setting, cfg: &RunConfig) -> Result<Measurement, Error> {
        let mut cfg = RunConfig {
            readahead: s.readahead,
            ..cfg.clone()
        };
        match self {
            Bench::Sim(sim) => Ok(willy::run::run_sim(&s.workload, &cfg, sim, s.direct)?.0),
            Bench::Real {
                target,
                opts,
                bed,
                queue,
            } => {
                if let Some(q) = queue {
                    q.apply(s)?;
                    if q.readahead_kb.is_some() {
                        cfg.readahead = true; // the queue's read-ahead decides
                    }
                }
                if bed.as_ref().is_none_or(|(d, _)| *d != s.direct) {
                    *bed = None; // its files and cgroup go first
                    let o = TestbedOptions {
                        direct: s.direct,
                        buffered_device: true,
                        ..opts.clone()
                    };
                    *bed = Some((s.direct, Box::new(Testbed::open(target.clone(), &o)?)));
                }
                let (_, b) = bed.as_mut().expect("opened above");
                b.measure(&s.workload, &cfg)
            }
        }
    }
}

impl AnomaliesArgs {
    fn run_config(&self, engine: EngineKind, sim: bool, interrupt: Arc<AtomicBool>) -> RunConfig {
        let long = if sim { 600 } else { 20 };
        let mut cfg = RunConfig {
            engine,
            seed: self.seed,
            max_duration: self.max_time.unwrap_or(Duration::from_secs(long)),
            interval: self.interval,
            warmup_max: self.warmup_max.unwrap_or(Duration::from_secs(if sim {
                20_000
            } else {
                20
            })),
            interrupt,
            ..RunConfig::default()
        };
        cfg.min_duration = self.min_time.min(cfg.max_duration);
        cfg.warmup_min = cfg.warmup_min.min(cfg.warmup_max);
        cfg
    }

    fn checkpoint(&self) -> PathBuf {
        match &self.json {
            Some(j) if !super::is_stdout(j) => path_beside(j),
            _ => PathBuf::from("willy-anomalies.ckpt"),
        }
    }

    fn check(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::Usage(m.into()));
        if self.samples == 0 {
            return bad("--samples must be at least 1");
        }
        if !(self.threshold > 0.0 && self.threshold < 1.0) {
            return bad("--threshold must be between 0 and 1 (e.g. 0.10)");
        }
        if self.max_processes == 0 {
            return bad("--max-processes must be at least 1");
        }
        match (self.expect, &self.profile) {
            (Expect::Profile, None) => bad("--expect profile needs --profile P"),
            (Expect::Model, Some(_)) => {
                bad("--profile goes with --expect profile (the model needs no profile)")
            }
            _ => Ok(()),
        }
    }
}

/// What a run compares with, samples, and measures on.
struct Setup {
    expected: Expected,
    space: Space,
    /// The engines sampled, as `space.engines` names them.
    engines: Vec<EngineKind>,
    bench: Bench,
    /// How read-ahead is switched, where it is varied (the document's
    /// `readahead_via`).
    readahead_via: Option<String>,
}

/// The expected values, the space sampled, the engine and the bench.
/// `state` is where a raw device's queue settings are recorded while
/// they are changed.
fn setup(args: &AnomaliesArgs, state: PathBuf) -> Result<Setup, Error> {
    let target = TargetArg::parse(Some(&args.target));
    let sim = match &target {
        TargetArg::Sim(spec) => Some(SimConfig::load(spec)?),
        _ => None,
    };
    let device = match &target {
        TargetArg::Path(p) => willy::target::block_device(p)?,
        _ => None,
    };
    if args.vary_scheduler && device.is_none() {
        return Err(Error::Usage(format!(
            "--vary-scheduler needs a raw block device as --target; {} is not one",
            args.target.display()
        )));
    }
    let room = match (&device, target.path()) {
        (Some((size, _)), _) => *size,
        (None, Some(p)) if sim.is_none() => willy::target::free_bytes(&p)
            .ok()
            .flatten()
            .map_or(u64::MAX, |f| f / 2),
        _ => u64::MAX,
    };
    let (expected, mut space, engines) = expected_and_space(args, sim.as_ref(), room)?;
    let mut readahead_via = (space.readahead.len() > 1).then(|| {
        if sim.is_some() {
            "simulator"
        } else {
            "posix_fadvise"
        }
        .to_string()
    });
    let bench = match sim {
        Some(s) => Bench::Sim(Box::new(s)),
        None => {
            super::note_leftovers(&target);
            let queue = match device {
                Some(d) => device_queue(args, &mut space, d, state)?.map(Box::new),
                None => None,
            };
            if queue.as_ref().is_some_and(|q| q.readahead_kb.is_some()) {
                readahead_via = Some("read_ahead_kb".into());
            }
            Bench::Real {
                target,
                opts: TestbedOptions {
                    cache_limit: args.cache_limit.map(|b| b.0).or_else(|| {
                        // The profile's, as `willy validate` measures.
                        let p = args.profile.as_ref()?;
                        load_profile(p).ok()?.cache_limit_bytes
                    }),
                    allow_device_writes: args.allow_device_writes,
                    ..TestbedOptions::default()
                },
                bed: None,
                queue,
            }
        }
    };
    Ok(Setup {
        expected,
        space,
        engines,
        bench,
        readahead_via,
    })
}

/// The expected values, the space they are compared over, and the
/// engines sampled (named as in the space). `room`: the most data the
/// target holds, bytes.
fn expected_and_space(
    args: &AnomaliesArgs,
    sim: Option<&SimConfig>,
    room: u64,
) -> Result<(Expected, Space, Vec<EngineKind>), Error> {
    let bad = |m: String| Err(Error::Usage(m));
    let both = vec![false, true];
    match (args.expect, sim) {
        (Expect::Model, None) => {
            let Some(cache) = args.cache_limit.map(|b| b.0) else {
                return bad("--expect model on a real target needs --cache-limit: the memory cgroup's limit is the model's cache".into());
            };
            let engines = if args.engines.is_empty() {
                vec![EngineKind::Psync]
            } else {
                args.engines.clone()
            };
            let hi = (cache * 8).min(64 << 30).min(room);
            if hi < cache / 4 {
                return bad(format!(
                    "{} has room for {}, less than a quarter of the cache ({}): the model's samples start there",
                    args.target.display(),
                    Bytes(room),
                    Bytes(cache / 4)
                ));
            }
            let space = Space {
                ranges: Ranges {
                    unique_bytes: [cache / 4, hi],
                    size_mean: [4096, 1 << 20],
                    read_frac: [0.0, 1.0],
                    seq_frac: [0.0, 1.0],
                    process_num: [1, args.max_processes],
                },
                engines: engines.iter().map(|e| e.name().into()).collect(),
                direct: both.clone(),
                readahead: both,
                schedulers: Vec::new(),
                block: 4096,
            };
            Ok((Expected::Calibrate(cache), space, engines))
        }
        _ if !args.engines.is_empty() => bad(match sim {
            Some(_) => "--engines: a simulated system has one engine".into(),
            None => {
                "--engines goes with --expect model: a profile's samples use the profile's engine"
                    .into()
            }
        }),
        (Expect::Model, Some(s)) => {
            let m = Layered::of(s).map_err(Error::Usage)?;
            let space = Space {
                ranges: model_ranges(&m, s, args.max_processes),
                engines: vec!["sim".into()],
                direct: if s.cache.is_some() {
                    both.clone()
                } else {
                    vec![true]
                },
                readahead: if s.cache.is_some() { both } else { vec![false] },
                schedulers: Vec::new(),
                block: 4096,
            };
            Ok((Expected::Model(Box::new(m)), space, vec![EngineKind::Psync]))
        }
        (Expect::Profile, _) => profile_space(args, sim),
    }
}

/// `--expect profile`: the profile's prediction over its ranges, with its
/// engine and O_DIRECT setting.
fn profile_space(
    args: &AnomaliesArgs,
    sim: Option<&SimConfig>,
) -> Result<(Expected, Space, Vec<EngineKind>), Error> {
    let p = args.profile.as_ref().expect("checked");
    let profile = load_profile(p)?;
    let model = willy_predict::model(willy_predict::DEFAULT_MODEL, &profile)
        .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
    // A profile made on a raw device was measured with O_DIRECT, whatever
    // its `direct` flag says.
    let on_device = std::fs::metadata(&profile.target)
        .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()));
    let direct = profile.direct || on_device;
    let space = Space {
        ranges: profile.ranges.clone(),
        engines: vec![profile.engine.name().into()],
        direct: vec![direct],
        readahead: if sim.is_none_or(|s| s.cache.is_some()) && !direct {
            vec![false, true]
        } else {
            vec![true]
        },
        schedulers: Vec::new(),
        block: profile.regions[0].focal.block_size.0,
    };
    Ok((Expected::Profile(model), space, vec![profile.engine]))
}

/// On a raw device of `size` bytes (device number `rdev`): uniqueBytes
/// kept within it, and the queue settings the run may change (its
/// schedulers with --vary-scheduler; read_ahead_kb with
/// --allow-device-writes where read-ahead is varied), recorded in
/// `state` first. `None` where nothing of the queue changes.
fn device_queue(
    args: &AnomaliesArgs,
    space: &mut Space,
    (size, rdev): (u64, u64),
    state: PathBuf,
) -> Result<Option<Device>, Error> {
    let dev = &args.target;
    let u = &mut space.ranges.unique_bytes;
    if u[0] > size {
        return Err(Error::Usage(format!(
            "device {} holds {}, less than the smallest uniqueBytes sampled ({})",
            dev.display(),
            Bytes(size),
            Bytes(u[0])
        )));
    }
    u[1] = u[1].min(size);
    let via_kb = args.allow_device_writes && space.readahead.len() > 1;
    if !via_kb && !args.vary_scheduler {
        return Ok(None);
    }
    if let Some(why) = willy::target::device_in_use(dev, rdev) {
        return Err(Error::Usage(format!(
            "refusing to change the queue settings of {}: {why}",
            dev.display()
        )));
    }
    let queue = Queue::of(dev)?;
    if args.vary_scheduler {
        let (all, _) = queue.schedulers()?;
        if all.len() < 2 {
            errln!(
                "willy: {} offers one I/O scheduler ({}): the scheduler is not varied",
                dev.display(),
                all.join("")
            );
        } else {
            space.schedulers = all;
        }
    }
    let guard = Guard::new(queue, state)?;
    let on = guard.saved().read_ahead_kb;
    Ok(Some(Device {
        readahead_kb: via_kb.then_some(if on > 0 { on } else { 128 }),
        schedulers: space.schedulers.clone(),
        guard,
    }))
}

/// The five parameters' ranges for the model: uniqueBytes from a quarter
/// of the cache to 256 times it (the cache region, the border and the
/// disk region, where even each of 32 generators' files is 8 times the
/// cache; 1 to 64 GiB without a cache), at most 64 GiB (the generators'
/// LRU stacks take 17 bytes per 4 KiB block) and half the device; sizes
/// 4 KiB to 1 MiB; processNum 1 to `max_processes`.
fn model_ranges(m: &Layered, sim: &SimConfig, max_processes: u32) -> Ranges {
    let c = m.cache_bytes();
    let (lo, hi) = if c > 0 {
        (c / 4, c * 256)
    } else {
        (1 << 30, 64 << 30)
    };
    let hi = hi.min(64 << 30).min(sim.capacity() / 2);
    Ranges {
        unique_bytes: [lo.min(hi), hi],
        size_mean: [4096, 1 << 20],
        read_frac: [0.0, 1.0],
        seq_frac: [0.0, 1.0],
        process_num: [1, max_processes],
    }
}

pub fn cmd_anomalies(args: AnomaliesArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    args.check()?;
    if let Some(j) = &args.json {
        check_json_path(j)?;
    }
    let ckpt = args.checkpoint();
    check_resume(&ckpt, args.resume)?;
    let state = PathBuf::from(format!("{}.queue", ckpt.display()));
    if let Some(s) = Saved::recover(&state)? {
        errln!(
            "willy: put back the read_ahead_kb ({}) and scheduler ({}) of {} that an earlier run left changed",
            s.read_ahead_kb,
            s.scheduler,
            s.queue.dir.display()
        );
    }
    let Setup {
        expected,
        space,
        engines,
        mut bench,
        readahead_via,
    } = setup(&args, state)?;
    let sim = matches!(bench, Bench::Sim(_));
    let cfg = args.run_config(engines[0], sim, interrupt.clone());
    cfg.validate()?;
    let calibrated = PathBuf::from(format!("{}.calibration", ckpt.display()));
    let (expected, calibration) = match expected {
        Expected::Calibrate(cache) => {
            let c = calibrate::calibration(&args, &mut bench, &cfg, cache, &calibrated)?;
            let m = Layered::calibrated(&c).map_err(Error::Usage)?;
            (Expected::Model(Box::new(m)), Some(c))
        }
        e => (e, None),
    };
    let settings = space.draw(args.samples, args.seed);
    let mut ck = Checkpoint::open(&ckpt)?;
    let started = Instant::now();
    let plan = Plan {
        space: &space,
        engines: &engines,
        expected: &expected,
    };
    let measured = measure_all(&args, &plan, &settings, &mut bench, &mut ck, &cfg);
    drop(bench); // files, cgroups and queue settings go first
    let samples = match measured {
        Err(Error::Interrupted) => {
            errln!(
                "willy: interrupted; the samples measured so far are in {}: --resume continues",
                ckpt.display()
            );
            return Err(Error::Interrupted.into());
        }
        r => r?,
    };
    let mut doc = assemble(
        &args,
        &space,
        &settings,
        samples,
        readahead_via,
        started.elapsed().as_secs_f64(),
    );
    doc.calibration = calibration;
    // The JSON is written even where the summary could not be printed.
    let printed = print(&doc);
    if let Some(j) = &args.json {
        super::write_json(j, &(serde_json::to_string_pretty(&doc)? + "\n"))?;
    }
    drop(ck);
    let _ = std::fs::remove_file(&ckpt); // the result holds every measurement
    let _ = std::fs::remove_file(&calibrated);
    Ok(printed?)
}

/// What the settings are drawn from and compared with.
struct Plan<'a> {
    space: &'a Space,
    /// The engines, as `space.engines` names them.
    engines: &'a [EngineKind],
    expected: &'a Expected,
}

/// Measures every setting (or takes it from the checkpoint).
fn measure_all(
    args: &AnomaliesArgs,
    plan: &Plan,
    settings: &[Setting],
    bench: &mut Bench,
    ck: &mut Checkpoint,
    cfg: &RunConfig,
) -> Result<Vec<Sample>, Error> {
    let Plan {
        space,
        engines,
        expected,
    } = plan;
    let target = args.target.display().to_string();
    let mut out = Vec::with_capacity(settings.len());
    for (i, s) in settings.iter().enumerate() {
        if cfg.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let scheduler = space.scheduler_of(s);
        let cfg = &RunConfig {
            engine: engines[s.engine.min(engines.len() - 1)],
            ..cfg.clone()
        };
        let key = CkSetting {
            seed: args.seed,
            engine: cfg.engine.name().into(),
            target: target.clone(),
            direct: s.direct,
            pass: Some(match scheduler {
                Some(q) => format!("anomalies readahead={} scheduler={q}", s.readahead),
                None => format!("anomalies readahead={}", s.readahead),
            }),
            sweep_to: None,
        };
        let (m, fresh) = ck.measure_or_resume(&s.workload, &key, |_| bench.measure(s, cfg))?;
        let want = expected.of(s);
        let got = m.throughput_bytes_per_sec;
        let shortfall = an::shortfall(want, got);
        let anomalous = shortfall >= args.threshold;
        errln!(
            "willy: sample {}/{}: {}{}{}{}{}: {}/s, expected {}/s{}{}",
            i + 1,
            settings.len(),
            s.workload,
            if engines.len() > 1 {
                format!(", {}", cfg.engine.name())
            } else {
                String::new()
            },
            if s.direct { ", direct" } else { "" },
            if s.readahead { "" } else { ", no read-ahead" },
            scheduler.map(|q| format!(", {q}")).unwrap_or_default(),
            human_bytes(got),
            human_bytes(want),
            if anomalous { ": ANOMALOUS" } else { "" },
            if fresh { "" } else { " (resumed)" }
        );
        out.push(Sample {
            workload: s.workload.clone(),
            engine: cfg.engine.name().into(),
            direct: s.direct,
            readahead: s.readahead,
            scheduler: scheduler.map(String::from),
            expected_bytes_per_sec: want,
            measured_bytes_per_sec: got,
            shortfall,
            anomalous,
            measurement: m,
        });
    }
    Ok(out)
}

fn assemble(
    args: &AnomaliesArgs,
    space: &Space,
    settings: &[Setting],
    samples: Vec<Sample>,
    readahead_via: Option<String>,
    elapsed_s: f64,
) -> Anomalies {
    let clusters = an::characterise(space, &samples, settings, an::EPS);
    let bad = samples.iter().filter(|s| s.anomalous).count();
    Anomalies {
        kind: "willy-anomalies".into(),
        schema_version: ANOMALIES_SCHEMA_VERSION,
        willy_version: env!("CARGO_PKG_VERSION").into(),
        target: args.target.display().to_string(),
        simulated: TargetArg::parse(Some(&args.target)).is_simulated(),
        expect: match args.expect {
            Expect::Model => "model",
            Expect::Profile => "profile",
        }
        .into(),
        profile: args.profile.as_ref().map(|p| p.display().to_string()),
        threshold: args.threshold,
        eps: an::EPS,
        seed: args.seed,
        readahead_via,
        calibration: None,
        dimensions: space.dimensions(),
        anomalous_fraction: bad as f64 / samples.len().max(1) as f64,
        samples,
        clusters,
        elapsed_s,
    }
}

fn print(d: &Anomalies) -> std::io::Result<()> {
    let bad = d.samples.iter().filter(|s| s.anomalous).count();
    outln!(
        "{} of {} samples anomalous ({:.1}%): measured at least {:.0}% below the {} (took {:.0} s)",
        bad,
        d.samples.len(),
        d.anomalous_fraction * 100.0,
        d.threshold * 100.0,
        if d.expect == "model" {
            "layered model"
        } else {
            "profile's prediction"
        },
        d.elapsed_s
    )?;
    if d.clusters.is_empty() {
        outln!("no cluster: no region of the space holds enough anomalies to point at a cause")?;
    }
    for (i, c) in d.clusters.iter().enumerate() {
        outln!("cluster {}: {}", i + 1, c.description)?;
    }
    Ok(())
}
