//! `willy run --scale`: the self-scaling benchmark, with every point saved
//! as soon as it is measured, on a simulated system or on files in a
//! directory, through the testbed.
//!
//! On real files the run has a time budget (`--budget`, a
//! [`TimeBudget`]): before each point the time left is shared between the
//! points the scaler still expects (docs/SCALING.md, "Time"). The testbed
//! keeps a point's files while the next point needs the same ones.

use super::run::{FocusArg, RunArgs};
use indicatif::{ProgressBar, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use willy::checkpoint::{path_beside, Checkpoint, Setting};
use willy::doc::profile::{Profile, PROFILE_SCHEMA_VERSION};
use willy::run::{Measurement, RunConfig};
use willy::testbed::Testbed;
use willy::units::Bytes;
use willy::workload::Workload;
use willy::Error;
use willy_scale::budget::{Fixed, TimeBudget, WallClock, MIN_POINT};
use willy_scale::curve::{MIN_DROP, MIN_PLATEAU, ONSET_H, STEEP_SLOPE};
use willy_scale::scaler::{scale, Focus, Measured, ScalePlan, Stage, IMPROVES, KNEE, SAME_CACHE};
use willy_scale::sweep::ONSET_RESOLUTION;

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
            b.set_message(format!("{stage}: {w}"));
        }
    }

    fn done(&self, line: String) {
        match &self.bar {
            Some(b) => b.println(line),
            None => errln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

fn fmt_duration(d: Duration) -> String {
    humantime::format_duration(Duration::from_secs(d.as_secs())).to_string()
}

/// The plan for the testbed's target, and the label its points are saved
/// under.
/// The plan, the target's label, and a warning when free space cuts the
/// sweep short.
fn plan_for(args: &RunArgs, bed: &Testbed) -> Result<(ScalePlan, String, Option<String>), Error> {
    let focus = match args.focus {
        FocusArg::Middle => Focus::Middle,
        FocusArg::Knee => Focus::Knee,
    };
    if let Some(sim) = bed.sim() {
        return Ok((
            ScalePlan::for_sim(sim, focus),
            bed.target().to_string(),
            None,
        ));
    }
    let dir = bed.target().path().expect("a real target has a path");
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Usage(format!(
            "--scale runs on a directory or a simulated system; {} is not a directory (raw devices are not supported by --scale yet)",
            dir.display()
        )));
    }
    let probe = if dir.exists() {
        dir.clone()
    } else {
        PathBuf::from(".")
    };
    let memory = bed.system().memory_bytes;
    let free = willy::target::free_bytes(&probe)?;
    let shown = probe.display().to_string();
    let (plan, warning) = ScalePlan::for_files(memory, bed.cache_limit(), free, &shown, focus)?;
    let label = match args.cache_limit {
        Some(l) => format!("{} (cache-limit {l})", dir.display()),
        None => dir.display().to_string(),
    };
    Ok((plan, label, warning))
}

/// Says what the run will do, and with which thresholds.
fn announce(bed: &Testbed, plan: &ScalePlan, cfg: &RunConfig, ckpt: &Path) {
    if let Some(cg) = bed.cgroup() {
        errln!(
            "willy: running in memory cgroup {} limited to {}",
            cg.path().display(),
            Bytes(bed.cache_limit().unwrap_or_default())
        );
    }
    errln!(
        "willy: scaling {}: three uniqueBytes sweeps from {} to {} ({} log-spaced points each, up to {} more where one drops): random reads and random writes to find the caches, then the focal vector; then {}; checkpoint {}",
        bed.target(),
        Bytes(plan.unique.from),
        Bytes(plan.unique.to),
        plan.unique.points,
        plan.unique.refine,
        match plan.focus {
            Focus::Middle => "a focal vector in the middle of each region and four curves around it",
            Focus::Knee => "one global knee (75% of each curve's maximum) and the curves through it",
        },
        ckpt.display()
    );
    errln!(
        "willy: thresholds: a drop is a run of log-log slopes below {STEEP_SLOPE} beyond the points' CIs losing at least {MIN_DROP}x (runs less than {MIN_PLATEAU}x of uniqueBytes apart are one); a read-probe cache is the uniqueBytes at the drop's onset (where h falls below {ONSET_H}, refined to {ONSET_RESOLUTION}x), a write-probe cache the one serving 1/2 at its centre; a write-probe cache within {SAME_CACHE}x of a read-probe cache is that cache; sizeMean and processNum grow while a doubling gains {IMPROVES}x (sizeMean at least to 1 MiB, processNum to {}; but in every region but the last, the final processNum curve goes as far as the focal searches did, whatever a doubling gains); focal sizeMean/processNum {}; each point stops at a 95% CI of +-{:.0}%",
        plan.max_process_num,
        match plan.focus {
            Focus::Middle => "where the curve first reaches halfway between its minimum and maximum (processNum at most the focal uniqueBytes over the region's lower border)".to_string(),
            Focus::Knee => format!("at {:.0}% of the maximum", KNEE * 100.0),
        },
        cfg.target_ci_rel * 100.0
    );
}

/// On real files, before anything is written: refuses a budget too short
/// for the sweeps that find the regions (their files and their points),
/// with the smallest budget that would do and, without `--cache-limit`,
/// the largest cache limit whose sweeps fit this budget.
fn check_budget(
    args: &RunArgs,
    plan: &ScalePlan,
    budget: &TimeBudget<WallClock>,
) -> Result<(), Error> {
    let sweep_points = 3 * plan.unique.points;
    let need = |to: u64| {
        let sweep = willy_scale::sweep::SweepPlan::new(plan.unique.from, to);
        willy_scale::budget::least_time(3 * sweep.fill_bytes(), sweep_points, budget.point_cost())
    };
    let least = need(plan.unique.to);
    if least <= args.budget {
        return Ok(());
    }
    // The least budget, rounded up to whole minutes.
    let minutes = Duration::from_secs(least.as_secs().div_ceil(60) * 60);
    let mut msg = format!(
        "--budget {} cannot hold this plan: its three sweeps to {} write {} of files (about {} at {:.1} GB/s) and need {sweep_points} points of at least {} s; pass --budget {} or more",
        fmt_duration(args.budget),
        Bytes(plan.unique.to),
        Bytes(3 * plan.unique.fill_bytes()),
        fmt_duration(Duration::from_secs_f64(3.0 * plan.unique.fill_bytes() as f64 / willy_scale::budget::ASSUMED_FILL_RATE)),
        willy_scale::budget::ASSUMED_FILL_RATE / 1e9,
        budget.point_cost().as_secs(),
        fmt_duration(minutes)
    );
    if args.cache_limit.is_none() {
        // The largest power-of-two cache whose sweeps fit.
        let fits = (26..40)
            .rev()
            .map(|s| 1u64 << s)
            .filter(|&c| willy_scale::plan::BEYOND_CACHE * c < plan.unique.to)
            .find(|&c| need(willy_scale::plan::BEYOND_CACHE * c) <= args.budget);
        if let Some(c) = fits {
            msg += &format!(
                ", or measure under a smaller cache with --cache-limit {}",
                Bytes(c)
            );
        }
    }
    Err(Error::Usage(msg))
}

/// On real files: how the budget is shared, and warnings when it is short.
fn announce_budget(args: &RunArgs, plan: &ScalePlan, budget: &TimeBudget<WallClock>, block: u64) {
    let expected = plan.expected_points(block, None);
    let share = args.budget.as_secs_f64() / expected as f64;
    let floor = budget.floor().as_secs_f64();
    let fills = 3 * plan.unique.fill_bytes();
    errln!(
        "willy: plan: about {expected} points in a budget of {}: about {:.0} s each (a warm-up of {:.0}-{:.0} s, then up to {:.0}-{:.0} s of measurement); the three sweeps write {} of files in all",
        fmt_duration(args.budget),
        share,
        share / 4.0,
        share / 2.0,
        (share / 2.0).max(floor),
        (share * 0.75).max(floor),
        Bytes(fills),
    );
    if share < MIN_POINT.as_secs_f64() {
        errln!(
            "willy: warning: a budget of {} gives each point less than {} s: points will be short and their confidence intervals wide; about {} would give each {} s (pass a longer --budget)",
            fmt_duration(args.budget),
            MIN_POINT.as_secs(),
            fmt_duration(MIN_POINT * expected as u32),
            MIN_POINT.as_secs()
        );
    }
    if args.cache_limit.is_none() && plan.unique.to > 8 << 30 {
        errln!(
            "willy: note: reaching the disk region needs working sets up to {}; priming one by random I/O takes far longer than the budget gives a point. --cache-limit 1GiB reaches the disk region at 4 GiB",
            Bytes(plan.unique.to)
        );
    }
}

/// Everything a point needs: the testbed, the checkpoint, the budget.
struct Session<'a> {
    m: Measurer<'a>,
    ck: Checkpoint,
    setting: Setting,
    bar: Bar,
    measured: usize,
    resumed: usize,
}

/// What measures a point: the testbed, within the budget.
struct Measurer<'a> {
    bed: &'a mut Testbed,
    cfg: RunConfig,
    fixed: Fixed,
    budget: &'a RefCell<TimeBudget<WallClock>>,
    interrupt: &'a AtomicBool,
}

impl Session<'_> {
    /// One point: from the checkpoint, or measured now and saved.
    fn point(&mut self, w: &Workload, stage: &Stage) -> Result<Measured, Error> {
        if self.m.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let n = self.measured + self.resumed;
        self.bar.start(n, stage.expected_points, &stage.what, w);
        let left = stage.expected_points.saturating_sub(n).max(1);
        // A drop's confirming re-measurement, or a focal point measured
        // again, is saved apart from the point (as pass "confirm K").
        let setting = Setting {
            pass: (stage.repeat > 0).then(|| format!("confirm {}", stage.repeat)),
            ..self.setting.clone()
        };
        let (m, fresh) = self
            .ck
            .measure_or_resume(w, &setting, |w| self.m.measure(w, left))?;
        if fresh {
            self.measured += 1
        } else {
            self.resumed += 1
        };
        self.bar.done(format!(
            "willy: point {} ({}): {w}: {}/s ±{} ({})",
            self.measured + self.resumed,
            stage.what,
            Bytes(m.throughput_bytes_per_sec as u64),
            m.ci95_rel
                .map(|r| format!("{:.1}%", r * 100.0))
                .unwrap_or_else(|| "?".into()),
            if fresh { "measured" } else { "resumed" }
        ));
        Ok(Measured::from(&m))
    }
}

impl Measurer<'_> {
    /// Measures a point; on real files within its share of the budget,
    /// with `left` points still expected.
    fn measure(&mut self, w: &Workload, left: usize) -> Result<Measurement, Error> {
        if self.bed.is_simulated() {
            return self.bed.measure(w, &self.cfg);
        }
        let start = Instant::now();
        let interrupt = self.interrupt;
        let mut fill = |_: u64, _: u64| !interrupt.load(Ordering::Relaxed);
        let reused = self.bed.prepare(std::slice::from_ref(w), &mut fill)?;
        let plan = self.budget.borrow().plan(left, reused);
        let mut c = self.cfg.clone();
        if self.fixed.warmup_max.is_none() {
            c.warmup_max = plan.warmup_max;
            c.warmup_min = c.warmup_min.min(c.warmup_max);
        }
        if self.fixed.max_time.is_none() {
            c.max_duration = plan.max_duration;
            c.min_duration = c.min_duration.min(plan.min_duration_cap);
        }
        let m = self.bed.measure(w, &c)?;
        let busy = Duration::from_secs_f64(m.duration_secs + m.warmup.secs);
        self.budget.borrow_mut().record(start.elapsed(), busy);
        Ok(m)
    }
}

pub fn run(
    args: &RunArgs,
    first: &Workload,
    mut cfg: RunConfig,
    bed: &mut Testbed,
    interrupt: &AtomicBool,
) -> anyhow::Result<()> {
    super::check_json_path(&args.profile)?;
    let ckpt_path = path_beside(&args.profile);
    super::check_resume(&ckpt_path, args.resume)?;
    let (mut plan, label, warning) = plan_for(args, bed)?;
    let resumed = resume_grid(args, &ckpt_path, &mut plan)?;
    // Virtual time is cheap: prime until uniqueBytes have moved.
    if bed.is_simulated() && args.warmup_max.is_none() {
        cfg.warmup_max = Duration::from_secs(20_000);
    }
    let (fixed, budget) = budget_of(args, &cfg);
    // The probe's time is the budget's: its clock has started.
    let probed = probe_first(args, bed, &cfg, &ckpt_path)?;
    plan.extra_sizes = probed.as_ref().map(probe_sizes).unwrap_or_default();
    if !bed.is_simulated() {
        check_budget(args, &plan, &budget.borrow())?;
    }
    let ck = match resumed {
        Some(ck) => ck,
        None => Checkpoint::open(&ckpt_path)?,
    };
    if let Some(w) = warning {
        errln!("willy: warning: {w}");
    }
    announce(bed, &plan, &cfg, &ckpt_path);
    if !bed.is_simulated() {
        announce_budget(args, &plan, &budget.borrow(), first.block_size.0);
    }
    let simulated = bed.is_simulated();
    let mut s = Session {
        setting: Setting {
            seed: cfg.seed,
            engine: cfg.engine.name().into(),
            target: label,
            direct: args.direct,
            pass: None,
            sweep_to: Some(plan.unique.to),
        },
        ck,
        m: Measurer {
            bed: &mut *bed,
            cfg: cfg.clone(),
            fixed,
            budget: &budget,
            interrupt,
        },
        bar: Bar::new(),
        measured: 0,
        resumed: 0,
    };
    // A simulated system has no budget.
    let afford = || {
        if simulated {
            usize::MAX
        } else {
            budget.borrow().afford()
        }
    };
    let result = scale(first, &plan, &mut |w, st| s.point(w, st), &afford, cfg.seed);
    s.bar.finish();
    s.m.bed.release(); // the files go before anything else is said
    if matches!(result, Err(Error::Interrupted)) {
        errln!(
            "willy: interrupted; the points measured so far are in {}: --resume continues",
            ckpt_path.display()
        );
    }
    let scaled = result?;
    let counts = (s.measured, s.resumed);
    drop(s); // the checkpoint closes before the profile replaces it
    let took = budget.borrow().elapsed();
    conclude(args, scaled, bed, &cfg, counts, took, probed)
}

/// The probe's file beside the checkpoint: kept for --resume, removed with
/// the checkpoint when the profile is written.
fn probe_path(ckpt: &Path) -> PathBuf {
    PathBuf::from(format!("{}.probe", ckpt.display()))
}

/// `--probe`: `willy probe` on the target before the run (the one an
/// interrupted run made, with --resume); nothing without `--probe`.
fn probe_first(
    args: &RunArgs,
    bed: &Testbed,
    cfg: &RunConfig,
    ckpt: &Path,
) -> anyhow::Result<Option<willy::doc::probe::Probe>> {
    if !args.probe {
        return Ok(None);
    }
    let path = probe_path(ckpt);
    if args.resume && path.exists() {
        let text = std::fs::read_to_string(&path)?;
        return willy::doc::probe::Probe::from_json(&text)
            .map(Some)
            .map_err(|e| Error::Usage(format!("{}: {e}", path.display())).into());
    }
    let target = match bed.target() {
        willy::testbed::TargetArg::Sim(name) => PathBuf::from(format!("sim:{name}")),
        t => t
            .path()
            .unwrap_or_else(|| PathBuf::from(willy::target::DEFAULT_DIR)),
    };
    errln!("willy: probing {} first (--probe) ...", target.display());
    let p = super::probe::probe_target(&target, cfg.seed, &cfg.interrupt)?;
    willy::target::write_atomic(&path, &(serde_json::to_string_pretty(&p)? + "\n"))
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(Some(p))
}

/// The sizes a probe adds to the sizeMean curves: the outer zone's track
/// or the stripe unit, and the efficient request size.
fn probe_sizes(p: &willy::doc::probe::Probe) -> Vec<u64> {
    let b = p.boundaries.as_ref();
    let boundary = b
        .and_then(|b| b.track_bytes.as_ref().and_then(|t| t.first().copied()))
        .or_else(|| b.and_then(|b| b.stripe_unit_bytes));
    boundary.into_iter().chain(p.efficient_size_bytes).collect()
}

/// Writes the profile, says what it found, and names the drops that did
/// not reproduce.
fn conclude(
    args: &RunArgs,
    scaled: willy_scale::scaler::Scaled,
    bed: &Testbed,
    cfg: &RunConfig,
    counts: (usize, usize),
    took: Duration,
    probed: Option<willy::doc::probe::Probe>,
) -> anyhow::Result<()> {
    let unconfirmed = scaled.unconfirmed.clone();
    for w in &scaled.skipped {
        errln!("willy: skipped (the budget could not afford it): {w}");
    }
    let skipped = scaled.skipped.len();
    let mut profile = profile_of(scaled, bed, cfg);
    profile.probe = probed;
    write_profile(&args.profile, &profile, &path_beside(&args.profile))?;
    summary(&args.profile, &profile, counts, took)?;
    if skipped > 0 {
        outln!("skipped    {skipped} curve points the budget could not afford (listed above; not measured): their curves are shorter")?;
    }
    if let Some(w) = willy_predict::report::disturbed(&profile) {
        outln!("warning    {w}")?;
    }
    for d in unconfirmed {
        outln!(
            "not confirmed: a drop of random {} between uniqueBytes {} and {} did not reproduce when both sides were measured again (background load?): not a cache",
            d.probe,
            Bytes(d.from_unique_bytes),
            Bytes(d.to_unique_bytes)
        )?;
    }
    Ok(())
}

/// What the user fixed of each point's timing, and the run's budget,
/// starting now.
fn budget_of(args: &RunArgs, cfg: &RunConfig) -> (Fixed, RefCell<TimeBudget<WallClock>>) {
    let fixed = Fixed {
        warmup_max: args.warmup_max,
        max_time: args.max_time,
    };
    let clock = WallClock::start();
    let budget = TimeBudget::new(clock, args.budget, cfg.interval, fixed);
    (fixed, RefCell::new(budget))
}

/// With `--resume`: the checkpoint, opened (a file that is no checkpoint
/// is refused here, before the plan is told), and the interrupted run's
/// grid put into `plan`.
fn resume_grid(
    args: &RunArgs,
    ckpt_path: &Path,
    plan: &mut ScalePlan,
) -> Result<Option<Checkpoint>, Error> {
    if !args.resume {
        return Ok(None);
    }
    let ck = Checkpoint::open(ckpt_path)?;
    if let Some(to) = ck.sweep_to().filter(|&to| to != plan.unique.to) {
        errln!(
            "willy: note: resuming the interrupted run's sweeps to {} (a new run would sweep to {} now)",
            Bytes(to),
            Bytes(plan.unique.to)
        );
        plan.unique.to = to;
    }
    Ok(Some(ck))
}

/// Writes the profile (atomically), then removes the checkpoint: the
/// profile holds every point now.
fn write_profile(path: &Path, profile: &Profile, ckpt: &Path) -> anyhow::Result<()> {
    profile
        .validate()
        .map_err(|e| anyhow::anyhow!("internal error: {e}"))?;
    super::write_file(path, &(serde_json::to_string_pretty(profile)? + "\n"))?;
    let _ = std::fs::remove_file(ckpt);
    let _ = std::fs::remove_file(probe_path(ckpt));
    Ok(())
}

fn profile_of(scaled: willy_scale::scaler::Scaled, bed: &Testbed, cfg: &RunConfig) -> Profile {
    Profile {
        kind: "willy-profile".into(),
        schema_version: PROFILE_SCHEMA_VERSION,
        system: bed.system(),
        simulated: bed.is_simulated(),
        target: bed.target().to_string(),
        cache_limit_bytes: bed.cache_limit(),
        engine: cfg.engine,
        direct: bed.direct(),
        seed: cfg.seed,
        ranges: scaled.ranges,
        points: scaled.points,
        unique_bytes_curve: scaled.unique_bytes_curve,
        regions: scaled.regions,
        cache_sizes_bytes: scaled.cache_sizes_bytes,
        caches: scaled.caches,
        mpi: bed.cluster().map(|c| willy::doc::profile::MpiRanks {
            ranks: c.size(),
            hosts: c.hosts().to_vec(),
        }),
        probe: None,
    }
}

fn summary(
    path: &Path,
    profile: &Profile,
    (measured, resumed): (usize, usize),
    took: Duration,
) -> std::io::Result<()> {
    outln!(
        "profile    {} ({} points: {measured} measured now, {resumed} resumed, in {})",
        path.display(),
        profile.points.len(),
        fmt_duration(took)
    )?;
    let sizes: Vec<String> = profile
        .caches
        .iter()
        .map(|c| {
            let cpu = willy_predict::report::within_cpu_cache(profile, c.size_bytes)
                .map(|l| {
                    format!(
                        "; no larger than the CPU's {} cache: maybe the CPU's",
                        Bytes(l)
                    )
                })
                .unwrap_or_default();
            let range = c
                .size_interval_bytes
                .map(|[lo, hi]| format!("{} to {}; ", Bytes(lo), Bytes(hi)))
                .unwrap_or_default();
            let fit = if c.poor_fit {
                format!(
                    "; POOR FIT: its fall implies caches up to {:.1}x away, a rough guide only",
                    c.fit_factor.unwrap_or(f64::NAN)
                )
            } else {
                String::new()
            };
            format!(
                "{} ({range}seen by {}{cpu}{fit})",
                Bytes(c.size_bytes),
                c.probe
            )
        })
        .collect();
    outln!(
        "caches     {}",
        if sizes.is_empty() {
            "none found".to_string()
        } else {
            sizes.join(", ")
        }
    )?;
    for (k, r) in profile.regions.iter().enumerate() {
        outln!(
            "region {k}   uniqueBytes {} to {}; focal {}",
            Bytes(r.from_unique_bytes),
            Bytes(r.to_unique_bytes),
            r.focal
        )?;
    }
    Ok(())
}
