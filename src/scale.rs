//! `willy run --scale`: the self-scaling benchmark, with every point saved
//! as soon as it is measured. Simulated targets only, so far (issue 4).

use crate::cli::RunArgs;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use willy::run::{run_sim, RunConfig};
use willy::sim::SimConfig;
use willy::sysinfo::SystemInfo;
use willy::units::Bytes;
use willy::workload::Workload;
use willy::Error;
use willy_predict::profile::{Profile, PROFILE_SCHEMA_VERSION};
use willy_scale::checkpoint::{Checkpoint, Setting};
use willy_scale::scaler::{scale, Measured, ScalePlan};
use willy_scale::sweep::SweepPlan;

fn checkpoint_path(profile: &std::path::Path) -> PathBuf {
    let mut s = profile.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}

pub fn run(
    args: &RunArgs,
    first: &Workload,
    mut cfg: RunConfig,
    interrupt: &AtomicBool,
) -> anyhow::Result<()> {
    let target = args
        .target
        .as_deref()
        .and_then(|p| p.to_str())
        .unwrap_or("");
    let Some(name) = target.strip_prefix("sim:") else {
        return Err(Error::Usage(
            "--scale runs on simulated targets only so far (--target sim:PRESET); real files and devices are not supported yet".into(),
        )
        .into());
    };
    let sim = SimConfig::load(name)?;
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
            return Err(Error::Usage(format!("--resume: there is no checkpoint {} to resume", ckpt_path.display())).into())
        }
        _ => {}
    }
    // Virtual time is cheap: prime until uniqueBytes have moved.
    if args.warmup_max.is_none() {
        cfg.warmup_max = Duration::from_secs(20_000);
    }
    let mut ck = Checkpoint::open(&ckpt_path)?;
    let setting = Setting {
        seed: cfg.seed,
        engine: cfg.engine.name().into(),
        target: target.into(),
        direct: args.direct,
    };
    let mem = sim.cache.as_ref().map(|c| c.capacity.0).unwrap_or(16 << 20);
    let plan = ScalePlan {
        unique: SweepPlan::new(1 << 20, (4 * mem).min(sim.capacity())),
        max_process_num: 16,
        max_size_mean: 1 << 20,
    };
    eprintln!(
        "willy: scaling sim:{name}: uniqueBytes from {} to {} ({} points, up to {} more where it drops), then four curves per region; checkpoint {}",
        Bytes(plan.unique.from),
        Bytes(plan.unique.to),
        plan.unique.points,
        plan.unique.refine,
        ckpt_path.display()
    );
    let (mut measured, mut resumed) = (0usize, 0usize);
    let mut measure = |w: &Workload| -> Result<Measured, Error> {
        if interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let (m, fresh) = ck.measure_or_resume(w, &setting, |w| {
            run_sim(w, &cfg, &sim, args.direct).map(|(m, _)| m)
        })?;
        if fresh {
            measured += 1
        } else {
            resumed += 1
        };
        eprintln!(
            "willy: point {}: uniqueBytes {} sizeMean {} readFrac {} seqFrac {} processNum {}: {}/s ({})",
            measured + resumed,
            w.unique_bytes,
            w.size_mean,
            w.read_frac,
            w.seq_frac,
            w.process_num,
            Bytes(m.throughput_bytes_per_sec as u64),
            if fresh { "measured" } else { "resumed" }
        );
        Ok(Measured {
            throughput: m.throughput_bytes_per_sec,
            ci95_rel: m.ci95_rel,
            duration_secs: m.duration_secs,
        })
    };
    let scaled = match scale(first, &plan, &mut measure, cfg.seed) {
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
        system: SystemInfo::simulated(&sim),
        simulated: true,
        target: target.into(),
        engine: cfg.engine,
        seed: cfg.seed,
        ranges: scaled.ranges,
        points: scaled.points,
        unique_bytes_curve: scaled.unique_bytes_curve,
        regions: scaled.regions,
        cache_sizes_bytes: scaled.cache_sizes_bytes,
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
        "profile    {} ({} points: {measured} measured now, {resumed} resumed)",
        args.profile.display(),
        profile.points.len()
    );
    let sizes: Vec<String> = profile
        .cache_sizes_bytes
        .iter()
        .map(|b| Bytes(*b).to_string())
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
        let f = &r.focal;
        println!(
            "region {k}   uniqueBytes {} to {}; focal uniqueBytes {} sizeMean {} readFrac {} seqFrac {} processNum {}",
            Bytes(r.from_unique_bytes),
            Bytes(r.to_unique_bytes),
            f.unique_bytes,
            f.size_mean,
            f.read_frac,
            f.seq_frac,
            f.process_num
        );
    }
    Ok(())
}
