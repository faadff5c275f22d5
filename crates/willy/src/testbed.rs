//! The testbed: what measures workloads on one target. Every subcommand
//! that measures (`run`, `run --scale`, `validate`) and every test harness
//! goes through it, so a target is parsed once ([`TargetArg`]) and
//! simulated versus real is decided in one place.
//!
//! - **Simulated** (`sim:NAME`): each measurement is a fresh simulated
//!   system, in virtual time.
//! - **Files** in a directory, or a **raw device**: the testbed owns the
//!   files (through [`Target`]), keeps them from one measurement to the
//!   next while the next fits them (same uniqueBytes and processNum), and
//!   removes them when a measurement needs others, on
//!   [`Testbed::release`], and when it is dropped. With a cache limit it
//!   owns a memory cgroup beneath willy's own, removed on drop.
//!
//! Several workloads can be measured at once ([`Testbed::measure_together`]):
//! on a simulated system they share one virtual time, its cache and disks;
//! on files each gets its own files, on a device its own regions.

use crate::cgroup::MemoryCgroup;
use crate::report::TargetInfo;
use crate::run::{Measurement, RunConfig, Snapshot};
use crate::sim::SimConfig;
use crate::sysinfo::SystemInfo;
use crate::target::{FillProgress, Part, Target, TargetKind, TargetSpec, DEFAULT_DIR};
use crate::workload::Workload;
use crate::Error;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// A `--target` as given: `sim:NAME`, a path, or nothing (the default
/// directory). Parsed once, here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetArg {
    /// `sim:NAME`: a preset or a JSON file describing a simulated system.
    Sim(String),
    /// A directory or a block device.
    Path(PathBuf),
    /// No target given: [`DEFAULT_DIR`], created if missing.
    Default,
}

impl TargetArg {
    /// Parses a `--target` value.
    pub fn parse(target: Option<&Path>) -> TargetArg {
        match target {
            None => TargetArg::Default,
            Some(p) => match p.to_str().and_then(|s| s.strip_prefix("sim:")) {
                Some(name) => TargetArg::Sim(name.to_string()),
                None => TargetArg::Path(p.to_path_buf()),
            },
        }
    }

    /// True for `sim:NAME`.
    pub fn is_simulated(&self) -> bool {
        matches!(self, TargetArg::Sim(_))
    }

    /// The path of a real target (the default directory when none was
    /// given), `None` for a simulated one.
    pub fn path(&self) -> Option<PathBuf> {
        match self {
            TargetArg::Sim(_) => None,
            TargetArg::Path(p) => Some(p.clone()),
            TargetArg::Default => Some(PathBuf::from(DEFAULT_DIR)),
        }
    }
}

impl std::fmt::Display for TargetArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetArg::Sim(name) => write!(f, "sim:{name}"),
            TargetArg::Path(p) => write!(f, "{}", p.display()),
            TargetArg::Default => f.write_str(DEFAULT_DIR),
        }
    }
}

/// How a testbed measures.
#[derive(Clone, Debug, Default)]
pub struct TestbedOptions {
    /// O_DIRECT on files (a simulated system bypasses its cache).
    pub direct: bool,
    /// Permit writes to a raw device (still refused when it is in use).
    pub allow_device_writes: bool,
    /// Run real measurements in a memory cgroup of this many bytes.
    pub cache_limit: Option<u64>,
    /// Fill files with `--verify` headers.
    pub verify: Option<crate::verify::Level>,
}

/// The (uniqueBytes, processNum) of each workload some files were made for.
type FilesKey = Vec<(u64, u32)>;

enum Bed {
    Sim(Box<SimConfig>),
    Real {
        spec: TargetSpec,
        /// The files of the last measurement, and what they were made for.
        held: Option<(FilesKey, Vec<Target>)>,
    },
}

/// Measures workloads on one target. See the module documentation.
pub struct Testbed {
    target: TargetArg,
    bed: Bed,
    direct: bool,
    cache_limit: Option<u64>,
    cgroup: Option<MemoryCgroup>,
}

impl Testbed {
    /// Opens `target`: loads a simulated system, or checks nothing yet for
    /// a real one (files are made by the first measurement). With a cache
    /// limit on a real target, moves willy into a new memory cgroup.
    pub fn open(target: TargetArg, opts: &TestbedOptions) -> Result<Testbed, Error> {
        let bed = match &target {
            TargetArg::Sim(name) => {
                if opts.cache_limit.is_some() {
                    return Err(Error::Usage(
                        "--cache-limit applies to real targets; a simulated system's cache is set by its preset".into(),
                    ));
                }
                Bed::Sim(Box::new(SimConfig::load(name)?))
            }
            TargetArg::Path(p) => Bed::Real {
                spec: Self::spec(Some(p.clone()), opts),
                held: None,
            },
            TargetArg::Default => Bed::Real {
                spec: Self::spec(None, opts),
                held: None,
            },
        };
        let cgroup = match (&bed, opts.cache_limit) {
            (Bed::Real { .. }, Some(limit)) => {
                let cg = MemoryCgroup::create(limit)?;
                cg.add(std::process::id())?;
                Some(cg)
            }
            _ => None,
        };
        Ok(Testbed {
            target,
            bed,
            direct: opts.direct,
            cache_limit: opts.cache_limit,
            cgroup,
        })
    }

    fn spec(path: Option<PathBuf>, opts: &TestbedOptions) -> TargetSpec {
        TargetSpec {
            path,
            direct: opts.direct,
            allow_device_writes: opts.allow_device_writes,
            verify: opts.verify,
        }
    }

    /// The target as given.
    pub fn target(&self) -> &TargetArg {
        &self.target
    }

    /// True for a simulated system.
    pub fn is_simulated(&self) -> bool {
        matches!(self.bed, Bed::Sim(_))
    }

    /// The simulated system, if it is one.
    pub fn sim(&self) -> Option<&SimConfig> {
        match &self.bed {
            Bed::Sim(s) => Some(s),
            Bed::Real { .. } => None,
        }
    }

    /// Whether measurements use O_DIRECT.
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// The memory cgroup's limit, on a real target.
    pub fn cache_limit(&self) -> Option<u64> {
        self.cgroup.as_ref().and(self.cache_limit)
    }

    /// The memory cgroup willy measures in, if any.
    pub fn cgroup(&self) -> Option<&MemoryCgroup> {
        self.cgroup.as_ref()
    }

    /// The machine, or the simulated system.
    pub fn system(&self) -> SystemInfo {
        match (&self.bed, self.target.path()) {
            (Bed::Sim(s), _) => SystemInfo::simulated(s),
            (Bed::Real { .. }, Some(p)) if p.exists() => SystemInfo::collect(&p),
            _ => SystemInfo::collect(Path::new(".")),
        }
    }

    /// What reports say of the target.
    pub fn info(&self) -> TargetInfo {
        let (path, kind) = match &self.bed {
            Bed::Sim(_) => (self.target.to_string(), TargetKind::Simulated),
            Bed::Real { held, .. } => {
                let kind = held
                    .as_ref()
                    .and_then(|(_, t)| t.first())
                    .map_or(TargetKind::Files, |t| t.kind);
                (self.target.to_string(), kind)
            }
        };
        TargetInfo {
            path,
            kind,
            direct: self.direct || kind == TargetKind::Device,
        }
    }

    /// Makes the files (or device regions) for `ws`, measured together, and
    /// keeps them; reuses the files already held when they fit. Returns
    /// true when they were reused. A simulated system needs nothing.
    pub fn prepare(&mut self, ws: &[Workload], progress: FillProgress) -> Result<bool, Error> {
        let Bed::Real { spec, held } = &mut self.bed else {
            return Ok(false);
        };
        let key: FilesKey = ws
            .iter()
            .map(|w| (w.unique_bytes.0, w.process_num))
            .collect();
        if matches!(held, Some((k, _)) if *k == key) {
            return Ok(true);
        }
        *held = None; // the old files go first
        let mut targets = Vec::with_capacity(ws.len());
        let mut offset = 0;
        for (index, w) in ws.iter().enumerate() {
            targets.push(Target::open_part(
                spec,
                w,
                Part { index, offset },
                progress,
            )?);
            offset += w.total_bytes();
        }
        *held = Some((key, targets));
        Ok(false)
    }

    /// Where the first workload's files (or device regions) are, for fio
    /// to run on the same layout; `None` on a simulated system or before
    /// any files are made.
    pub fn fio_layout(&self) -> Option<crate::fio::Layout> {
        match &self.bed {
            Bed::Real {
                held: Some((_, targets)),
                ..
            } => targets.first().map(Target::fio_layout),
            _ => None,
        }
    }

    /// Removes the files held.
    pub fn release(&mut self) {
        if let Bed::Real { held, .. } = &mut self.bed {
            *held = None;
        }
    }

    /// Measures `w` (making its files first if needed, stopping the filling
    /// when `cfg.interrupt` is set).
    pub fn measure(&mut self, w: &Workload, cfg: &RunConfig) -> Result<Measurement, Error> {
        let mut m = self.measure_together(std::slice::from_ref(w), cfg)?;
        Ok(m.remove(0))
    }

    /// Measures `ws` at once, each with `cfg`'s stopping rule.
    pub fn measure_together(
        &mut self,
        ws: &[Workload],
        cfg: &RunConfig,
    ) -> Result<Vec<Measurement>, Error> {
        let interrupt = cfg.interrupt.clone();
        let mut fill = |_: u64, _: u64| !interrupt.load(Ordering::Relaxed);
        self.measure_observed(ws, cfg, &mut fill, &mut |_| {})
    }

    /// [`Testbed::measure_together`] with progress: `fill` hears the
    /// filling of new files, `observe` the first workload's measurement.
    pub fn measure_observed(
        &mut self,
        ws: &[Workload],
        cfg: &RunConfig,
        fill: FillProgress,
        observe: &mut dyn FnMut(&Snapshot),
    ) -> Result<Vec<Measurement>, Error> {
        if ws.is_empty() {
            return Err(Error::Usage("no workload to measure".into()));
        }
        self.prepare(ws, fill)?;
        match &self.bed {
            Bed::Sim(sim) => Ok(crate::run::run_sim_many(ws, cfg, sim, self.direct)?.0),
            Bed::Real { held, .. } => {
                let (_, targets) = held.as_ref().expect("prepared");
                // The last measurement's writes go to disk now, not during
                // this one.
                for t in targets {
                    t.write_back()?;
                }
                let parts: Vec<(&Workload, &Target)> = ws.iter().zip(targets).collect();
                let before = crate::background::Sample::now();
                let mut ms = crate::run::run_many(&parts, cfg, observe)?;
                let background = before.until(&crate::background::Sample::now());
                ms.iter_mut().for_each(|m| m.background = background);
                Ok(ms)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn w(json: &str) -> Workload {
        Workload::from_json(json).unwrap()
    }

    fn quick() -> RunConfig {
        RunConfig {
            min_duration: Duration::from_secs(2),
            max_duration: Duration::from_secs(20),
            warmup_max: Duration::from_secs(200),
            ..RunConfig::default()
        }
    }

    #[test]
    fn targets_parse_once() {
        assert_eq!(
            TargetArg::parse(Some(Path::new("sim:hdd"))),
            TargetArg::Sim("hdd".into())
        );
        assert_eq!(TargetArg::parse(None), TargetArg::Default);
        assert_eq!(TargetArg::parse(None).to_string(), DEFAULT_DIR);
        let p = TargetArg::parse(Some(Path::new("/tmp/x")));
        assert_eq!(p.path(), Some(PathBuf::from("/tmp/x")));
        assert!(TargetArg::Sim("a".into()).path().is_none());
    }

    #[test]
    fn a_simulated_system_refuses_a_cache_limit() {
        let opts = TestbedOptions {
            cache_limit: Some(1 << 30),
            ..Default::default()
        };
        let e = Testbed::open(TargetArg::Sim("hdd".into()), &opts)
            .err()
            .unwrap();
        assert!(e.to_string().contains("--cache-limit"), "{e}");
    }

    /// Alone, a workload runs as `run_sim` runs it; together, two random
    /// readers of one disk each get less than alone, in one virtual time.
    #[test]
    fn simulated_workloads_run_together_share_the_disk() {
        let mut bed =
            Testbed::open(TargetArg::Sim("raw-disk".into()), &Default::default()).unwrap();
        let a = w(
            r#"{"uniqueBytes":"64MiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
        );
        let cfg = quick();
        let alone = bed.measure(&a, &cfg).unwrap();
        let direct = crate::run::run_sim(&a, &cfg, bed.sim().unwrap(), false)
            .unwrap()
            .0;
        assert_eq!(
            alone.throughput_bytes_per_sec,
            direct.throughput_bytes_per_sec
        );
        let both = bed.measure_together(&[a.clone(), a.clone()], &cfg).unwrap();
        assert_eq!(both.len(), 2);
        for m in &both {
            assert!(
                m.throughput_bytes_per_sec < 0.8 * alone.throughput_bytes_per_sec,
                "shared {} vs alone {}",
                m.throughput_bytes_per_sec,
                alone.throughput_bytes_per_sec
            );
        }
        let sum: f64 = both.iter().map(|m| m.throughput_bytes_per_sec).sum();
        assert!(sum > 0.5 * alone.throughput_bytes_per_sec, "sum {sum}");
    }

    #[test]
    fn files_are_kept_while_they_fit_and_removed_on_release() {
        let dir = tempfile::tempdir().unwrap();
        let mut bed =
            Testbed::open(TargetArg::Path(dir.path().into()), &Default::default()).unwrap();
        let a = w(
            r#"{"uniqueBytes":"2MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":2}"#,
        );
        let mut b = a.clone();
        b.read_frac = 0.5;
        let mut fill = |_: u64, _: u64| true;
        assert!(!bed.prepare(std::slice::from_ref(&a), &mut fill).unwrap());
        assert!(bed.prepare(std::slice::from_ref(&b), &mut fill).unwrap());
        let files = || std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(files(), 2);
        assert!(!bed.prepare(&[a.clone(), b.clone()], &mut fill).unwrap());
        assert_eq!(files(), 4, "two workloads' files side by side");
        bed.release();
        assert_eq!(files(), 0);
    }
}
