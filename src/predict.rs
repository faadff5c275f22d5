//! `willy predict`, `willy validate` and `willy compare`: reading workloads
//! and profiles, measuring, printing. The model is in willy-predict.

use crate::cli::{CompareArgs, PlotArgs, PredictArgs, ReportArgs, ValidateArgs};
use anyhow::Context;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use willy::run::{run_sim, RunConfig};
use willy::sim::SimConfig;
use willy::target::{Target, TargetSpec};
use willy::units::{human_bytes, Bytes};
use willy::workload::{Workload, WorkloadPatch};
use willy::Error;
use willy_predict::compare::{compare, scale_factor, standard_workloads};
use willy_predict::predict::{Prediction, Predictor};
use willy_predict::profile::Profile;
use willy_predict::validate::{
    random_workloads, rel_error, Orthogonal, ValidatedPoint, ValidationReport,
};

/// Reads a profile, with errors that say what to do.
pub fn load_profile(p: &Path) -> Result<Profile, Error> {
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

fn predictor(p: &Path, profile: &Profile) -> Result<Predictor, Error> {
    Predictor::new(profile).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))
}

/// Reads workloads: one JSON object, an array, or JSON Lines. An object
/// may carry a `"name"`; unnamed workloads are numbered from 1.
pub fn read_workloads(p: &Path) -> Result<Vec<(String, Workload)>, Error> {
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

fn flags(p: &Prediction) -> String {
    let mut f = Vec::new();
    if !p.extrapolated.is_empty() {
        f.push(format!("extrapolated: {}", p.extrapolated.join(", ")));
    }
    if p.near_border {
        f.push("near a region border: expect more error".into());
    }
    f.join("; ")
}

pub fn cmd_predict(args: PredictArgs) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    let pred = predictor(&args.profile, &profile)?;
    let ws = read_workloads(&args.workloads)?;
    if let Some(j) = &args.json {
        crate::check_json_path(j)?;
    }
    let mut out = Vec::new();
    for (name, w) in &ws {
        pred.check(w)
            .map_err(|e| Error::BadWorkload(format!("workload {name}: {e}")))?;
        out.push((name, w, pred.predict(w)));
    }
    println!(
        "{:<12} {:>14} {:>12} {:>12} {:>7}  notes",
        "workload", "throughput", "IOPS", "mean resp.", "region"
    );
    for (name, _, p) in &out {
        println!(
            "{:<12} {:>12}/s {:>12.0} {:>9.3} ms {:>7}  {}",
            name,
            human_bytes(p.predicted_throughput_bytes_per_sec),
            p.predicted_iops,
            p.predicted_mean_response_secs * 1e3,
            p.region,
            flags(p)
        );
    }
    if let Some(j) = &args.json {
        let v = serde_json::json!({
            "kind": "willy-predictions",
            "schema_version": 1,
            "profile": args.profile.display().to_string(),
            "predictions": out.iter().map(|(name, w, p)| {
                let mut o = serde_json::to_value(p).expect("serialises");
                o["name"] = serde_json::json!(name);
                o["workload"] = serde_json::to_value(w).expect("serialises");
                o
            }).collect::<Vec<_>>(),
        });
        willy::target::write_atomic(j, &(serde_json::to_string_pretty(&v)? + "\n"))
            .with_context(|| format!("writing {}", j.display()))?;
    }
    Ok(())
}

pub fn cmd_compare(args: CompareArgs) -> anyhow::Result<()> {
    let (pa, pb) = (load_profile(&args.a)?, load_profile(&args.b)?);
    let (a, b) = (predictor(&args.a, &pa)?, predictor(&args.b, &pb)?);
    if let Some(j) = &args.json {
        crate::check_json_path(j)?;
    }
    let (ws, note) = match &args.workloads {
        Some(p) => (read_workloads(p)?, String::new()),
        None => {
            let f = scale_factor(&pa, &pb);
            let block = pa.regions[0].focal.block_size.0;
            (
                standard_workloads(f, block),
                format!(
                    "Chen's Table 5.2 workloads, uniqueBytes scaled by {f:.1} (the larger cache / 16 MiB)\n"
                ),
            )
        }
    };
    for (name, w) in &ws {
        for (p, pr) in [(&args.a, &a), (&args.b, &b)] {
            pr.check(w).map_err(|e| {
                Error::BadWorkload(format!("workload {name} on {}: {e}", p.display()))
            })?;
        }
    }
    let rows = compare(&a, &b, &ws);
    print!("{note}");
    println!(
        "{:<18} {:>10} {:>14} {:>14} {:>8}  notes",
        "workload", "uniqueBytes", "A", "B", "A/B"
    );
    for r in &rows {
        let notes: Vec<String> = [("A", &r.a), ("B", &r.b)]
            .iter()
            .filter(|(_, p)| !flags(p).is_empty())
            .map(|(n, p)| format!("{n}: {}", flags(p)))
            .collect();
        println!(
            "{:<18} {:>10} {:>12}/s {:>12}/s {:>8.2}  {}",
            r.name,
            r.workload.unique_bytes.to_string(),
            human_bytes(r.a.predicted_throughput_bytes_per_sec),
            human_bytes(r.b.predicted_throughput_bytes_per_sec),
            r.ratio,
            notes.join("; ")
        );
    }
    if let Some(j) = &args.json {
        let v = serde_json::json!({
            "kind": "willy-comparison",
            "schema_version": 1,
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "workloads": rows,
        });
        willy::target::write_atomic(j, &(serde_json::to_string_pretty(&v)? + "\n"))
            .with_context(|| format!("writing {}", j.display()))?;
    }
    Ok(())
}

/// Measures workloads on a simulated system or on files.
enum Bench {
    Sim(Box<SimConfig>),
    Files(TargetSpec),
}

impl Bench {
    fn measure(&self, w: &Workload, cfg: &RunConfig, interrupt: &AtomicBool) -> Result<f64, Error> {
        let m = match self {
            Bench::Sim(sim) => run_sim(w, cfg, sim, false)?.0,
            Bench::Files(spec) => {
                let mut fill = |_: u64, _: u64| !interrupt.load(Ordering::Relaxed);
                let t = Target::open(spec, w, &mut fill)?;
                willy::run::run(w, cfg, &t, &mut |_| {})?
            }
        };
        Ok(m.throughput_bytes_per_sec)
    }
}

pub fn cmd_validate(args: ValidateArgs, interrupt: Arc<AtomicBool>) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    let pred = predictor(&args.profile, &profile)?;
    if args.samples == 0 {
        return Err(Error::Usage("--samples must be at least 1".into()).into());
    }
    if let Some(j) = &args.json {
        crate::check_json_path(j)?;
    }
    let target = args
        .target
        .as_ref()
        .map(|t| t.display().to_string())
        .unwrap_or_else(|| profile.target.clone());
    let sim = target
        .strip_prefix("sim:")
        .map(SimConfig::load)
        .transpose()?;
    if sim.is_none() && args.baseline.is_some() {
        return Err(Error::Usage(
            "--baseline orthogonal runs on simulated targets only (it measures hundreds of workloads)".into(),
        )
        .into());
    }
    let long = if sim.is_some() { 600 } else { 20 };
    let mut cfg = RunConfig {
        engine: args.engine.into(),
        seed: args.seed,
        max_duration: args.max_time.unwrap_or(Duration::from_secs(long)),
        interval: args.interval,
        warmup_max: args
            .warmup_max
            .unwrap_or(Duration::from_secs(if sim.is_some() { 20_000 } else { 20 })),
        interrupt: interrupt.clone(),
        ..RunConfig::default()
    };
    cfg.min_duration = args.min_time.min(cfg.max_duration);
    cfg.validate()?;
    let cache_limit = args.cache_limit.map(|b| b.0).or(profile.cache_limit_bytes);
    let _cgroup = match (&sim, cache_limit) {
        (None, Some(limit)) => {
            let cg = willy::cgroup::MemoryCgroup::create(limit)?;
            cg.add(std::process::id())?;
            eprintln!(
                "willy: measuring in a memory cgroup limited to {}",
                Bytes(limit)
            );
            Some(cg)
        }
        _ => None,
    };
    let bench = match sim {
        Some(s) => Bench::Sim(Box::new(s)),
        None => Bench::Files(TargetSpec {
            path: Some(target.clone().into()),
            direct: false,
            allow_device_writes: false,
        }),
    };
    let block = profile.regions[0].focal.block_size.0;
    let ws = random_workloads(&profile.ranges, args.samples, args.seed, block);
    let measure_all = |seed: u64, what: &str| -> Result<Vec<f64>, Error> {
        let mut c = cfg.clone();
        c.seed = seed;
        ws.iter()
            .enumerate()
            .map(|(i, w)| {
                if interrupt.load(Ordering::Relaxed) {
                    return Err(Error::Interrupted);
                }
                let t = bench.measure(w, &c, &interrupt)?;
                eprintln!(
                    "willy: {what} {}/{}: uniqueBytes {} sizeMean {} readFrac {} seqFrac {} processNum {}: {}/s",
                    i + 1,
                    ws.len(),
                    w.unique_bytes,
                    w.size_mean,
                    w.read_frac,
                    w.seq_frac,
                    w.process_num,
                    human_bytes(t)
                );
                Ok(t)
            })
            .collect()
    };
    let first = measure_all(args.seed, "workload")?;
    let again = measure_all(args.seed.wrapping_add(1), "repeat")?;
    let baseline = match args.baseline {
        Some(_) => {
            let levels = match args.levels {
                Some(l) => [l.max(2); 5],
                None => Orthogonal::levels_for(&profile.ranges, profile.points.len()),
            };
            let axes = Orthogonal::axes(&profile.ranges, levels);
            let grid = Orthogonal::grid(&axes, block);
            eprintln!(
                "willy: orthogonal baseline: {} workloads ({levels:?} values of uniqueBytes, sizeMean, readFrac, seqFrac, processNum) against the profile's {} points",
                grid.len(),
                profile.points.len()
            );
            let values = grid
                .iter()
                .map(|w| bench.measure(w, &cfg, &interrupt))
                .collect::<Result<Vec<f64>, Error>>()?;
            Some((Orthogonal::new(axes, values), grid.len(), levels))
        }
        None => None,
    };
    let points: Vec<ValidatedPoint> = ws
        .iter()
        .zip(first.iter().zip(&again))
        .map(|(w, (&m, &r))| {
            let p = pred.predict(w);
            ValidatedPoint {
                workload: w.clone(),
                measured_bytes_per_sec: m,
                repeat_bytes_per_sec: r,
                predicted_bytes_per_sec: p.predicted_throughput_bytes_per_sec,
                error: rel_error(p.predicted_throughput_bytes_per_sec, m),
                repeat_error: rel_error(r, m),
                baseline_predicted_bytes_per_sec: baseline.as_ref().map(|(o, _, _)| o.predict(w)),
                region: p.region,
                extrapolated: p.extrapolated.iter().map(|s| s.to_string()).collect(),
                near_border: p.near_border,
            }
        })
        .collect();
    let report = willy_predict::validate::report(
        willy_predict::validate::Setup {
            profile: args.profile.display().to_string(),
            profile_points: profile.points.len(),
            target,
            engine: cfg.engine,
            direct: false,
            seed: args.seed,
        },
        points,
        baseline.as_ref().map(|(_, n, l)| (*l, *n)),
    );
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    println!(
        "median error      {} (90% CI {} to {}) over {} random workloads; profile of {} points",
        pct(report.median_abs_error),
        pct(report.median_abs_error_ci90[0]),
        pct(report.median_abs_error_ci90[1]),
        report.points.len(),
        report.profile_points
    );
    println!(
        "repeatability     {} (the same workloads measured again, next seed)",
        pct(report.repeatability_error)
    );
    if let Some(b) = &report.baseline {
        println!(
            "orthogonal        {} (90% CI {} to {}) from {} points ({:?} values per parameter)",
            pct(b.median_abs_error),
            pct(b.median_abs_error_ci90[0]),
            pct(b.median_abs_error_ci90[1]),
            b.points,
            b.levels
        );
    }
    println!(
        "flagged           {} extrapolated, {} near a region border{}",
        report.extrapolated,
        report.near_border,
        report
            .near_border_median_abs_error
            .map(|e| format!(" (their median error {})", pct(e)))
            .unwrap_or_default()
    );
    for q in [0.5, 0.75, 0.9] {
        let i =
            ((q * report.error_cdf.len() as f64).ceil() as usize).clamp(1, report.error_cdf.len());
        println!(
            "{:>3.0}% of errors  <= {}",
            q * 100.0,
            pct(report.error_cdf[i - 1].error)
        );
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
        println!("by {:<14} {}", p.param, bins.join(" "));
    }
    if let Some(j) = &args.json {
        willy::target::write_atomic(j, &(serde_json::to_string_pretty(&report)? + "\n"))
            .with_context(|| format!("writing {}", j.display()))?;
    }
    Ok(())
}

fn load_validation(p: &Path) -> Result<ValidationReport, Error> {
    let text = std::fs::read_to_string(p)
        .map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))?;
    ValidationReport::from_json(&text).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))
}

fn figures(
    profile: &Profile,
    validation: Option<&ValidationReport>,
) -> anyhow::Result<Vec<willy_predict::plot::Figure>> {
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

pub fn cmd_plot(args: PlotArgs) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    predictor(&args.profile, &profile)?;
    let validation = args
        .validation
        .as_deref()
        .map(load_validation)
        .transpose()?;
    let comparison = match &args.comparison {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))?;
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                Error::Usage(format!(
                    "{} is not a `willy compare --json` result: {e}",
                    p.display()
                ))
            })?;
            Some(
                willy_predict::plot::comparison_figure(&v)
                    .map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?,
            )
        }
        None => None,
    };
    let mut figs = figures(&profile, validation.as_ref())?;
    figs.extend(comparison);
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Error::Usage(format!("cannot create {}: {e}", args.out.display())))?;
    for f in &figs {
        let path = args.out.join(format!("{}.svg", f.name));
        willy::target::write_atomic(&path, &f.svg)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("{}  {}", path.display(), f.title);
    }
    Ok(())
}

pub fn cmd_report(args: ReportArgs) -> anyhow::Result<()> {
    let profile = load_profile(&args.profile)?;
    predictor(&args.profile, &profile)?;
    crate::check_json_path(&args.output)?;
    let validation = args
        .validation
        .as_deref()
        .map(load_validation)
        .transpose()?;
    let figs = figures(&profile, validation.as_ref())?;
    let html = willy_predict::report::html(&profile, &figs, validation.as_ref());
    willy::target::write_atomic(&args.output, &html)
        .with_context(|| format!("writing {}", args.output.display()))?;
    for f in willy_predict::report::findings(&profile) {
        println!("{f}");
    }
    println!("report     {}", args.output.display());
    Ok(())
}
