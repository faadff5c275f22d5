//! `willy run --scale`: the self-scaling benchmark, with every point saved
//! as soon as it is measured, on a simulated system or on files in a
//! directory.
//!
//! On real files the run has a time budget (`--budget`). Before each point
//! the time left is shared between the points the scaler still expects;
//! each point gets its share for warm-up and measurement (see
//! docs/SCALING.md, "Time"). Files are created for a point's uniqueBytes and
//! processNum and kept while the next point needs the same files.

use crate::cli::{FocusArg, RunArgs};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use willy::cgroup::MemoryCgroup;
use willy::run::{run_sim, RunConfig};
use willy::sim::SimConfig;
use willy::sysinfo::SystemInfo;
use willy::target::{Target, TargetSpec};
use willy::units::Bytes;
use willy::workload::Workload;
use willy::Error;
use willy_predict::profile::{Profile, PROFILE_SCHEMA_VERSION};
use willy_scale::checkpoint::{Checkpoint, Setting};
use willy_scale::curve::{MIN_DROP, MIN_PLATEAU, ONSET_H, STEEP_SLOPE};
use willy_scale::scaler::{scale, Focus, Measured, ScalePlan, Stage, IMPROVES, KNEE, SAME_CACHE};
use willy_scale::sweep::SweepPlan;

/// The shortest share of the budget the plan is content with: below it
/// the plan warns that the budget is too short for good points, and the
/// regions' curves are thinned when the time left cannot give every point
/// still to come this much (with its overhead).
pub const MIN_POINT: Duration = Duration::from_secs(4);
/// Working sets reach this multiple of the largest cache.
pub const BEYOND_CACHE: u64 = 4;

fn checkpoint_path(profile: &Path) -> PathBuf {
    let mut s = profile.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}

/// Where points are measured.
enum Backend {
    Sim(Box<SimConfig>),
    Files {
        spec: TargetSpec,
        /// The files of the last point, kept while the next one fits them.
        held: Option<(u64, u32, Target)>,
    },
}

/// One bar on a terminal, one line per point otherwise.
struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    fn new() -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(1);
            b.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} points, ETA {eta}: {msg}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            b.enable_steady_tick(Duration::from_millis(500));
            b
        });
        Bar { bar }
    }

    fn start(&self, n: usize, expected: usize, stage: &str, w: &Workload) {
        if let Some(b) = &self.bar {
            b.set_length(expected as u64);
            b.set_position(n as u64);
            b.set_message(format!("{stage}: {}", describe(w)));
        }
    }

    fn done(&self, line: String) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

fn describe(w: &Workload) -> String {
    format!(
        "uniqueBytes {} sizeMean {} readFrac {} seqFrac {} processNum {}",
        w.unique_bytes, w.size_mean, w.read_frac, w.seq_frac, w.process_num
    )
}

fn fmt_duration(d: Duration) -> String {
    humantime::format_duration(Duration::from_secs(d.as_secs())).to_string()
}

pub fn run(
    args: &RunArgs,
    first: &Workload,
    mut cfg: RunConfig,
    interrupt: &AtomicBool,
) -> anyhow::Result<()> {
    let target_str = args
        .target
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| willy::target::DEFAULT_DIR.to_string());
    crate::check_json_path(&args.profile)?;
    let ckpt_path = checkpoint_path(&args.profile);
    match (ckpt_path.exists(), args.resume) {
        (true, false) => {
            return Err(Error::Usage(format!(
                "{} holds the points of an earlier --scale run: pass --resume to continue it, or remove it",
                ckpt_path.display()
            ))
            .into())
        }
        (false, true) => {
            return Err(Error::Usage(format!(
                "--resume: there is no checkpoint {} to resume",
                ckpt_path.display()
            ))
            .into())
        }
        _ => {}
    }
    let focus = match args.focus {
        FocusArg::Middle => Focus::Middle,
        FocusArg::Knee => Focus::Knee,
    };
    let bs = first.block_size.0;
    let (mut backend, system, plan, setting_target) = if let Some(name) =
        target_str.strip_prefix("sim:")
    {
        let sim = SimConfig::load(name)?;
        // Virtual time is cheap: prime until uniqueBytes have moved.
        if args.warmup_max.is_none() {
            cfg.warmup_max = Duration::from_secs(20_000);
        }
        let mem = sim.cache.as_ref().map(|c| c.capacity.0).unwrap_or(16 << 20);
        let plan = ScalePlan {
            unique: SweepPlan::new(1 << 20, (BEYOND_CACHE * mem).min(sim.capacity())),
            max_process_num: 16,
            max_size_mean: 1 << 20,
            focus,
        };
        let system = SystemInfo::simulated(&sim);
        (
            Backend::Sim(Box::new(sim)),
            system,
            plan,
            target_str.clone(),
        )
    } else {
        let spec = TargetSpec {
            path: args.target.clone(),
            direct: args.direct,
            allow_device_writes: args.allow_device_writes,
        };
        let dir = args
            .target
            .clone()
            .unwrap_or_else(|| PathBuf::from(willy::target::DEFAULT_DIR));
        if dir.exists() && !dir.is_dir() {
            return Err(Error::Usage(format!(
                    "--scale runs on a directory or a simulated system; {} is not a directory (raw devices are not supported by --scale yet)",
                    dir.display()
                ))
                .into());
        }
        let probe = if dir.exists() {
            dir.clone()
        } else {
            PathBuf::from(".")
        };
        let system = SystemInfo::collect(&probe);
        let cache = args.cache_limit.map(|b| b.0).unwrap_or(system.memory_bytes);
        let want = BEYOND_CACHE * cache;
        let free = willy::target::free_bytes(&probe)?.unwrap_or(u64::MAX);
        // The same margin a single run keeps, and a tenth for others.
        let usable = (free - free / 10).saturating_sub(64 << 20);
        let to = want.min(usable);
        if to < 16 << 20 {
            return Err(Error::Usage(format!(
                "not enough free space in {} for --scale: {} is free",
                probe.display(),
                Bytes(free)
            ))
            .into());
        }
        if to < want {
            eprintln!(
                    "willy: warning: uniqueBytes should reach {} ({BEYOND_CACHE} x the {} cache) but {} holds only {} free; {}",
                    Bytes(want),
                    Bytes(cache),
                    probe.display(),
                    Bytes(free),
                    if to < 2 * cache {
                        "the disk region cannot be reached: pass --cache-limit"
                    } else {
                        "the disk region will be short"
                    }
                );
        }
        let plan = ScalePlan {
            unique: SweepPlan::new(1 << 20, to),
            max_process_num: 16,
            max_size_mean: 8 << 20,
            focus,
        };
        let label = match args.cache_limit {
            Some(l) => format!("{} (cache-limit {l})", dir.display()),
            None => dir.display().to_string(),
        };
        (Backend::Files { spec, held: None }, system, plan, label)
    };
    let real = matches!(backend, Backend::Files { .. });
    // The cgroup lives until the end of the run, then is removed.
    let _cgroup = match (args.cache_limit, real) {
        (Some(limit), true) => {
            let cg = MemoryCgroup::create(limit.0)?;
            cg.add(std::process::id())?;
            eprintln!(
                "willy: running in memory cgroup {} limited to {limit}",
                cg.path().display()
            );
            Some(cg)
        }
        (Some(_), false) => {
            return Err(Error::Usage(
                "--cache-limit applies to real targets; a simulated system's cache is set by its preset".into(),
            )
            .into())
        }
        _ => None,
    };

    // The shortest measurement: the intervals batch means needs, with a
    // margin.
    let floor = cfg.interval * (willy::stats::MIN_BATCHES as u32 + 2);
    let expected = plan.expected_points(bs, None);
    let share = args.budget.as_secs_f64() / expected as f64;
    eprintln!(
        "willy: scaling {target_str}: three uniqueBytes sweeps from {} to {} ({} log-spaced points each, up to {} more where one drops): random reads and random writes to find the caches, then the focal vector; then {}; checkpoint {}",
        Bytes(plan.unique.from),
        Bytes(plan.unique.to),
        plan.unique.points,
        plan.unique.refine,
        match focus {
            Focus::Middle => "a focal vector in the middle of each region and four curves around it",
            Focus::Knee => "one global knee (75% of each curve's maximum) and the curves through it",
        },
        ckpt_path.display()
    );
    eprintln!(
        "willy: thresholds: a drop is a run of log-log slopes below {STEEP_SLOPE} losing at least {MIN_DROP}x (runs less than {MIN_PLATEAU}x of uniqueBytes apart are one); a read-probe cache is the LRU size serving {ONSET_H} of requests at the drop's onset (h = {ONSET_H}), a write-probe cache the one serving 1/2 at its centre; a write-probe cache within {SAME_CACHE}x of a read-probe cache is that cache; sizeMean and processNum grow while a doubling gains {IMPROVES}x (sizeMean at least to 1 MiB, processNum to {}); focal sizeMean/processNum {}; each point stops at a 95% CI of +-{:.0}%",
        plan.max_process_num,
        match focus {
            Focus::Middle => "halfway between the curve's minimum and maximum (processNum at most the focal uniqueBytes over the region's lower border)".to_string(),
            Focus::Knee => format!("at {:.0}% of the maximum", KNEE * 100.0),
        },
        cfg.target_ci_rel * 100.0
    );
    if real {
        let fills: u64 = (0..plan.unique.points)
            .map(|i| {
                let (a, b) = (plan.unique.from as f64, plan.unique.to as f64);
                (a * (b / a).powf(i as f64 / (plan.unique.points - 1) as f64)) as u64
            })
            .sum();
        eprintln!(
            "willy: plan: about {expected} points in a budget of {}: about {:.0} s each (a warm-up of {:.0}-{:.0} s, then up to {:.0}-{:.0} s of measurement); the sweep writes {} of files in all",
            fmt_duration(args.budget),
            share,
            share / 4.0,
            share / 2.0,
            (share / 2.0).max(floor.as_secs_f64()),
            (share * 0.75).max(floor.as_secs_f64()),
            Bytes(fills),
        );
        if share < MIN_POINT.as_secs_f64() {
            eprintln!(
                "willy: warning: a budget of {} gives each point less than {} s: points will be short and their confidence intervals wide; about {} would give each {} s (pass a longer --budget)",
                fmt_duration(args.budget),
                MIN_POINT.as_secs(),
                fmt_duration(MIN_POINT * expected as u32),
                MIN_POINT.as_secs()
            );
        }
        if args.cache_limit.is_none() && plan.unique.to > 8 << 30 {
            eprintln!(
                "willy: note: reaching the disk region needs working sets up to {}; priming one by random I/O takes far longer than the budget gives a point. --cache-limit 1GiB reaches the disk region at 4 GiB",
                Bytes(plan.unique.to)
            );
        }
    }

    let mut ck = Checkpoint::open(&ckpt_path)?;
    let setting = Setting {
        seed: cfg.seed,
        engine: cfg.engine.name().into(),
        target: setting_target.clone(),
        direct: args.direct,
    };
    let bar = Bar::new();
    let started = Instant::now();
    let budget = args.budget;
    let (mut measured, mut resumed) = (0usize, 0usize);
    // What points cost beyond their warm-up and measurement (creating
    // files, opening, closing), summed over the points measured so far.
    let overhead = std::cell::Cell::new((0.0f64, 0u32));
    let mean_overhead = || match overhead.get() {
        (_, 0) => 0.0,
        (secs, n) => secs / f64::from(n),
    };
    // How many more points the budget affords, each at least MIN_POINT
    // (or the user's fixed warm-up and measurement), with the overhead
    // seen so far. A point squeezed to MIN_POINT still measures for
    // `floor` after a warm-up of up to half its share. A simulated system
    // has no budget.
    let point_cost = MIN_POINT
        .max(floor + MIN_POINT / 2)
        .max(args.max_time.unwrap_or_default() + args.warmup_max.unwrap_or_default())
        .as_secs_f64();
    // Plan on 95% of the time left: the estimate of points still to come
    // is refined as regions appear, and a run that meets it exactly would
    // otherwise end a little late (the 30-minute run of
    // docs/PERFORMANCE.md took 30 m 28 s).
    let time_left = || 0.95 * budget.saturating_sub(started.elapsed()).as_secs_f64();
    let afford = || -> usize {
        if !real {
            return usize::MAX;
        }
        (time_left() / (point_cost + mean_overhead())) as usize
    };
    let mut measure = |w: &Workload, stage: &Stage| -> Result<Measured, Error> {
        if interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let n = measured + resumed;
        bar.start(n, stage.expected_points, &stage.what, w);
        let (m, fresh) = ck.measure_or_resume(w, &setting, |w| match &mut backend {
            Backend::Sim(sim) => run_sim(w, &cfg, sim, args.direct).map(|(m, _)| m),
            Backend::Files { spec, held } => {
                let point_start = Instant::now();
                let key = (w.unique_bytes.0, w.process_num);
                let reuse = matches!(held, Some((u, p, _)) if (*u, *p) == key);
                if !reuse {
                    *held = None; // removes the old files first
                    let mut fill = |_: u64, _: u64| !interrupt.load(Ordering::Relaxed);
                    let t = Target::open(spec, w, &mut fill)?;
                    *held = Some((key.0, key.1, t));
                }
                let (_, _, target) = held.as_ref().expect("just opened");
                // Share the time left between the points still expected.
                // The points still to come will cost the overhead seen so
                // far as well (file creation is counted for this point).
                let points_left = stage.expected_points.saturating_sub(n).max(1);
                let left = time_left() - mean_overhead() * (points_left - 1) as f64;
                // No floor but a second: the budget holds, and the
                // measurement still gets the intervals batch means needs
                // (below), so a point takes at least about 3 s.
                let share = (left / points_left as f64).max(1.0);
                let mut c = cfg.clone();
                let warm = if reuse { share / 4.0 } else { share / 2.0 };
                if args.warmup_max.is_none() {
                    c.warmup_max = Duration::from_secs_f64(warm);
                    c.warmup_min = c.warmup_min.min(c.warmup_max);
                }
                if args.max_time.is_none() {
                    c.max_duration = Duration::from_secs_f64(share - warm).max(floor);
                    c.min_duration = c
                        .min_duration
                        .min(Duration::from_secs_f64((share / 4.0).max(1.0)))
                        .min(c.max_duration);
                }
                let m = willy::run::run(w, &c, target, &mut |_| {})?;
                let (secs, n) = overhead.get();
                let this = point_start.elapsed().as_secs_f64() - m.duration_secs - m.warmup.secs;
                overhead.set((secs + this.max(0.0), n + 1));
                Ok(m)
            }
        })?;
        if fresh {
            measured += 1
        } else {
            resumed += 1
        };
        bar.done(format!(
            "willy: point {} ({}): {}: {}/s ±{} ({})",
            measured + resumed,
            stage.what,
            describe(w),
            Bytes(m.throughput_bytes_per_sec as u64),
            m.ci95_rel
                .map(|r| format!("{:.1}%", r * 100.0))
                .unwrap_or_else(|| "?".into()),
            if fresh { "measured" } else { "resumed" }
        ));
        Ok(Measured {
            throughput: m.throughput_bytes_per_sec,
            ci95_rel: m.ci95_rel,
            duration_secs: m.duration_secs,
        })
    };
    let result = scale(first, &plan, &mut measure, &afford, cfg.seed);
    bar.finish();
    if let Backend::Files { held, .. } = &mut backend {
        *held = None; // the files go before anything else is said
    }
    let scaled = match result {
        Ok(s) => s,
        Err(Error::Interrupted) => {
            eprintln!(
                "willy: interrupted; the points measured so far are in {}: --resume continues",
                ckpt_path.display()
            );
            return Err(Error::Interrupted.into());
        }
        Err(e) => return Err(e.into()),
    };
    let profile = Profile {
        kind: "willy-profile".into(),
        schema_version: PROFILE_SCHEMA_VERSION,
        system,
        simulated: !real,
        target: target_str,
        cache_limit_bytes: if real {
            args.cache_limit.map(|b| b.0)
        } else {
            None
        },
        engine: cfg.engine,
        direct: args.direct,
        seed: cfg.seed,
        ranges: scaled.ranges,
        points: scaled.points,
        unique_bytes_curve: scaled.unique_bytes_curve,
        regions: scaled.regions,
        cache_sizes_bytes: scaled.cache_sizes_bytes,
        caches: scaled.caches,
    };
    profile
        .validate()
        .map_err(|e| anyhow::anyhow!("internal error: {e}"))?;
    let text = serde_json::to_string_pretty(&profile)? + "\n";
    willy::target::write_atomic(&args.profile, &text)
        .with_context(|| format!("writing {}", args.profile.display()))?;
    drop(ck);
    let _ = std::fs::remove_file(&ckpt_path); // the profile holds every point now
    println!(
        "profile    {} ({} points: {measured} measured now, {resumed} resumed, in {})",
        args.profile.display(),
        profile.points.len(),
        fmt_duration(started.elapsed())
    );
    let sizes: Vec<String> = profile
        .caches
        .iter()
        .map(|c| {
            let cpu = willy_predict::report::within_cpu_cache(&profile, c.size_bytes)
                .map(|l| {
                    format!(
                        "; no larger than the CPU's {} cache: maybe the CPU's",
                        Bytes(l)
                    )
                })
                .unwrap_or_default();
            format!("{} (seen by {}{cpu})", Bytes(c.size_bytes), c.probe)
        })
        .collect();
    println!(
        "caches     {}",
        if sizes.is_empty() {
            "none found".to_string()
        } else {
            sizes.join(", ")
        }
    );
    for (k, r) in profile.regions.iter().enumerate() {
        println!(
            "region {k}   uniqueBytes {} to {}; focal {}",
            Bytes(r.from_unique_bytes),
            Bytes(r.to_unique_bytes),
            describe(&r.focal)
        );
    }
    Ok(())
}
