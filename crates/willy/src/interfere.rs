//! `willy interfere`: workloads measured alone and together on one target,
//! and what each keeps of its stand-alone efficiency within its share (the
//! R-value of Argon, Wachs et al., FAST'07, section 3.1).
//!
//! Each workload file is a workload (as `willy run --workload` reads it)
//! with optional fields: `share`, its part of the system (the workloads
//! without one split what the others leave evenly), `offset`, where its
//! region starts on a device or simulated storage (by default each starts
//! where the one before it ends), and `cacheLimit`, the memory cgroup of
//! its own process (`willy interfere --processes`). Every workload
//! is measured alone, then all together, with the same stopping rule, on
//! the same files; workload `k` draws the same requests each time. The
//! shared run is *contended* when the storage or the CPUs were busy at
//! least 90% of it, or when a workload got less than its share (its R
//! interval wholly below 1): only then do the R-values measure
//! interference. Otherwise each workload had what it asked for, and R
//! above 1 only says the system had room to spare.

use crate::doc::interference::{
    r_value, Interference, InterferingWorkload, CONTENDED_BUSY, INTERFERENCE_SCHEMA_VERSION,
};
use crate::report::Measurement;
use crate::run::{RunConfig, Snapshot};
use crate::testbed::Testbed;
use crate::units::Bytes;
use crate::workload::Workload;
use crate::Error;
use std::path::Path;

/// A workload of several, as its file gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The file's name.
    pub name: String,
    /// The workload.
    pub workload: Workload,
    /// Its `share`, if given.
    pub share: Option<f64>,
    /// Its `offset`, bytes, if given.
    pub offset: Option<u64>,
    /// Its `cacheLimit`, bytes, if given: run in its own process, in a
    /// memory cgroup of this size.
    pub cache_limit: Option<u64>,
}

impl Member {
    /// Parses a workload file with optional `share` and `offset`.
    pub fn from_json(text: &str, name: &str) -> Result<Member, Error> {
        let bad = |m: String| Error::BadWorkload(format!("{name}: {m}"));
        let mut v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let obj = v
            .as_object_mut()
            .ok_or_else(|| bad("not a JSON object".into()))?;
        let share = match obj.remove("share") {
            None | Some(serde_json::Value::Null) => None,
            Some(s) => match s.as_f64() {
                Some(x) if x > 0.0 && x <= 1.0 => Some(x),
                _ => return Err(bad(format!("share {s} must be a number in (0, 1]"))),
            },
        };
        let offset = match obj.remove("offset") {
            None | Some(serde_json::Value::Null) => None,
            Some(o) => Some(
                serde_json::from_value::<Bytes>(o.clone())
                    .map_err(|_| bad(format!("offset {o} must be a size (e.g. \"1TB\" or 4096)")))?
                    .0,
            ),
        };
        let cache_limit = match obj.remove("cacheLimit") {
            None | Some(serde_json::Value::Null) => None,
            Some(c) => Some(
                serde_json::from_value::<Bytes>(c.clone())
                    .map_err(|_| bad(format!("cacheLimit {c} must be a size (e.g. \"1GiB\")")))?
                    .0,
            ),
        };
        let workload = Workload::from_json(&v.to_string()).map_err(|e| match e {
            Error::BadWorkload(m) => bad(m),
            other => bad(other.to_string()),
        })?;
        Ok(Member {
            name: name.to_string(),
            workload,
            share,
            offset,
            cache_limit,
        })
    }

    /// Reads a workload file.
    pub fn read(path: &Path) -> Result<Member, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Usage(format!("cannot read workload file {}: {e}", path.display()))
        })?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Member::from_json(&text, &name)
    }
}

/// Each member's share: its own, or an even part of what those given leave.
pub fn shares(ms: &[Member]) -> Result<Vec<f64>, Error> {
    let given: f64 = ms.iter().filter_map(|m| m.share).sum();
    let rest = ms.iter().filter(|m| m.share.is_none()).count();
    if given > 1.0 + 1e-9 {
        return Err(Error::Usage(format!(
            "the workloads' shares add up to {given:.3}, more than the whole system (1)"
        )));
    }
    if rest > 0 && given >= 1.0 - 1e-9 {
        return Err(Error::Usage(
            "the shares given leave nothing for the workloads without one".into(),
        ));
    }
    let even = (1.0 - given) / rest.max(1) as f64;
    Ok(ms.iter().map(|m| m.share.unwrap_or(even)).collect())
}

/// Each member's offset: its own, or where the one before it ends.
pub fn offsets(ms: &[Member]) -> Vec<u64> {
    let mut at = 0;
    ms.iter()
        .map(|m| {
            let o = m.offset.unwrap_or(at);
            at = o + m.workload.total_bytes();
            o
        })
        .collect()
}

/// What a measurement is, for progress: `None` for the shared run, or the
/// workload measured alone.
pub type Stage = Option<usize>;

/// Measures `ms` alone and together on `bed`. `observe` hears each
/// measurement's progress, `done` each measurement's results as it ends
/// (one workload's alone, every workload's together).
pub fn measure(
    bed: &mut Testbed,
    ms: &[Member],
    cfg: &RunConfig,
    observe: &mut dyn FnMut(Stage, &Snapshot),
    done: &mut dyn FnMut(Stage, &[Measurement]),
) -> Result<Interference, Error> {
    if ms.len() < 2 {
        return Err(Error::Usage(format!(
            "interference needs two or more workloads (--workload A.json --workload B.json), got {}",
            ms.len()
        )));
    }
    shares(ms)?; // bad shares fail before anything is measured
    let offsets = offsets(ms);
    let ws: Vec<Workload> = ms.iter().map(|m| m.workload.clone()).collect();
    let mut alone = Vec::with_capacity(ms.len());
    for k in 0..ms.len() {
        let (mut m, _) =
            bed.measure_placed(&ws, &offsets, &[k], cfg, &mut |_, _| true, &mut |s| {
                observe(Some(k), s)
            })?;
        done(Some(k), &m);
        alone.push(m.remove(0));
    }
    let all: Vec<usize> = (0..ms.len()).collect();
    let busy = StorageBusy::start(bed.target());
    let (shared, stats) =
        bed.measure_placed(&ws, &offsets, &all, cfg, &mut |_, _| true, &mut |s| {
            observe(None, s)
        })?;
    let storage_busy = match stats {
        Some(s) => Some(s.storage_busy_ns as f64 / s.elapsed_ns.max(1) as f64),
        None => busy.and_then(StorageBusy::fraction),
    };
    done(None, &shared);
    let setting = Setting {
        target: bed.target().to_string(),
        simulated: bed.is_simulated(),
        direct: bed.info().direct,
        engine: cfg.engine,
        seed: cfg.seed,
        insulation: bed
            .sim()
            .and_then(|s| s.insulation.as_ref())
            .and_then(|i| serde_json::to_value(i).ok()),
        processes: false,
    };
    assemble(ms, setting, alone, shared, storage_busy)
}

/// How the workloads were run, for the document.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The target.
    pub target: String,
    /// A simulated system.
    pub simulated: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// The engine.
    pub engine: crate::engine::EngineKind,
    /// The first workload's seed.
    pub seed: u64,
    /// A simulated system's insulation.
    pub insulation: Option<serde_json::Value>,
    /// Each workload in its own process.
    pub processes: bool,
}

/// The document from the measurements: R-values, and whether the shared
/// run was contended (`storage_busy`: the storage's busy fraction during
/// it, if known).
pub fn assemble(
    ms: &[Member],
    setting: Setting,
    alone: Vec<Measurement>,
    shared: Vec<Measurement>,
    storage_busy: Option<f64>,
) -> Result<Interference, Error> {
    let share = shares(ms)?;
    let offsets = offsets(ms);
    let cpu_busy = (!setting.simulated).then(|| cpu_busy(&shared[0])).flatten();
    let bottleneck = if storage_busy.is_some_and(|b| b >= CONTENDED_BUSY) {
        Some("storage".to_string())
    } else if cpu_busy.is_some_and(|b| b >= CONTENDED_BUSY) {
        Some("cpu".to_string())
    } else {
        None
    };
    let workloads = results(ms, &share, &offsets, alone, shared);
    // Below its share with confidence: it competed for something, even if
    // no counter shows a resource busy all the time.
    let lost = workloads
        .iter()
        .any(|w| w.r_value_ci95.map_or(w.r_value < 1.0, |c| c[1] < 1.0));
    Ok(Interference {
        kind: "willy-interference".into(),
        schema_version: INTERFERENCE_SCHEMA_VERSION,
        willy_version: env!("CARGO_PKG_VERSION").into(),
        target: setting.target,
        simulated: setting.simulated,
        direct: setting.direct,
        engine: setting.engine,
        seed: setting.seed,
        insulation: setting.insulation,
        processes: setting.processes,
        contended: bottleneck.is_some() || lost,
        storage_busy,
        cpu_busy,
        bottleneck,
        workloads,
    })
}

/// Each workload's figures and R-value.
fn results(
    ms: &[Member],
    share: &[f64],
    offsets: &[u64],
    alone: Vec<Measurement>,
    shared: Vec<Measurement>,
) -> Vec<InterferingWorkload> {
    ms.iter()
        .zip(alone)
        .zip(shared)
        .enumerate()
        .map(|(k, ((m, a), s))| {
            let (r, ci) = r_value(
                a.throughput_bytes_per_sec,
                a.ci95_rel,
                s.throughput_bytes_per_sec,
                s.ci95_rel,
                share[k],
            );
            InterferingWorkload {
                name: m.name.clone(),
                workload: m.workload.clone(),
                share: share[k],
                cache_limit_bytes: m.cache_limit,
                offset: offsets[k],
                alone_bytes_per_sec: a.throughput_bytes_per_sec,
                alone_ci95_rel: a.ci95_rel,
                shared_bytes_per_sec: s.throughput_bytes_per_sec,
                shared_ci95_rel: s.ci95_rel,
                r_value: r,
                r_value_ci95: ci,
                alone: a,
                shared: s,
            }
        })
        .collect()
}

/// Cores busy during a real measurement (willy's and everything else's),
/// as a fraction of the machine's.
fn cpu_busy(m: &Measurement) -> Option<f64> {
    let other = m.background.as_ref()?.other_cores_busy;
    let cores = std::thread::available_parallelism().ok()?.get() as f64;
    Some(((m.cpu.cores_busy + other) / cores).min(1.0))
}

/// The target's block device's `io_ticks` (ms it had requests in
/// flight), from before a measurement.
pub struct StorageBusy {
    dev: u64,
    ticks: u64,
    at: std::time::Instant,
}

impl StorageBusy {
    /// From now, on `target`'s block device (`None`: not a block device's).
    pub fn start(target: &crate::testbed::TargetArg) -> Option<StorageBusy> {
        let dev = crate::sysinfo::block_device_of(&target.path()?)?;
        Some(StorageBusy {
            ticks: crate::background::io_ticks_now(dev)?,
            dev,
            at: std::time::Instant::now(),
        })
    }

    /// The fraction of the time since [`StorageBusy::start`] the device
    /// had requests in flight.
    pub fn fraction(self) -> Option<f64> {
        let ms = crate::background::io_ticks_now(self.dev)?.saturating_sub(self.ticks) as f64;
        let secs = self.at.elapsed().as_secs_f64();
        (secs > 0.0).then(|| (ms / 1e3 / secs).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(json: &str) -> Result<Member, Error> {
        Member::from_json(json, "w.json")
    }

    #[test]
    fn a_workload_file_may_carry_a_share_and_an_offset() {
        let full = r#""sizeMean":"64KiB","readFrac":1,"seqFrac":1,"processNum":1"#;
        let m = member(&format!(
            r#"{{"uniqueBytes":"1GiB",{full},"share":0.25,"offset":"1TB"}}"#
        ))
        .unwrap();
        assert_eq!(m.share, Some(0.25));
        assert_eq!(m.offset, Some(1_000_000_000_000));
        assert_eq!(m.workload.unique_bytes.0, 1 << 30);
        let plain = member(&format!(r#"{{"uniqueBytes":"1GiB",{full}}}"#)).unwrap();
        assert_eq!((plain.share, plain.offset), (None, None));
        for bad in [
            r#"{"share":0}"#,
            r#"{"share":1.5}"#,
            r#"{"share":"half"}"#,
            r#"{"offset":"far"}"#,
            r#"{"uniqueBytes":"1GiB","sharp":1}"#,
            r#"[1]"#,
        ] {
            let e = member(bad).unwrap_err().to_string();
            assert!(e.contains("w.json"), "{bad}: {e}");
        }
    }

    #[test]
    fn shares_split_what_is_left_and_offsets_follow_each_other() {
        let m = |share: Option<f64>, offset: Option<u64>| Member {
            name: String::new(),
            workload: Workload::of(100, 4096, 1.0, 1.0, 1),
            share,
            offset,
            cache_limit: None,
        };
        assert_eq!(
            shares(&[m(None, None), m(None, None)]).unwrap(),
            vec![0.5, 0.5]
        );
        let s = shares(&[m(Some(0.75), None), m(None, None), m(None, None)]).unwrap();
        assert_eq!(s, vec![0.75, 0.125, 0.125]);
        assert!(shares(&[m(Some(0.75), None), m(Some(0.5), None)]).is_err());
        assert!(shares(&[m(Some(1.0), None), m(None, None)]).is_err());
        let w = Workload::of(100, 4096, 1.0, 1.0, 1).total_bytes();
        assert_eq!(
            offsets(&[
                m(None, None),
                m(None, None),
                m(None, Some(10 * w)),
                m(None, None)
            ]),
            vec![0, w, 10 * w, 11 * w]
        );
    }
}
