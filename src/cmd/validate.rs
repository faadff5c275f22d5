//! `willy validate`: random workloads measured twice and predicted from a
//! profile (Chen 1992, sections 5.3-5.4), through the testbed, with every
//! measurement saved at once so that `--resume` measures none again.
//!
//! The workloads are measured the way the profile's points were: with its
//! engine (unless `--engine` says otherwise) and its O_DIRECT setting.

use super::{check_json_path, check_resume, load_profile};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use willy::checkpoint::{path_beside, Checkpoint, Setting};
use willy::doc::profile::Profile;
use willy::doc::validation::{DriftPoint, ValidationReport};
use willy::engine::EngineKind;
use willy::run::RunConfig;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::{human_bytes, Bytes};
use willy::workload::Workload;
use willy::Error;
use willy_predict::validate::{random_workloads, rel_error, Orthogonal, Setup, ValidatedPoint};
use willy_predict::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// Multidimensional interpolation on an orthogonal sample (Chen 5.4).
    Orthogonal,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The prediction model: chen (the product of the curves) or willy (the
    /// curves composed over per-process shares of the cache; see
    /// docs/PREDICTION.md).
    #[arg(long, value_parser = super::model_parser(), default_value = willy_predict::DEFAULT_MODEL)]
    pub model: String,
    /// The profile whose predictions are checked.
    #[arg(long, default_value = "willy-profile.json")]
    pub profile: PathBuf,
    /// Random workloads to measure (each is measured twice).
    #[arg(long, default_value_t = 100)]
    pub samples: usize,
    /// Where to measure [default: the profile's target].
    #[arg(long, short)]
    pub target: Option<PathBuf>,
    /// Write every point and the statistics as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seed of the random workloads and of the generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also measure a baseline and report its error beside the model's
    /// (simulated targets only).
    #[arg(long, value_enum)]
    pub baseline: Option<BaselineArg>,
    /// Values per parameter of the orthogonal sample [default: at least 3
    /// each, raised one parameter at a time until the grid has at least as
    /// many points as the profile].
    #[arg(long)]
    pub levels: Option<usize>,
    /// I/O engine [default: the profile's].
    #[arg(long, short, value_parser = super::engine_parser())]
    pub engine: Option<EngineKind>,
    /// Memory cgroup limit for real targets [default: the profile's].
    #[arg(long)]
    pub cache_limit: Option<Bytes>,
    /// Shortest measurement of one workload, capped by --max-time
    /// [default: as long as the profile measured its points (their
    /// median); 5s on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub min_time: Option<Duration>,
    /// Longest measurement of one workload [default: twice the profile's
    /// points, and at least --min-time; 600s on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub max_time: Option<Duration>,
    /// Measurement interval (batch means works on these).
    #[arg(long, value_parser = humantime::parse_duration, default_value = "250ms")]
    pub interval: Duration,
    /// Target relative half-width of each workload's 95% confidence
    /// interval, as `willy run --ci`.
    #[arg(long, default_value_t = 0.05)]
    pub ci: f64,
    /// Shortest warm start of one workload [default: 1s, or --warmup-max
    /// if that is shorter]. A longer one measures workloads the way they
    /// settle: on a real target, after the page cache has filled and its
    /// dirty pages are being written back.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub warmup_min: Option<Duration>,
    /// Longest warm start of one workload [default: 20s; unbounded on sim:].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub warmup_max: Option<Duration>,
    /// Continue an interrupted validation from its checkpoint (JSON.ckpt,
    /// or PROFILE.validation.ckpt without --json), measuring no finished
    /// workload again.
    #[arg(long)]
    pub resume: bool,
}

impl ValidateArgs {
    /// The stopping rule. On a real target, as long as the profile
    /// measured its points (`typical`, their median duration): beyond
    /// the page cache, what a workload with writes measures depends on
    /// how long after its dirty pages were written back it is measured
    /// (docs/MEASUREMENT.md, "Real files settle late"), and the
    /// predictions come from points measured that long. Generous on a
    /// simulated system, where time is virtual: 5 s to 600 s.
    fn run_config(
        &self,
        engine: EngineKind,
        sim: bool,
        typical: Option<Duration>,
        interrupt: Arc<AtomicBool>,
    ) -> RunConfig {
        // At least the intervals batch means needs.
        let floor = self.interval * willy::stats::MIN_BATCHES as u32;
        let (min, long) = match typical {
            Some(t) if !sim => {
                let t = t.max(floor);
                let min = self.min_time.unwrap_or(t);
                (min, (t * 2).max(min))
            }
            _ => (
                self.min_time.unwrap_or(Duration::from_secs(5)),
                Duration::from_secs(if sim { 600 } else { 20 }),
            ),
        };
        let mut cfg = RunConfig {
            engine,
            seed: self.seed,
            max_duration: self.max_time.unwrap_or(long),
            interval: self.interval,
            target_ci_rel: self.ci,
            warmup_max: self.warmup_max.unwrap_or(Duration::from_secs(if sim {
                20_000
            } else {
                20
            })),
            interrupt,
            ..RunConfig::default()
        };
        cfg.min_duration = min.min(cfg.max_duration);
        // A warm-up the user asked for is kept, and RunConfig::validate
        // says so if it exceeds --warmup-max; the default yields to it.
        cfg.warmup_min = match self.warmup_min {
            Some(d) => d,
            None => cfg.warmup_min.min(cfg.warmup_max),
        };
        cfg
    }

    /// Where the measurements are saved.
    fn checkpoint(&self) -> PathBuf {
        match &self.json {
            Some(j) if !super::is_stdout(j) => path_beside(j),
            _ => path_beside(&self.profile.with_extension("validation")),
        }
    }
}

/// Measures workloads on the testbed, each (workload, pass) once: saved
/// the moment it is measured, and taken from the checkpoint on `--resume`.
struct Passes<'a> {
    bed: Testbed,
    ck: Checkpoint,
    setting: Setting,
    cfg: RunConfig,
    interrupt: &'a AtomicBool,
}

impl Passes<'_> {
    /// Throughput of each workload in pass `pass`, with generators seeded
    /// `seed`.
    fn measure(&mut self, ws: &[Workload], pass: &str, seed: u64) -> Result<Vec<f64>, Error> {
        Ok(self
            .measure_steady(ws, pass, seed)?
            .into_iter()
            .map(|(t, _, _)| t)
            .collect())
    }

    /// [`Passes::measure`], each throughput with the steady state's after
    /// a transient at its start, where one was found, and each generator's.
    fn measure_steady(
        &mut self,
        ws: &[Workload],
        pass: &str,
        seed: u64,
    ) -> Result<Vec<Measured>, Error> {
        let mut c = self.cfg.clone();
        c.seed = seed;
        let setting = Setting {
            seed,
            pass: Some(pass.into()),
            ..self.setting.clone()
        };
        let mut out = Vec::with_capacity(ws.len());
        for (i, w) in ws.iter().enumerate() {
            if self.interrupt.load(Ordering::Relaxed) {
                return Err(Error::Interrupted);
            }
            let bed = &mut self.bed;
            let (m, fresh) = self
                .ck
                .measure_or_resume(w, &setting, |w| bed.measure(w, &c))?;
            let t = m.throughput_bytes_per_sec;
            errln!(
                "willy: {pass} {}/{}: {w}: {}/s ({})",
                i + 1,
                ws.len(),
                human_bytes(t),
                if fresh { "measured" } else { "resumed" }
            );
            out.push((
                t,
                m.stopping.steady_after_transient(),
                m.generators_bytes_per_sec,
            ));
        }
        Ok(out)
    }
}

/// Opens the testbed as the profile was measured, saying where the
/// engine differs.
fn open(
    args: &ValidateArgs,
    profile: &Profile,
    interrupt: &Arc<AtomicBool>,
) -> Result<(Testbed, RunConfig), Error> {
    let given = args
        .target
        .clone()
        .unwrap_or_else(|| PathBuf::from(&profile.target));
    let target = TargetArg::parse(Some(&given));
    let sim = target.is_simulated();
    if !sim && args.baseline.is_some() {
        return Err(Error::Usage(
            "--baseline orthogonal runs on simulated targets only (it measures hundreds of workloads)".into(),
        ));
    }
    let engine = args.engine.unwrap_or(profile.engine);
    if engine != profile.engine {
        errln!(
            "willy: note: measuring with the {} engine; the profile was measured with {}",
            engine.name(),
            profile.engine.name()
        );
    }
    let typical = profile
        .median_point_secs()
        .map(|s| Duration::from_millis((s * 1000.0).round() as u64));
    let cfg = args.run_config(engine, sim, typical, interrupt.clone());
    cfg.validate()?;
    if !sim && (args.min_time.is_none() || args.max_time.is_none()) {
        errln!(
            "willy: measuring each workload for {} to {}{} (--min-time, --max-time)",
            humantime::format_duration(cfg.min_duration),
            humantime::format_duration(cfg.max_duration),
            if typical.is_some() {
                ", as long as the profile measured its points"
            } else {
                ""
            }
        );
    }
    let opts = TestbedOptions {
        direct: profile.direct,
        allow_device_writes: false,
        cache_limit: if sim {
            None
        } else {
            args.cache_limit.map(|b| b.0).or(profile.cache_limit_bytes)
        },
        verify: None,
        ..TestbedOptions::default()
    };
    super::note_leftovers(&target);
    let bed = Testbed::open(target, &opts)?;
    if let Some(limit) = bed.cache_limit() {
        errln!(
            "willy: measuring in a memory cgroup limited to {}",
            Bytes(limit)
        );
    }
    Ok((bed, cfg))
}

pub fn cmd_validate(args: ValidateArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    let models = willy_predict::all_models(&profile)
        .map_err(|e| Error::Usage(format!("{}: {e}", args.profile.display())))?;
    let selected = willy_predict::canonical(&args.model);
    let pred = models
        .iter()
        .find(|(n, _)| *n == selected)
        .map(|(_, m)| m.as_ref())
        .expect("--model is one of MODELS");
    if args.samples == 0 {
        return Err(Error::Usage("--samples must be at least 1".into()).into());
    }
    if let Some(j) = &args.json {
        check_json_path(j)?;
    }
    let ckpt = args.checkpoint();
    check_resume(&ckpt, args.resume)?;
    let (bed, cfg) = open(&args, &profile, &interrupt)?;
    let setup = Setup {
        profile: args.profile.display().to_string(),
        profile_points: profile.points.len(),
        target: bed.target().to_string(),
        engine: cfg.engine,
        direct: bed.direct(),
        seed: args.seed,
        measured_secs: [
            cfg.min_duration.as_secs_f64(),
            cfg.max_duration.as_secs_f64(),
        ],
        ci: cfg.target_ci_rel,
        model: selected.to_string(),
    };
    let mut passes = Passes {
        setting: Setting {
            seed: args.seed,
            engine: cfg.engine.name().into(),
            target: setup.target.clone(),
            direct: setup.direct,
            pass: None,
            sweep_to: None,
        },
        ck: Checkpoint::open(&ckpt)?,
        bed,
        cfg,
        interrupt: &interrupt,
    };
    let report = match measure_all(&args, &profile, (pred, &models), &mut passes, setup) {
        Err(Error::Interrupted) => {
            drop(passes); // the files go first
            errln!(
                "willy: interrupted; the workloads measured so far are in {}: --resume continues",
                ckpt.display()
            );
            return Err(Error::Interrupted.into());
        }
        r => r?,
    };
    drop(passes);
    // The JSON is written even where the report could not be printed.
    let printed = print_report(&report);
    if let Some(j) = &args.json {
        super::write_json(j, &(serde_json::to_string_pretty(&report)? + "\n"))?;
    }
    let _ = std::fs::remove_file(&ckpt); // the result holds every measurement
    Ok(printed?)
}

/// A workload's throughput, its steady state's where it began before
/// it, and each generator's.
type Measured = (f64, Option<f64>, Vec<f64>);

/// Every model, by name.
type Models = [willy_predict::Named];

/// Both passes, the baseline if asked, and the statistics: the selected
/// model's predictions, and every model's error beside them.
fn measure_all(
    args: &ValidateArgs,
    profile: &Profile,
    (pred, models): (&dyn Model, &Models),
    passes: &mut Passes,
    setup: Setup,
) -> Result<ValidationReport, Error> {
    let block = profile.regions[0].focal.block_size.0;
    let ws = random_workloads(&profile.ranges, args.samples, args.seed, block);
    let drift = drift(profile, passes, args.seed)?;
    let first = passes.measure_steady(&ws, "workload", args.seed)?;
    let again = passes.measure(&ws, "repeat", args.seed.wrapping_add(1))?;
    let baseline = match args.baseline {
        Some(_) => Some(baseline(args, profile, passes, block)?),
        None => None,
    };
    let points: Vec<ValidatedPoint> = ws
        .iter()
        .zip(first.into_iter().zip(&again))
        .map(|(w, ((m, steady, generators), &r))| {
            let p = pred.predict(w);
            ValidatedPoint {
                workload: w.clone(),
                measured_bytes_per_sec: m,
                measured_steady_bytes_per_sec: steady,
                generators_bytes_per_sec: generators,
                repeat_bytes_per_sec: r,
                predicted_bytes_per_sec: p.predicted_throughput_bytes_per_sec,
                error: rel_error(p.predicted_throughput_bytes_per_sec, m),
                error_by_model: models
                    .iter()
                    .map(|(n, o)| {
                        let e = rel_error(o.predict(w).predicted_throughput_bytes_per_sec, m);
                        (n.to_string(), e)
                    })
                    .collect(),
                repeat_error: rel_error(r, m),
                baseline_predicted_bytes_per_sec: baseline.as_ref().map(|(o, _, _)| o.predict(w)),
                region: p.region,
                extrapolated: p.extrapolated,
                near_border: p.near_border,
            }
        })
        .collect();
    let levels = baseline.as_ref().map(|(_, n, l)| (*l, *n));
    Ok(willy_predict::validate::report(
        setup, points, levels, drift,
    ))
}

/// Each region's focal point measured again, against what the profile
/// measured there (on whichever of its region's curves holds it: a curve
/// cut short by the budget may not reach it; the median of that point
/// and the focal point's repeats, as prediction takes it): how far the
/// system moved since it was profiled.
fn drift(profile: &Profile, passes: &mut Passes, seed: u64) -> Result<Vec<DriftPoint>, Error> {
    let then: Vec<(usize, &Workload, f64)> = profile
        .regions
        .iter()
        .enumerate()
        .filter_map(|(k, r)| profile.focal_throughput(k).map(|x| (k, &r.focal, x)))
        .collect();
    let ws: Vec<Workload> = then.iter().map(|&(_, w, _)| w.clone()).collect();
    let now = passes.measure(&ws, "drift", seed)?;
    Ok(then
        .iter()
        .zip(now)
        .map(|(&(region, w, before), m)| DriftPoint {
            region,
            workload: w.clone(),
            profile_bytes_per_sec: before,
            measured_bytes_per_sec: m,
            change: m / before - 1.0,
        })
        .collect())
}

/// Chen's orthogonal baseline: a grid measured, interpolated.
fn baseline(
    args: &ValidateArgs,
    profile: &Profile,
    passes: &mut Passes,
    block: u64,
) -> Result<(Orthogonal, usize, [usize; 5]), Error> {
    let levels = match args.levels {
        Some(l) => [l.max(2); 5],
        None => Orthogonal::levels_for(&profile.ranges, profile.points.len()),
    };
    let axes = Orthogonal::axes(&profile.ranges, levels);
    let grid = Orthogonal::grid(&axes, block);
    errln!(
        "willy: orthogonal baseline: {} workloads ({levels:?} values of uniqueBytes, sizeMean, readFrac, seqFrac, processNum) against the profile's {} points",
        grid.len(),
        profile.points.len()
    );
    let values = passes.measure(&grid, "baseline", args.seed)?;
    Ok((Orthogonal::new(axes, values), grid.len(), levels))
}

/// Every model's median error, overall and per region, side by side, and
/// beneath them the repeatability in each region (the median difference
/// of the two passes there): the noise a model's error there stands on.
fn print_models(report: &ValidationReport) -> std::io::Result<()> {
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let selected = report.model.as_deref().unwrap_or("chen");
    let mut head = format!("{:<17} {:>8}", "model", "overall");
    for r in &report.regions {
        head += &format!(" {:>15}", format!("region {} ({})", r.region, r.workloads));
    }
    outln!("{head}")?;
    for (name, e) in &report.median_abs_error_by_model {
        let mark = if name == selected { " (selected)" } else { "" };
        let mut line = format!("{:<17} {:>8}", format!("{name}{mark}"), pct(*e));
        for r in &report.regions {
            let v = r.median_abs_error_by_model.get(name).map(|&x| pct(x));
            line += &format!(" {:>15}", v.unwrap_or_else(|| "-".into()));
        }
        outln!("{line}")?;
    }
    let mut line = format!(
        "{:<17} {:>8}",
        "repeatability",
        pct(report.repeatability_error)
    );
    for r in &report.regions {
        let v = r.repeatability_error.map(pct);
        line += &format!(" {:>15}", v.unwrap_or_else(|| "-".into()));
    }
    outln!("{line}")?;
    Ok(())
}

fn print_report(report: &ValidationReport) -> std::io::Result<()> {
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    outln!(
        "median error      {} (90% CI {} to {}) over {} random workloads; profile of {} points; model {}",
        pct(report.median_abs_error),
        pct(report.median_abs_error_ci90[0]),
        pct(report.median_abs_error_ci90[1]),
        report.points.len(),
        report.profile_points,
        report.model.as_deref().unwrap_or("chen")
    )?;
    outln!(
        "repeatability     {} (the same workloads measured again, next seed)",
        pct(report.repeatability_error)
    )?;
    if let Some(drift) = report.drift_summary() {
        outln!("drift             {drift} (each region's focal point now against the profile)")?;
    }
    if let Some(t) = report.transients_summary(0.05) {
        outln!("transients        {t}")?;
    }
    print_models(report)?;
    if let Some(b) = &report.baseline {
        outln!(
            "orthogonal        {} (90% CI {} to {}) from {} points ({:?} values per parameter)",
            pct(b.median_abs_error),
            pct(b.median_abs_error_ci90[0]),
            pct(b.median_abs_error_ci90[1]),
            b.points,
            b.levels
        )?;
    }
    outln!(
        "flagged           {} extrapolated, {} near a region border{}",
        report.extrapolated,
        report.near_border,
        report
            .near_border_median_abs_error
            .map(|e| format!(" (their median error {})", pct(e)))
            .unwrap_or_default()
    )?;
    for q in [0.5, 0.75, 0.9] {
        let n = report.error_cdf.len();
        let i = ((q * n as f64).ceil() as usize).clamp(1, n);
        outln!(
            "{:>3.0}% of errors  <= {}",
            q * 100.0,
            pct(report.error_cdf[i - 1].error)
        )?;
    }
    for p in &report.error_by_param {
        let bins: Vec<String> = p
            .bins
            .iter()
            .map(|b| {
                b.median_abs_error
                    .map(|e| format!("{:>6}", pct(e)))
                    .unwrap_or_else(|| "     -".into())
            })
            .collect();
        outln!("by {:<14} {}", p.param, bins.join(" "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ValidateArgs,
    }

    fn config(argv: &[&str], sim: bool) -> RunConfig {
        config_after(argv, sim, None)
    }

    fn config_after(argv: &[&str], sim: bool, typical: Option<f64>) -> RunConfig {
        let cli = Cli::try_parse_from(std::iter::once("validate").chain(argv.iter().copied()))
            .expect("arguments parse");
        let stop = Arc::new(AtomicBool::new(false));
        let typical = typical.map(Duration::from_secs_f64);
        cli.args.run_config(EngineKind::Psync, sim, typical, stop)
    }

    #[test]
    fn real_workloads_are_measured_as_long_as_the_profiles_points() {
        let secs = |c: &RunConfig| (c.min_duration.as_secs_f64(), c.max_duration.as_secs_f64());
        assert_eq!(secs(&config_after(&[], false, Some(2.5))), (2.5, 5.0));
        assert_eq!(secs(&config_after(&[], false, Some(30.0))), (30.0, 60.0));
        // Never under the intervals batch means needs (ten of 250 ms).
        assert_eq!(secs(&config_after(&[], false, Some(0.5))), (2.5, 5.0));
        // What the user sets is kept, and the other end yields to it.
        let c = config_after(&["--min-time", "12s"], false, Some(2.5));
        assert_eq!(secs(&c), (12.0, 12.0));
        let c = config_after(&["--max-time", "3s"], false, Some(2.5));
        assert_eq!(secs(&c), (2.5, 3.0));
        // Without the points' durations, and on a simulated target, as
        // before: 5 s to 20 s, or to 600 s of virtual time.
        assert_eq!(secs(&config_after(&[], false, None)), (5.0, 20.0));
        assert_eq!(secs(&config_after(&[], true, Some(2.5))), (5.0, 600.0));
    }

    #[test]
    fn the_warm_up_the_user_asks_for_is_kept() {
        let cfg = config(&["--warmup-min", "40s", "--warmup-max", "60s"], false);
        assert_eq!(cfg.warmup_min, Duration::from_secs(40));
        assert_eq!(cfg.warmup_max, Duration::from_secs(60));
        assert!(cfg.validate().is_ok());
        // Beyond the real default of --warmup-max (20s): said, not cut.
        let err = config(&["--warmup-min", "40s"], false)
            .validate()
            .unwrap_err();
        assert!(err.to_string().contains("--warmup-max"), "{err}");
    }

    #[test]
    fn the_default_warm_up_yields_to_a_shorter_longest() {
        let cfg = config(&["--warmup-max", "300ms"], true);
        assert_eq!(cfg.warmup_min, Duration::from_millis(300));
        assert!(cfg.validate().is_ok());
        let cfg = config(&[], false);
        assert_eq!(cfg.warmup_min, RunConfig::default().warmup_min);
    }
}
