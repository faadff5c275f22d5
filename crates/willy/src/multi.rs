//! One workload run on several targets at once (`willy run --target A
//! --target B ...`): its generators spread over the targets, every target
//! loaded while the others are measured, per-target results, their
//! totals, and Barve's rounds over their completions.
//!
//! - **Directories or devices**: one [`Testbed`] per target, each with its
//!   own files (or region), all run together by one core loop.
//! - **Simulated**: the disks of one bus, `sim:NAME:0`, `sim:NAME:1`, ...,
//!   each target's workload on its own disk, in one virtual time.

use crate::report::{DirectionStats, Latency, Measurement, TargetInfo};
use crate::run::RunConfig;
use crate::target::FillProgress;
use crate::testbed::{TargetArg, Testbed, TestbedOptions};
use crate::units::Bytes;
use crate::workload::Workload;
use crate::Error;

/// `w` spread over `targets` targets: target `k` gets `processNum / T`
/// generators (the first `processNum mod T` one more) and their share of
/// uniqueBytes (`uniqueBytes / processNum` each, whole blocks), so that
/// every generator works on as much as it would on one target.
pub fn spread(w: &Workload, targets: usize) -> Result<Vec<Workload>, Error> {
    let t = targets as u32;
    if w.process_num < t {
        return Err(Error::Usage(format!(
            "processNum {} cannot be spread over {targets} targets: each needs a generator (--process-num {targets} or more)",
            w.process_num
        )));
    }
    let per = w.bytes_per_generator();
    Ok((0..t)
        .map(|k| {
            let n = w.process_num / t + u32::from(k < w.process_num % t);
            Workload {
                unique_bytes: Bytes(per * u64::from(n)),
                process_num: n,
                ..w.clone()
            }
        })
        .collect())
}

/// The totals of measurements made at once on several targets: bytes,
/// requests and rates add up. Each target is measured over its own
/// window (all of them loaded throughout); the total's duration is the
/// longest, its confidence the widest of theirs. Latency: the mean over
/// all requests; the percentiles and maximum the largest of the targets'
/// (an upper bound on the total's). CPU time is the whole process's (or
/// the simulated host's) in every target's window, so the total takes the
/// longest window's; the device's busy share is the mean of the targets'
/// devices' (one device shared gives its own), absent if any is unknown.
pub fn total(ms: &[Measurement]) -> Measurement {
    let first = ms[0].clone();
    let longest = ms
        .iter()
        .max_by(|a, b| a.duration_secs.total_cmp(&b.duration_secs))
        .unwrap_or(&first);
    let device_busy_frac = ms
        .iter()
        .map(|m| m.device_busy_frac)
        .sum::<Option<f64>>()
        .map(|b| b / ms.len() as f64);
    let dir = |f: fn(&Measurement) -> &DirectionStats| {
        let reqs: u64 = ms.iter().map(|m| f(m).requests).sum();
        let lat = ms
            .iter()
            .filter_map(|m| f(m).latency_us.as_ref().map(|l| (l, f(m).requests)))
            .fold(None, |acc: Option<(Latency, u64)>, (l, n)| {
                Some(match acc {
                    None => (l.clone(), n),
                    Some((a, an)) => {
                        let w = |x: f64, y: f64| {
                            (x * an as f64 + y * n as f64) / (an + n).max(1) as f64
                        };
                        (
                            Latency {
                                mean: w(a.mean, l.mean),
                                p50: a.p50.max(l.p50),
                                p90: a.p90.max(l.p90),
                                p99: a.p99.max(l.p99),
                                p999: a.p999.max(l.p999),
                                max: a.max.max(l.max),
                            },
                            an + n,
                        )
                    }
                })
            });
        DirectionStats {
            requests: reqs,
            bytes: ms.iter().map(|m| f(m).bytes).sum(),
            throughput_bytes_per_sec: ms.iter().map(|m| f(m).throughput_bytes_per_sec).sum(),
            iops: ms.iter().map(|m| f(m).iops).sum(),
            latency_us: lat.map(|(l, _)| l),
        }
    };
    let reads = dir(|m| &m.reads);
    let writes = dir(|m| &m.writes);
    Measurement {
        throughput_bytes_per_sec: ms.iter().map(|m| m.throughput_bytes_per_sec).sum(),
        iops: ms.iter().map(|m| m.iops).sum(),
        ci95_rel: ms
            .iter()
            .map(|m| m.ci95_rel)
            .try_fold(0.0f64, |a, c| c.map(|c| a.max(c))),
        duration_secs: ms.iter().map(|m| m.duration_secs).fold(0.0, f64::max),
        bytes_transferred: ms.iter().map(|m| m.bytes_transferred).sum(),
        requests: ms.iter().map(|m| m.requests).sum(),
        warmup: crate::report::WarmupInfo {
            secs: ms.iter().map(|m| m.warmup.secs).fold(0.0, f64::max),
            bytes: ms.iter().map(|m| m.warmup.bytes).sum(),
            complete: ms.iter().all(|m| m.warmup.complete),
        },
        stopping: stopping(ms),
        reads,
        writes,
        cpu: longest.cpu.clone(),
        device_busy_frac,
        generators_bytes_per_sec: ms
            .iter()
            .flat_map(|m| m.generators_bytes_per_sec.iter().copied())
            .collect(),
        completions: Default::default(),
        ..first
    }
}

/// Barve's rounds over the measurements' completions (on the span all of
/// them measured); `None` with one target.
pub fn rounds(ms: &[Measurement]) -> Option<f64> {
    let times: Vec<Vec<u64>> = ms.iter().map(|m| m.completions.0.clone()).collect();
    crate::rounds::rounds_kept(&crate::rounds::merge(&times), ms.len())
}

/// What a run on several targets measured: per target, and what each
/// target is.
pub struct Several {
    /// Each target's measurement, in the order given.
    pub measurements: Vec<Measurement>,
    /// Each target as reports describe it.
    pub info: Vec<TargetInfo>,
    /// The machine, or the simulated system.
    pub system: crate::sysinfo::SystemInfo,
}

/// Measures `ws[k]` on `targets[k]`, all at once. Simulated targets must
/// be disks of one bus; real ones are directories or devices, each with
/// its own testbed (the first holds `--cache-limit`'s cgroup, which the
/// whole run is in).
pub fn measure(
    targets: &[TargetArg],
    ws: &[Workload],
    cfg: &RunConfig,
    opts: &TestbedOptions,
    fill: FillProgress,
    observe: &mut dyn FnMut(&crate::run::Snapshot),
) -> Result<Several, Error> {
    if targets.iter().all(TargetArg::is_simulated) {
        return measure_bus(targets, ws, cfg, opts);
    }
    if targets.iter().any(TargetArg::is_simulated) {
        return Err(Error::Usage(
            "the targets of one run are all simulated (disks of one bus) or all real".into(),
        ));
    }
    let mut beds = Vec::with_capacity(targets.len());
    for (k, t) in targets.iter().enumerate() {
        let o = TestbedOptions {
            cache_limit: opts.cache_limit.filter(|_| k == 0),
            ..opts.clone()
        };
        beds.push(Testbed::open(t.clone(), &o)?);
    }
    let measurements = Testbed::measure_apart(&mut beds, ws, cfg, fill, observe)?;
    Ok(Several {
        measurements,
        info: beds.iter().map(Testbed::info).collect(),
        system: beds[0].system(),
    })
}

/// Disks `sim:NAME:k` of one simulated bus: each workload on its disk.
fn measure_bus(
    targets: &[TargetArg],
    ws: &[Workload],
    cfg: &RunConfig,
    opts: &TestbedOptions,
) -> Result<Several, Error> {
    let names: Vec<String> = targets.iter().map(ToString::to_string).collect();
    let specs: Vec<(&str, Option<u32>)> = names
        .iter()
        .map(|n| crate::sim::config::split_disk(n.trim_start_matches("sim:")))
        .collect();
    let (base, _) = specs[0];
    if specs.iter().any(|&(b, k)| b != base || k.is_none()) {
        return Err(Error::Usage(format!(
            "simulated targets run together must be disks of one bus: sim:{base}:0 --target sim:{base}:1 (given: {})",
            names.join(", ")
        )));
    }
    let disks: Vec<u32> = specs.iter().filter_map(|s| s.1).collect();
    if let Some(k) = (1..disks.len()).find(|&i| disks[..i].contains(&disks[i])) {
        return Err(Error::Usage(format!(
            "{} is given twice: each disk is one target",
            names[k]
        )));
    }
    if opts.cache_limit.is_some() {
        return Err(Error::Usage(
            "--cache-limit applies to real targets; a simulated system's cache is set by its preset".into(),
        ));
    }
    let sim = crate::sim::SimConfig::load(base)?;
    let mut offsets = Vec::new();
    for ((&k, w), name) in disks.iter().zip(ws).zip(&names) {
        let (start, len) = sim.disk_range(k)?;
        if w.total_bytes() > len {
            return Err(Error::Usage(format!(
                "{name}: the disk holds {} but its share of the workload is {}",
                Bytes(len),
                Bytes(w.total_bytes())
            )));
        }
        offsets.push(start);
    }
    let all: Vec<usize> = (0..ws.len()).collect();
    let (measurements, _) = crate::run::run_sim_placed(ws, &offsets, &all, cfg, &sim, opts.direct)?;
    let info = names
        .iter()
        .map(|n| TargetInfo {
            path: n.clone(),
            kind: crate::target::TargetKind::Simulated,
            direct: opts.direct,
        })
        .collect();
    Ok(Several {
        measurements,
        info,
        system: crate::sysinfo::SystemInfo::simulated(&sim),
    })
}

/// The targets' stopping rules together: met where every one was, stalled
/// where any was, and each target's own steady state added (the first
/// target's series and settings otherwise).
fn stopping(ms: &[Measurement]) -> crate::report::StoppingInfo {
    crate::report::StoppingInfo {
        target_met: ms.iter().all(|m| m.stopping.target_met),
        stalled: ms.iter().any(|m| m.stopping.stalled),
        transient_intervals: ms
            .iter()
            .map(|m| m.stopping.transient_intervals)
            .max()
            .unwrap_or(0),
        steady_throughput_bytes_per_sec: ms
            .iter()
            .map(|m| m.stopping.steady_throughput_bytes_per_sec)
            .sum(),
        ..ms[0].stopping.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The total's CPU time is the longest window's (the whole
    /// process's), its device busy share the targets' devices' mean.
    #[test]
    fn the_totals_resources_are_the_runs() {
        let m = |secs: f64, cores: f64, busy: Option<f64>| Measurement {
            duration_secs: secs,
            cpu: crate::report::CpuUsage {
                user_secs: cores * secs,
                system_secs: 0.0,
                cores_busy: cores,
            },
            device_busy_frac: busy,
            ..Default::default()
        };
        let t = total(&[m(1.0, 0.5, Some(0.2)), m(2.0, 0.7, Some(0.6))]);
        assert_eq!(t.cpu.cores_busy, 0.7);
        assert!((t.device_busy_frac.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(t.duration_secs, 2.0);
        let t = total(&[m(1.0, 0.5, Some(0.2)), m(1.0, 0.5, None)]);
        assert_eq!(t.device_busy_frac, None);
    }

    proptest! {
        /// Spreading keeps every generator's share and the total.
        #[test]
        fn spreading_keeps_each_generators_share(n in 1u32..40, t in 1usize..8, blocks in 1u64..1000) {
            let w = Workload::of(blocks * 4096 * u64::from(n), 4096, 1.0, 0.0, n);
            match spread(&w, t) {
                Err(_) => prop_assert!(n < t as u32),
                Ok(ws) => {
                    prop_assert_eq!(ws.len(), t);
                    prop_assert_eq!(ws.iter().map(|x| x.process_num).sum::<u32>(), n);
                    prop_assert_eq!(ws.iter().map(|x| x.unique_bytes.0).sum::<u64>(), w.unique_bytes.0);
                    for x in &ws {
                        prop_assert_eq!(x.bytes_per_generator(), w.bytes_per_generator());
                    }
                }
            }
        }
    }
}
