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
    /// Open a raw device through the page cache when `direct` is off
    /// ([`crate::target::TargetSpec::buffered_device`]).
    pub buffered_device: bool,
    /// Permit writes to a raw device (still refused when it is in use).
    pub allow_device_writes: bool,
    /// Run real measurements in a memory cgroup of this many bytes.
    pub cache_limit: Option<u64>,
    /// Fill files with `--verify` headers.
    pub verify: Option<crate::verify::Level>,
    /// Measure as one rank of several ([`crate::cluster`]): this rank runs
    /// its share of every workload's generators, the ranks measure
    /// together, and every measurement is their total.
    pub cluster: Option<crate::cluster::ClusterRef>,
}

/// The least of a shared cache-limit cgroup each rank on a host needs: an
/// MPI rank's own memory (its runtime and willy's) is about 30 MiB, which
/// the cgroup charges beside the page cache.
const MPI_RANK_MEMORY: u64 = 64 << 20;

/// The (uniqueBytes, processNum, offset on a device) of each workload some
/// files were made for.
type FilesKey = Vec<(u64, u32, u64)>;

enum Bed {
    Sim(Box<SimConfig>),
    Real {
        spec: TargetSpec,
        /// The files of the last measurement, and what they were made for.
        held: Option<(FilesKey, Vec<Target>)>,
        /// Whether the files held have been measured on since they were
        /// made ([`remade`]).
        measured: bool,
    },
}

/// Measures workloads on one target. See the module documentation.
pub struct Testbed {
    target: TargetArg,
    bed: Bed,
    direct: bool,
    cache_limit: Option<u64>,
    cgroup: Option<MemoryCgroup>,
    cluster: Option<crate::cluster::ClusterRef>,
    /// Rank 0 of several, telling the others what to do ([`Testbed::lead`]).
    leading: bool,
    /// Where each workload's region starts on a device (or simulated
    /// storage), if not one after the other ([`Testbed::measure_placed`]).
    placement: Option<Vec<u64>>,
    /// `sim:NAME:k`: disk `k` of a bus, as (first byte, bytes) of the
    /// simulated storage.
    sim_disk: Option<(u64, u64)>,
}

/// What the leading rank tells the others ([`Testbed::follow`]).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
enum Command {
    Prepare(Vec<Workload>),
    Measure(Vec<Workload>, RunParams),
    Release,
    Done,
}

/// The stopping rule of a [`RunConfig`], as the leading rank sends it.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct RunParams {
    engine: crate::engine::EngineKind,
    seed: u64,
    interval: std::time::Duration,
    min_duration: std::time::Duration,
    max_duration: std::time::Duration,
    target_ci_rel: f64,
    warmup_min: std::time::Duration,
    warmup_max: std::time::Duration,
    stonewall_bytes: Option<u64>,
    readahead: bool,
}

impl RunParams {
    fn of(c: &RunConfig) -> RunParams {
        RunParams {
            engine: c.engine,
            seed: c.seed,
            interval: c.interval,
            min_duration: c.min_duration,
            max_duration: c.max_duration,
            target_ci_rel: c.target_ci_rel,
            warmup_min: c.warmup_min,
            warmup_max: c.warmup_max,
            stonewall_bytes: c.stonewall_bytes,
            readahead: c.readahead,
        }
    }

    fn config(self, interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>) -> RunConfig {
        RunConfig {
            engine: self.engine,
            seed: self.seed,
            interval: self.interval,
            min_duration: self.min_duration,
            max_duration: self.max_duration,
            target_ci_rel: self.target_ci_rel,
            warmup_min: self.warmup_min,
            warmup_max: self.warmup_max,
            interrupt,
            verify: None,
            cluster: None,
            stonewall_bytes: self.stonewall_bytes,
            hold: None,
            readahead: self.readahead,
            // Pipelining is simulated, and a simulated system runs on one rank.
            pipeline: false,
        }
    }
}

impl Testbed {
    /// Opens `target`: loads a simulated system, or checks nothing yet for
    /// a real one (files are made by the first measurement). With a cache
    /// limit on a real target, moves willy into a new memory cgroup.
    pub fn open(target: TargetArg, opts: &TestbedOptions) -> Result<Testbed, Error> {
        let target = match (&target, &opts.cluster) {
            (TargetArg::Sim(_), Some(_)) => {
                return Err(Error::Usage(
                    "--mpi runs on directories or devices: a simulated system (sim:) lives in one process".into(),
                ))
            }
            (TargetArg::Path(p), Some(c)) => {
                let s = p.to_string_lossy().replace("{rank}", &c.rank().to_string());
                TargetArg::Path(PathBuf::from(s))
            }
            _ => target,
        };
        let mut sim_disk = None;
        let bed = match &target {
            TargetArg::Sim(name) => {
                if opts.cache_limit.is_some() {
                    return Err(Error::Usage(
                        "--cache-limit applies to real targets; a simulated system's cache is set by its preset".into(),
                    ));
                }
                let (base, disk) = crate::sim::config::split_disk(name);
                let sim = SimConfig::load(base)?;
                sim_disk = disk.map(|k| sim.disk_range(k)).transpose()?;
                Bed::Sim(Box::new(sim))
            }
            TargetArg::Path(p) => Bed::Real {
                spec: Self::spec(Some(p.clone()), opts),
                held: None,
                measured: false,
            },
            TargetArg::Default => Bed::Real {
                spec: Self::spec(None, opts),
                held: None,
                measured: false,
            },
        };
        let cgroup = match (&bed, opts.cache_limit, &opts.cluster) {
            (Bed::Real { .. }, Some(limit), None) => {
                let cg = MemoryCgroup::create(limit)?;
                cg.add(std::process::id())?;
                Some(cg)
            }
            (Bed::Real { .. }, Some(limit), Some(c)) => Some(Self::node_cgroup(c.as_ref(), limit)?),
            _ => None,
        };
        Ok(Testbed {
            target,
            bed,
            direct: opts.direct,
            cache_limit: opts.cache_limit,
            cgroup,
            cluster: opts.cluster.clone(),
            leading: false,
            placement: None,
            sim_disk,
        })
    }

    /// One memory cgroup per host for the ranks on it, so that the file
    /// cache a host's ranks share is the limit, as for one process: the
    /// host's first rank makes it, the others join it.
    fn node_cgroup(c: &dyn crate::cluster::Cluster, limit: u64) -> Result<MemoryCgroup, Error> {
        let host = &c.hosts()[c.rank()];
        let leader = c.hosts().iter().position(|h| h == host).unwrap_or(0);
        // Every rank checks the busiest host, so that all refuse together.
        let on = |h: &String| c.hosts().iter().filter(|x| *x == h).count() as u64;
        let busiest = c.hosts().iter().max_by_key(|h| on(h)).unwrap_or(host);
        let here = on(busiest);
        if limit < here * MPI_RANK_MEMORY {
            return Err(Error::Usage(format!(
                "--cache-limit {} is too small for the {here} ranks on {busiest}, which share it: each needs about {} of its own (MPI and willy); pass --cache-limit {} or more",
                crate::units::Bytes(limit),
                crate::units::Bytes(MPI_RANK_MEMORY),
                crate::units::Bytes(here * MPI_RANK_MEMORY)
            )));
        }
        let made = (leader == c.rank()).then(|| MemoryCgroup::create(limit));
        let mine = match &made {
            Some(Ok(cg)) => format!("ok:{}", cg.path().display()),
            Some(Err(e)) => format!("err:{e}"),
            None => String::new(),
        };
        let all = c.exchange(mine.as_bytes())?;
        let theirs = String::from_utf8_lossy(&all[leader]).into_owned();
        let cg = match (made, theirs.split_once(':')) {
            (Some(r), _) => r?,
            (None, Some(("ok", path))) => MemoryCgroup::join(Path::new(path))?,
            (None, _) => {
                let why = theirs.strip_prefix("err:").unwrap_or(&theirs);
                return Err(Error::Usage(format!(
                    "{} could not make the memory cgroup: {why}",
                    crate::cluster::who(c, leader)
                )));
            }
        };
        cg.add(std::process::id())?;
        Ok(cg)
    }

    /// The ranks this testbed measures with, if several.
    pub fn cluster(&self) -> Option<&crate::cluster::ClusterRef> {
        self.cluster.as_ref()
    }

    /// Makes rank 0 of several the leader: from now on each
    /// [`prepare`](Self::prepare), [`measure`](Self::measure) and
    /// [`release`](Self::release) is first sent to the other ranks, which
    /// [`follow`](Self::follow). The others are dismissed when this testbed
    /// is dropped. For `--scale`, whose plan only rank 0 makes.
    pub fn lead(&mut self) {
        self.leading = self.cluster.as_ref().is_some_and(|c| c.rank() == 0);
    }

    fn command(&mut self, cmd: &Command) -> Result<(), Error> {
        if let (true, Some(c)) = (self.leading, &self.cluster) {
            let bytes = serde_json::to_vec(cmd).expect("a command serialises");
            let r = c.exchange(&bytes);
            self.dismissed_by(&r);
            r?;
        }
        Ok(())
    }

    /// A rank but the first: does what the leading rank says, until it is
    /// done. Returns at once with one rank.
    pub fn follow(
        &mut self,
        interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<(), Error> {
        let Some(c) = self.cluster.clone() else {
            return Ok(());
        };
        loop {
            let all = c.exchange(&[])?;
            let cmd: Command = serde_json::from_slice(&all[0]).map_err(|e| {
                Error::Usage(format!(
                    "rank 0 sent a command willy cannot read ({e}): are all ranks the same willy?"
                ))
            })?;
            let go = interrupt.clone();
            let mut fill = move |_: u64, _: u64| !go.load(Ordering::Relaxed);
            match cmd {
                Command::Prepare(ws) => {
                    self.prepare_all(&ws, &mut fill)?;
                }
                Command::Measure(ws, params) => {
                    let cfg = params.config(interrupt.clone());
                    self.measure_here(&ws, &cfg, &mut fill, &mut |_| {})?;
                }
                Command::Release => self.release_here(),
                Command::Done => return Ok(()),
            }
        }
    }

    /// This rank's share of `ws` (all of it with one rank).
    fn local(&self, ws: &[Workload]) -> Vec<Workload> {
        match &self.cluster {
            None => ws.to_vec(),
            Some(c) => ws
                .iter()
                .map(|w| crate::cluster::local_workload(w, c.size(), c.rank()))
                .collect(),
        }
    }

    fn spec(path: Option<PathBuf>, opts: &TestbedOptions) -> TargetSpec {
        TargetSpec {
            path,
            direct: opts.direct,
            buffered_device: opts.buffered_device,
            allow_device_writes: opts.allow_device_writes,
            verify: opts.verify,
            rank: opts.cluster.as_ref().map(|c| c.rank()),
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
        self.placement = None;
        self.command(&Command::Prepare(ws.to_vec()))?;
        let r = self.prepare_all(ws, progress);
        self.dismissed_by(&r);
        r
    }

    /// [`prepare`](Self::prepare) on every rank, each its own share.
    fn prepare_all(&mut self, ws: &[Workload], progress: FillProgress) -> Result<bool, Error> {
        let mine = self.prepare_here(ws, progress);
        let Some(c) = &self.cluster else {
            return mine;
        };
        // Every rank learns whether every rank could make its files, so
        // that none waits for one that gave up.
        let status = mine
            .as_ref()
            .err()
            .map(ToString::to_string)
            .unwrap_or_default();
        let all = c.exchange(status.as_bytes())?;
        if let Some((k, why)) = all
            .iter()
            .enumerate()
            .find(|(k, b)| !b.is_empty() && *k != c.rank())
        {
            if mine.is_ok() {
                return Err(Error::Peer(format!(
                    "{}: {}",
                    crate::cluster::who(c.as_ref(), k),
                    String::from_utf8_lossy(why)
                )));
            }
        }
        mine
    }

    fn prepare_here(&mut self, ws: &[Workload], progress: FillProgress) -> Result<bool, Error> {
        // On a device, a rank's regions follow the ranks' before it.
        let before: Vec<u64> = ws
            .iter()
            .map(|w| match &self.cluster {
                Some(c) => {
                    let (first, _) = crate::cluster::share(w.process_num, c.size(), c.rank());
                    u64::from(first) * w.bytes_per_generator()
                }
                None => 0,
            })
            .collect();
        let offsets = match &self.placement {
            Some(p) if p.len() == ws.len() => p.clone(),
            _ => crate::run::contiguous(ws),
        };
        let locals = self.local(ws);
        let ws = &locals[..];
        let limit = self.cache_limit();
        let Bed::Real {
            spec,
            held,
            measured,
        } = &mut self.bed
        else {
            return Ok(false);
        };
        let key: FilesKey = ws
            .iter()
            .zip(&offsets)
            .map(|(w, &o)| (w.unique_bytes.0, w.process_num, o))
            .collect();
        let total: u64 = ws.iter().map(Workload::total_bytes).sum();
        if held.as_ref().is_some_and(|(k, _)| *k == key) && !remade(*measured, total, limit) {
            return Ok(true);
        }
        *held = None; // the old files go first
        *measured = false;
        let mut targets = Vec::with_capacity(ws.len());
        for (index, w) in ws.iter().enumerate() {
            let part = Part {
                index,
                offset: offsets[index] + before[index],
            };
            targets.push(if w.process_num == 0 {
                Target::idle(spec)
            } else {
                Target::open_part(spec, w, part, progress)?
            });
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
        // A rank that does not answer fails the next measurement instead.
        let _ = self.command(&Command::Release);
        self.release_here();
    }

    fn release_here(&mut self) {
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
        self.placement = None;
        self.command(&Command::Measure(ws.to_vec(), RunParams::of(cfg)))?;
        let r = self.measure_here(ws, cfg, fill, observe);
        self.dismissed_by(&r);
        r
    }

    /// Makes the files (or device regions) for `ws` at `offsets`, as
    /// [`measure_placed`](Self::measure_placed) will use them.
    pub fn prepare_placed(
        &mut self,
        ws: &[Workload],
        offsets: &[u64],
        fill: FillProgress,
    ) -> Result<bool, Error> {
        if self.cluster.is_some() {
            return Err(Error::Usage(
                "workloads placed apart are not run on several ranks".into(),
            ));
        }
        self.placement = Some(offsets.to_vec());
        self.prepare_all(ws, fill)
    }

    /// Measures the workloads `active` of `ws` at once (one alone, or all
    /// together: what `willy interfere` compares), with workload `k`'s
    /// files made for all of `ws` and kept between calls, its region of a
    /// device or of the simulated storage at `offsets[k]`, and its own
    /// requests whichever others run. Returns the measurements, in
    /// `active`'s order, and on a simulated system its counters.
    pub fn measure_placed(
        &mut self,
        ws: &[Workload],
        offsets: &[u64],
        active: &[usize],
        cfg: &RunConfig,
        fill: FillProgress,
        observe: &mut dyn FnMut(&Snapshot),
    ) -> Result<(Vec<Measurement>, Option<crate::sim::SimStats>), Error> {
        if self.cluster.is_some() {
            return Err(Error::Usage(
                "workloads placed apart are not run on several ranks".into(),
            ));
        }
        if active.is_empty() || active.iter().any(|&k| k >= ws.len()) || offsets.len() != ws.len() {
            return Err(Error::Usage("no workload to measure".into()));
        }
        if let Bed::Sim(sim) = &self.bed {
            let offsets = self.on_disk(ws, offsets)?;
            let (ms, stats) =
                crate::run::run_sim_placed(ws, &offsets, active, cfg, sim, self.direct)?;
            return Ok((ms, Some(stats)));
        }
        // A workload alone draws what it draws among the others (workload
        // k's generators are seeded with seed + k).
        let seeded;
        let cfg = if let [k] = active {
            seeded = RunConfig {
                seed: cfg.seed.wrapping_add(*k as u64),
                ..cfg.clone()
            };
            &seeded
        } else {
            cfg
        };
        self.placement = Some(offsets.to_vec());
        self.prepare_all(ws, fill)?;
        self.measuring();
        let Bed::Real { held, .. } = &self.bed else {
            unreachable!("a real target")
        };
        let (_, targets) = held.as_ref().expect("prepared");
        let parts: Vec<(&Workload, &Target)> =
            active.iter().map(|&k| (&ws[k], &targets[k])).collect();
        let all: Vec<&Target> = targets.iter().collect();
        let (mut ms, background) = run_real(&all, &parts, cfg, observe)?;
        ms.iter_mut().for_each(|m| m.background = background);
        Ok((ms, None))
    }

    /// Measures `ws[k]` on `beds[k]`'s real target, all at once in one
    /// core loop (`willy run` on several targets): each testbed makes (or
    /// keeps) its files for its workload first.
    pub fn measure_apart(
        beds: &mut [Testbed],
        ws: &[Workload],
        cfg: &RunConfig,
        fill: FillProgress,
        observe: &mut dyn FnMut(&Snapshot),
    ) -> Result<Vec<Measurement>, Error> {
        if beds.len() != ws.len() || ws.is_empty() {
            return Err(Error::Usage("one workload per target".into()));
        }
        for (b, w) in beds.iter_mut().zip(ws) {
            if b.cluster.is_some() || b.is_simulated() {
                return Err(Error::Usage(
                    "several targets at once are directories or devices, on one rank".into(),
                ));
            }
            b.placement = None;
            b.prepare_all(std::slice::from_ref(w), &mut *fill)?;
            b.measuring();
        }
        let targets: Vec<&Target> = beds
            .iter()
            .map(|b| match &b.bed {
                Bed::Real {
                    held: Some((_, t)), ..
                } => &t[0],
                _ => unreachable!("prepared"),
            })
            .collect();
        let parts: Vec<(&Workload, &Target)> = ws.iter().zip(targets.iter().copied()).collect();
        let (mut ms, background) = run_real(&targets, &parts, cfg, observe)?;
        ms.iter_mut().for_each(|m| m.background = background);
        Ok(ms)
    }

    /// Offsets on the simulated storage: on the addressed disk of a bus
    /// (`sim:NAME:k`), which must hold the workloads, else as given.
    fn on_disk(&self, ws: &[Workload], offsets: &[u64]) -> Result<Vec<u64>, Error> {
        let Some((start, len)) = self.sim_disk else {
            return Ok(offsets.to_vec());
        };
        let end = ws
            .iter()
            .zip(offsets)
            .map(|(w, o)| o + w.total_bytes())
            .max()
            .unwrap_or(0);
        if end > len {
            return Err(Error::Usage(format!(
                "{}: the disk holds {} but the workloads need {}",
                self.target,
                crate::units::Bytes(len),
                crate::units::Bytes(end)
            )));
        }
        Ok(offsets.iter().map(|o| o + start).collect())
    }

    /// After a failure every rank knows of, the other ranks have stopped
    /// following: nothing more is sent to them (nor waited for).
    fn dismissed_by<T>(&mut self, r: &Result<T, Error>) {
        if r.is_err() {
            self.leading = false;
        }
    }

    /// Notes that the files held are about to be measured on ([`remade`]).
    fn measuring(&mut self) {
        if let Bed::Real { measured, .. } = &mut self.bed {
            *measured = true;
        }
    }

    /// [`measure_observed`](Self::measure_observed) on every rank.
    fn measure_here(
        &mut self,
        ws: &[Workload],
        cfg: &RunConfig,
        fill: FillProgress,
        observe: &mut dyn FnMut(&Snapshot),
    ) -> Result<Vec<Measurement>, Error> {
        self.prepare_all(ws, fill)?;
        self.measuring();
        let (locals, clustered);
        let (ws, cfg) = match &self.cluster {
            None => (ws, cfg),
            Some(c) => {
                locals = self.local(ws);
                clustered = RunConfig {
                    cluster: Some(c.clone()),
                    // Each rank's generators draw their own streams.
                    seed: cfg.seed.wrapping_add((c.rank() as u64) << 32),
                    ..cfg.clone()
                };
                (&locals[..], &clustered)
            }
        };
        match &self.bed {
            Bed::Sim(sim) if self.sim_disk.is_some() => {
                let offsets = self.on_disk(ws, &crate::run::contiguous(ws))?;
                let all: Vec<usize> = (0..ws.len()).collect();
                Ok(crate::run::run_sim_placed(ws, &offsets, &all, cfg, sim, self.direct)?.0)
            }
            Bed::Sim(sim) => Ok(crate::run::run_sim_many(ws, cfg, sim, self.direct)?.0),
            Bed::Real { held, .. } => {
                let (_, targets) = held.as_ref().expect("prepared");
                let parts: Vec<(&Workload, &Target)> = ws.iter().zip(targets).collect();
                let all: Vec<&Target> = targets.iter().collect();
                let (mut ms, mut background) = run_real(&all, &parts, cfg, observe)?;
                if let (Some(c), Some(info)) = (&self.cluster, ms[0].cluster.as_ref()) {
                    // The other ranks on this host are willy too.
                    let host = &c.hosts()[c.rank()];
                    let others: f64 = info
                        .ranks
                        .iter()
                        .filter(|r| &r.host == host && r.rank != c.rank())
                        .map(|r| r.cores_busy)
                        .sum();
                    background = background.map(|b| b.less_cores(others));
                }
                ms.iter_mut().for_each(|m| m.background = background);
                Ok(ms)
            }
        }
    }
}

/// Whether files held for the same workloads are made anew before a
/// measurement: where they were measured on and all of them (`total`
/// bytes) outgrow the memory cgroup's `limit`. What a measurement leaves
/// in the cache decides part of the next one there, and nothing short of
/// new files puts the cache back as new files leave it. Files made and not
/// yet measured on are kept, as are files that fit the cache: once read,
/// they stay cached whatever ran on them.
///
/// On this machine, eleven generators over 2.10 GiB under a 1 GiB cgroup
/// (4 KiB requests, 88% reads; docs/PERFORMANCE.md, "Measured again"):
/// 2.3-2.9 GB/s on new files, steady for 40 s, and 0.75-0.85 GB/s measured
/// again after the pages were dropped and the files' last GiB read back
/// in order (the same files cached right after, but while measuring, four
/// shares cached whole on new files against five missing 2-13% each).
/// 1 MiB requests with sixteen generators over 3.2 GiB went the other way:
/// 1.6 GB/s on new files, 4.6 measured again.
fn remade(measured: bool, total: u64, limit: Option<u64>) -> bool {
    measured && limit.is_some_and(|l| total > l)
}

/// Measures `parts` on files or a device: the last measurement's writes go
/// to disk now, not during this one, and the machine's background is
/// sampled around the run.
fn run_real(
    targets: &[&Target],
    parts: &[(&Workload, &Target)],
    cfg: &RunConfig,
    observe: &mut dyn FnMut(&Snapshot),
) -> Result<(Vec<Measurement>, Option<crate::background::Background>), Error> {
    for t in targets {
        t.write_back()?;
        t.advise_readahead(cfg.readahead)?;
    }
    let before = crate::background::Sample::now();
    let ms = crate::run::run_many(parts, cfg, observe)?;
    Ok((ms, before.until(&crate::background::Sample::now())))
}

impl Drop for Testbed {
    fn drop(&mut self) {
        // The other ranks go home (an error here: they were stopped anyway).
        let _ = self.command(&Command::Done);
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

    /// Runs `w` on `n` ranks (threads, `Threads` transport) in `dir`;
    /// `cfg_of(rank)` gives each rank its stopping rule.
    fn on_ranks(
        n: usize,
        dir: &Path,
        w: &Workload,
        cfg_of: impl Fn(usize) -> RunConfig,
    ) -> Vec<Result<Measurement, Error>> {
        let ranks = crate::cluster::Threads::ranks(n, &["node-a", "node-b"]);
        let handles: Vec<_> = ranks
            .into_iter()
            .map(|c| {
                let (dir, w, cfg) = (dir.to_path_buf(), w.clone(), cfg_of(c.rank()));
                std::thread::spawn(move || {
                    let opts = TestbedOptions {
                        cluster: Some(c),
                        ..Default::default()
                    };
                    let mut bed = Testbed::open(TargetArg::Path(dir), &opts)?;
                    bed.measure(&w, &cfg)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    fn short() -> RunConfig {
        RunConfig {
            interval: Duration::from_millis(100),
            min_duration: Duration::from_millis(600),
            max_duration: Duration::from_secs(2),
            warmup_min: Duration::from_millis(100),
            warmup_max: Duration::from_secs(2),
            ..RunConfig::default()
        }
    }

    /// Three ranks share five generators (2, 2, 1); each runs its own
    /// files, gone once created; every rank gets the same total, which is
    /// the sum of the ranks' figures, over the same intervals.
    #[test]
    fn ranks_measure_together_and_their_figures_sum_to_the_total() {
        let dir = tempfile::tempdir().unwrap();
        let a = w(
            r#"{"uniqueBytes":"10MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":5}"#,
        );
        let ms: Vec<Measurement> = on_ranks(3, dir.path(), &a, |_| short())
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let total = &ms[0];
        let c = total.cluster.as_ref().expect("per-rank figures");
        let gens: Vec<u32> = c.ranks.iter().map(|r| r.generators).collect();
        assert_eq!(gens, [2, 2, 1]);
        let sum: f64 = c.ranks.iter().map(|r| r.throughput_bytes_per_sec).sum();
        assert!((sum / total.throughput_bytes_per_sec - 1.0).abs() < 1e-9);
        let bytes: u64 = c.ranks.iter().map(|r| r.bytes).sum();
        assert_eq!(bytes, total.bytes_transferred);
        assert_eq!(c.nodes.len(), 2);
        assert_eq!(c.nodes[0].ranks, [0, 2]);
        assert!(c.start_skew_secs >= 0.0 && c.start_skew_secs < 1.0);
        for m in &ms[1..] {
            assert_eq!(m.throughput_bytes_per_sec, total.throughput_bytes_per_sec);
            assert_eq!(m.stopping.intervals, total.stopping.intervals);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// `{rank}` in a target path is each rank's number (node-local paths).
    #[test]
    fn each_rank_finds_its_own_directory() {
        let dir = tempfile::tempdir().unwrap();
        for r in 0..2 {
            std::fs::create_dir(dir.path().join(format!("r{r}"))).unwrap();
        }
        let a = w(
            r#"{"uniqueBytes":"2MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":2}"#,
        );
        for m in on_ranks(2, &dir.path().join("r{rank}"), &a, |_| short()) {
            assert!(m.unwrap().throughput_bytes_per_sec > 0.0);
        }
        // Rank 2's directory is missing: it says so, the others name it.
        let mut b = a.clone();
        b.process_num = 3;
        let r = on_ranks(3, &dir.path().join("r{rank}"), &b, |_| short());
        let e: Vec<String> = r.into_iter().map(|m| m.unwrap_err().to_string()).collect();
        assert!(e[2].contains("r2"), "{e:?}");
        assert!(
            e[0].starts_with("rank 2 on node-a: ") && e[0].contains("r2"),
            "{e:?}"
        );
    }

    /// A rank interrupted in the middle stops every rank; the others name it.
    #[test]
    fn a_rank_that_stops_stops_every_rank_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let a = w(
            r#"{"uniqueBytes":"4MiB","sizeMean":"4KiB","readFrac":0.5,"seqFrac":0,"processNum":2}"#,
        );
        let results = on_ranks(2, dir.path(), &a, |rank| {
            let cfg = RunConfig {
                max_duration: Duration::from_secs(30),
                target_ci_rel: 1e-9,
                ..short()
            };
            if rank == 1 {
                let flag = cfg.interrupt.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(800));
                    flag.store(true, Ordering::SeqCst);
                });
            }
            cfg
        });
        assert!(
            matches!(results[1], Err(Error::Interrupted)),
            "{:?}",
            results[1]
        );
        let e = results[0].as_ref().unwrap_err().to_string();
        assert!(
            e.contains("rank 1 on node-b") && e.contains("interrupted"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn files_are_made_anew_only_where_measured_on_and_beyond_the_cache() {
        let gib = 1u64 << 30;
        assert!(remade(true, 2 * gib, Some(gib)));
        assert!(!remade(false, 2 * gib, Some(gib)), "made, not measured on");
        assert!(!remade(true, gib, Some(gib)), "they fit the cache");
        assert!(!remade(true, 2 * gib, None), "no cgroup: no limit");
    }

    /// Under a memory cgroup (root only): files made and not yet measured
    /// on are measured as they are, files measured on are made anew where
    /// they outgrow the cgroup, and kept where they fit it. The testbed
    /// moves its process into the cgroup, so the test runs alone in a
    /// process of its own.
    #[test]
    fn files_measured_again_beyond_the_cache_are_new_files() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: memory cgroups need root");
            return;
        }
        let inner = "testbed::tests::measured_again_in_a_memory_cgroup";
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([inner, "--exact", "--ignored", "--test-threads=1"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("1 passed"), "{text}");
    }

    #[test]
    #[ignore = "run alone by files_measured_again_beyond_the_cache_are_new_files"]
    fn measured_again_in_a_memory_cgroup() {
        // Not /tmp, which may be tmpfs, whose pages never leave memory.
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target"));
        std::fs::create_dir_all(&root).unwrap();
        let dir = tempfile::tempdir_in(&root).unwrap();
        let opts = TestbedOptions {
            cache_limit: Some(64 << 20),
            ..Default::default()
        };
        let mut bed = Testbed::open(TargetArg::Path(dir.path().into()), &opts).unwrap();
        let cfg = RunConfig {
            min_duration: Duration::from_millis(500),
            max_duration: Duration::from_millis(500),
            interval: Duration::from_millis(50),
            warmup_max: Duration::from_millis(100),
            warmup_min: Duration::from_millis(100),
            ..RunConfig::default()
        };
        let mut written = 0u64;
        let mut times = |bed: &mut Testbed, w: &Workload, prepare: bool| {
            let before = written;
            let mut fill = |done: u64, _: u64| {
                written = written.max(before + done);
                true
            };
            if prepare {
                bed.prepare(std::slice::from_ref(w), &mut fill).unwrap();
            } else {
                bed.measure_observed(std::slice::from_ref(w), &cfg, &mut fill, &mut |_| {})
                    .unwrap();
            }
            written - before
        };
        let big = w(
            r#"{"uniqueBytes":"96MiB","sizeMean":"64KiB","readFrac":1,"seqFrac":0,"processNum":2}"#,
        );
        assert!(times(&mut bed, &big, true) > 0, "made");
        assert_eq!(times(&mut bed, &big, false), 0, "made, not measured on");
        assert!(
            times(&mut bed, &big, false) > 0,
            "measured again: made anew"
        );
        let small = w(
            r#"{"uniqueBytes":"8MiB","sizeMean":"64KiB","readFrac":1,"seqFrac":0,"processNum":2}"#,
        );
        assert!(times(&mut bed, &small, false) > 0, "other files");
        assert_eq!(times(&mut bed, &small, false), 0, "they fit: kept");
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
