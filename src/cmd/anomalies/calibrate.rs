//! `--expect model` on a real target: the layered model's parameters from
//! five short runs on the target itself (Shen et al.'s "small calibration"
//! of the device, and the host beside it).

use super::{AnomaliesArgs, Bench};
use std::path::Path;
use std::time::{Duration, Instant};
use willy::doc::anomalies::Calibration;
use willy::run::RunConfig;
use willy::units::Bytes;
use willy::workload::Workload;
use willy::Error;
use willy_predict::anomalies::model::Layered;
use willy_predict::anomalies::Setting;

/// Read-ahead when the device's queue cannot be read: Linux's default.
const DEFAULT_READAHEAD: u64 = 128 << 10;

/// Measures the calibration on the bench's target, or takes it from
/// `saved` (written there by the run a `--resume` continues, so that
/// resumed samples keep their expected values).
pub(super) fn calibration(
    args: &AnomaliesArgs,
    bench: &mut Bench,
    cfg: &RunConfig,
    cache: u64,
    saved: &Path,
) -> Result<Calibration, Error> {
    if let Some(c) = std::fs::read_to_string(saved)
        .ok()
        .and_then(|t| serde_json::from_str::<Calibration>(&t).ok())
    {
        errln!(
            "willy: the model's calibration from the interrupted run ({})",
            saved.display()
        );
        return Ok(c);
    }
    let started = Instant::now();
    let quick = RunConfig {
        min_duration: Duration::from_secs(2),
        max_duration: Duration::from_secs(5),
        warmup_max: Duration::from_secs(5),
        engine: willy::engine::EngineKind::Psync,
        ..cfg.clone()
    };
    // On a device: within it, and writes only where allowed.
    let device = match bench {
        Bench::Real { target, .. } => target
            .path()
            .and_then(|p| willy::target::block_device(&p).ok().flatten()),
        Bench::Sim(_) => None,
    };
    let (big, writes) = match device {
        Some((size, _)) => ((1u64 << 30).min(size / 2), args.allow_device_writes),
        None => (1 << 30, true),
    };
    // Past the cache several times over, and no more than a sample's.
    let big = big.min(cache * 4).max(16 << 20);
    let mut run = |what: &str, w: Workload, direct: bool| -> Result<f64, Error> {
        errln!("willy: calibrating the model: {what}");
        let s = Setting {
            workload: w,
            engine: 0,
            direct,
            readahead: true,
            scheduler: usize::MAX, // the device's own
        };
        let m = bench.measure(&s, &quick)?;
        Ok(m.iops.max(1e-9))
    };
    let random = run(
        "random 4 KiB O_DIRECT reads",
        Workload::of(big, 4096, 1.0, 0.0, 1),
        true,
    )?;
    let read = run(
        "sequential 1 MiB O_DIRECT reads",
        Workload::of(big, 1 << 20, 1.0, 1.0, 1),
        true,
    )?;
    let write = if writes {
        run(
            "sequential 1 MiB O_DIRECT writes",
            Workload::of(big, 1 << 20, 0.0, 1.0, 1),
            true,
        )?
    } else {
        read
    };
    let small = (16u64 << 20).min(cache / 8).max(1 << 20);
    let c4 = run(
        &format!("random 4 KiB reads of {} in the cache", Bytes(small)),
        Workload::of(small, 4096, 1.0, 0.0, 1),
        false,
    )?;
    let mid = (64u64 << 20).min(cache / 4).max(4 << 20);
    let c1 = run(
        &format!("random 1 MiB reads of {} in the cache", Bytes(mid)),
        Workload::of(mid, 1 << 20, 1.0, 0.0, 1),
        false,
    )?;
    let readahead = match bench {
        Bench::Real { target, .. } => target
            .path()
            .and_then(|p| willy::queue::Queue::of(&p).ok())
            .and_then(|q| q.read_ahead_kb().ok())
            .map_or(DEFAULT_READAHEAD, |kb| kb << 10),
        Bench::Sim(_) => DEFAULT_READAHEAD,
    };
    let mut c = Calibration {
        random_read_4k_ms: 1e3 / random,
        seq_read_mb_per_s: read * 1.048576,
        seq_write_mb_per_s: write * 1.048576,
        cached_4k_ms: 1e3 / c4,
        cached_1m_ms: 1e3 / c1,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        cache_bytes: cache,
        readahead_bytes: readahead,
        model: String::new(),
        elapsed_s: started.elapsed().as_secs_f64(),
    };
    c.model = Layered::calibrated(&c).map_err(Error::Usage)?.describe();
    errln!("willy: the model: {}", c.model);
    let json = serde_json::to_string(&c).expect("plain data");
    std::fs::write(saved, json + "\n")
        .map_err(|e| Error::io(format!("writing {}", saved.display()), e))?;
    Ok(c)
}
