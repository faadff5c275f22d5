//! The core loop: closed-loop generators driving an engine, timed here.
//!
//! # Phases
//! 1. **Warm start.** The workload runs unmeasured until the generators
//!    together have moved `uniqueBytes` bytes (Chen: run the workload once
//!    and discard that run) and at least `warmup_min` has passed, or until
//!    `warmup_max`, whichever is first. The report says which.
//! 2. **Measurement.** Time is cut into intervals of `interval`. A request
//!    counts in the interval in which it completes. After each interval the
//!    batch-means 95% interval of mean throughput ([`crate::stats`]) is
//!    computed; the run stops once its relative half-width is at most
//!    `target_ci_rel` and `min_duration` has passed, or at `max_duration`.
//!    Throughput is the bytes of the measured intervals over their length;
//!    requests in flight at the end are drained and not counted.
//!
//! Latency is stamped here, right before `submit` and right after `reap`,
//! identically for every engine.

use crate::engine::{self, Completion, Engine, EngineKind, Io, Resources};
use crate::generator::{Generator, Op};
pub use crate::report::Measurement;
use crate::report::{CpuUsage, DirectionStats, Latency, StoppingInfo, WarmupInfo};
use crate::stats::{batch_means, stalled};
use crate::target::Target;
use crate::workload::Workload;
use crate::Error;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How to run and when to stop.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The engine.
    pub engine: EngineKind,
    /// Seed of the generators.
    pub seed: u64,
    /// Measurement interval (default 250 ms).
    pub interval: Duration,
    /// Shortest measurement (default 5 s).
    pub min_duration: Duration,
    /// Longest measurement (default 60 s).
    pub max_duration: Duration,
    /// Target relative half-width of the 95% interval (default 0.05).
    pub target_ci_rel: f64,
    /// Shortest warm start (default 1 s).
    pub warmup_min: Duration,
    /// Longest warm start (default 60 s).
    pub warmup_max: Duration,
    /// Set from outside (Ctrl-C) to stop the run.
    pub interrupt: Arc<AtomicBool>,
    /// Stamp every block written and check every block read
    /// ([`crate::verify`]); real targets only.
    pub verify: Option<crate::verify::Level>,
    /// Run as one rank of several ([`crate::cluster`]): the ranks start
    /// and stop measuring together, on the sum of their throughputs.
    pub cluster: Option<crate::cluster::ClusterRef>,
    /// With `cluster`: stop when the first rank has moved this many bytes
    /// in the measurement (IOR's stonewalling) instead of on the rule.
    pub stonewall_bytes: Option<u64>,
    /// Once measured, go on loading the system until this is set (or the
    /// run is interrupted or fails): one of several workloads run by
    /// separate processes (`willy interfere --processes`).
    pub hold: Option<Arc<AtomicBool>>,
    /// Read-ahead on (the default). Off: `posix_fadvise(POSIX_FADV_RANDOM)`
    /// on every file before the run; a simulated system's read-ahead set
    /// to 0.
    pub readahead: bool,
    /// Barve's pipelining (section 5): with each read, an asynchronous
    /// read of the one sector before the generator's next block, so that
    /// the disk positions for it and reads it ahead into its buffer while
    /// the bus serves others ([`Engine::prefetch`]). Simulated systems.
    pub pipeline: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            engine: EngineKind::Psync,
            seed: 1,
            interval: Duration::from_millis(250),
            min_duration: Duration::from_secs(5),
            max_duration: Duration::from_secs(60),
            target_ci_rel: 0.05,
            warmup_min: Duration::from_secs(1),
            warmup_max: Duration::from_secs(60),
            interrupt: Arc::new(AtomicBool::new(false)),
            verify: None,
            cluster: None,
            stonewall_bytes: None,
            hold: None,
            readahead: true,
            pipeline: false,
        }
    }
}

impl RunConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::Usage(m.to_string()));
        let show = |d: Duration| humantime::format_duration(d).to_string();
        if self.interval.is_zero() {
            return bad("--interval must be more than 0 (e.g. 250ms)");
        }
        if self.max_duration < self.min_duration {
            return bad(&format!(
                "--max-time {} is below --min-time {}: pass --max-time {} or more, or a shorter --min-time",
                show(self.max_duration),
                show(self.min_duration),
                show(self.min_duration)
            ));
        }
        let least = self.interval * crate::stats::MIN_BATCHES as u32;
        if self.max_duration < least {
            return bad(&format!(
                "--max-time {} holds fewer than {} intervals of {}: pass --max-time {} or more, or a shorter --interval",
                show(self.max_duration),
                crate::stats::MIN_BATCHES,
                show(self.interval),
                show(least)
            ));
        }
        if !(self.target_ci_rel > 0.0 && self.target_ci_rel < 1.0) {
            return bad("the target confidence half-width must be between 0 and 1 (e.g. 0.05)");
        }
        if self.warmup_max < self.warmup_min {
            return bad(&format!(
                "--warmup-max {} is below --warmup-min {}: pass --warmup-max {} or more",
                show(self.warmup_max),
                show(self.warmup_min),
                show(self.warmup_min)
            ));
        }
        Ok(())
    }
}

/// What the progress display is told, a few times a second.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// True once the warm start is over.
    pub measuring: bool,
    /// True once the measurement is over (the run may go on loading the
    /// system for others).
    pub done: bool,
    /// Seconds in the current phase.
    pub phase_secs: f64,
    /// Bytes moved in the warm start so far.
    pub warmup_bytes: u64,
    /// Bytes the warm start aims at (uniqueBytes).
    pub warmup_target_bytes: u64,
    /// Warm-up time limit, seconds.
    pub warmup_max_secs: f64,
    /// Measured intervals so far.
    pub intervals: u64,
    /// Throughput so far, bytes per second.
    pub throughput: f64,
    /// Current relative half-width (infinite until computable).
    pub ci_rel: f64,
    /// Target relative half-width.
    pub target_ci_rel: f64,
    /// Maximum duration, seconds.
    pub max_secs: f64,
}

#[derive(Default)]
struct Bucket {
    read_bytes: AtomicU64,
    reads: AtomicU64,
    write_bytes: AtomicU64,
    writes: AtomicU64,
}

/// One worker's counters, written by that worker only (plain load + store,
/// no locked instructions, no cache line shared with another writer).
#[repr(align(128))]
struct Lane {
    warm_bytes: AtomicU64,
    buckets: Box<[Bucket]>,
}

/// Adds to a counter that only the calling worker writes.
fn bump(a: &AtomicU64, x: u64) {
    a.store(a.load(Relaxed) + x, Relaxed);
}

/// Shared between the workers: the phase, the interval buckets and the
/// stopping decision. On the request path a worker only writes its own
/// [`Lane`]; the phase is checked at most every `check_every` ns.
struct Meter {
    t0: u64,
    interval: u64,
    min: u64,
    max: u64,
    target_rel: f64,
    warm_target: u64,
    warm_min: u64,
    warm_max: u64,
    measure_start: AtomicU64,
    lanes: Vec<Lane>,
    intervals_max: usize,
    next_check: AtomicU64,
    check_every: u64,
    evaluated: AtomicU64,
    final_intervals: AtomicU64,
    done: AtomicBool,
    ci_rel_bits: AtomicU64,
    interrupt: Arc<AtomicBool>,
    failure: Mutex<Option<Error>>,
    /// CPU (user, system) seconds at the start and the end of the measurement.
    cpu: Mutex<(Option<CpuSecs>, Option<CpuSecs>)>,
    /// The engine's own count of its resources (the simulator's), with
    /// its clock, when the measurement started and when it stopped.
    resources: Mutex<[Option<(u64, Resources)>; 2]>,
    /// How many of those are noted (0 to 2): read without the lock.
    resources_noted: std::sync::atomic::AtomicU8,
    /// The block device under a real target (`st_rdev` of a device,
    /// `st_dev` of a directory's filesystem), whose `io_ticks` are read
    /// when the measurement starts and when it stops.
    device: Option<u64>,
    /// Those `io_ticks`, ms.
    io_ticks: Mutex<[Option<u64>; 2]>,
    /// One rank of several: the phases move on in rounds
    /// ([`crate::cluster::Coordinator`]), not in `tick`.
    clustered: bool,
    /// When the measurement started, wall clock (seconds since the epoch).
    start_wall: Mutex<f64>,
    /// [`RunConfig::hold`].
    hold: Option<Arc<AtomicBool>>,
    /// A failure is recorded.
    failed: AtomicBool,
}

const NOT_YET: u64 = u64::MAX;

/// (user, system) CPU seconds.
type CpuSecs = (f64, f64);

impl Meter {
    fn new(cfg: &RunConfig, w: &Workload, t0: u64, lanes: usize) -> Meter {
        let interval = cfg.interval.as_nanos() as u64;
        let max = cfg.max_duration.as_nanos() as u64;
        let intervals_max = (max.div_ceil(interval) + 2) as usize;
        Meter {
            t0,
            interval,
            min: cfg.min_duration.as_nanos() as u64,
            max,
            target_rel: cfg.target_ci_rel,
            warm_target: w.total_bytes(),
            warm_min: cfg.warmup_min.as_nanos() as u64,
            warm_max: cfg.warmup_max.as_nanos() as u64,
            measure_start: AtomicU64::new(NOT_YET),
            lanes: (0..lanes)
                .map(|_| Lane {
                    warm_bytes: AtomicU64::new(0),
                    buckets: (0..intervals_max).map(|_| Bucket::default()).collect(),
                })
                .collect(),
            intervals_max,
            next_check: AtomicU64::new(0),
            check_every: (interval / 4).min(10_000_000),
            evaluated: AtomicU64::new(0),
            final_intervals: AtomicU64::new(0),
            done: AtomicBool::new(false),
            ci_rel_bits: AtomicU64::new(f64::INFINITY.to_bits()),
            interrupt: cfg.interrupt.clone(),
            failure: Mutex::new(None),
            cpu: Mutex::new((None, None)),
            resources: Mutex::new([None, None]),
            resources_noted: std::sync::atomic::AtomicU8::new(0),
            device: None,
            io_ticks: Mutex::new([None, None]),
            clustered: cfg.cluster.is_some(),
            start_wall: Mutex::new(0.0),
            hold: cfg.hold.clone(),
            failed: AtomicBool::new(false),
        }
    }

    /// Counts a completion at `t` in worker `lane`'s counters; true if it
    /// falls in the measurement.
    fn record(&self, lane: usize, t: u64, op: Op, bytes: u64) -> bool {
        let lane = &self.lanes[lane];
        let ms = self.measure_start.load(Acquire);
        if t < ms {
            bump(&lane.warm_bytes, bytes);
            return false;
        }
        let i = ((t - ms) / self.interval) as usize;
        let Some(b) = lane.buckets.get(i) else {
            return false;
        };
        if self.done.load(Relaxed) && i as u64 >= self.final_intervals.load(Relaxed) {
            return false;
        }
        match op {
            Op::Read => {
                bump(&b.read_bytes, bytes);
                bump(&b.reads, 1);
            }
            Op::Write => {
                bump(&b.write_bytes, bytes);
                bump(&b.writes, 1);
            }
        }
        true
    }

    fn warm_bytes(&self) -> u64 {
        self.lanes.iter().map(|l| l.warm_bytes.load(Relaxed)).sum()
    }

    /// One counter of interval `i`, summed over the lanes.
    fn total(&self, i: usize, f: fn(&Bucket) -> &AtomicU64) -> u64 {
        self.lanes
            .iter()
            .map(|l| f(&l.buckets[i]).load(Relaxed))
            .sum()
    }

    fn series(&self, n: u64) -> Vec<f64> {
        let secs = self.interval as f64 / 1e9;
        (0..(n as usize).min(self.intervals_max))
            .map(|i| {
                (self.total(i, |b| &b.read_bytes) + self.total(i, |b| &b.write_bytes)) as f64 / secs
            })
            .collect()
    }

    /// Moves the phase on at time `t`: ends the warm start, evaluates the
    /// stopping rule at interval boundaries. Any thread may call it.
    fn tick(&self, t: u64) {
        if self.done.load(Relaxed) {
            return;
        }
        let due = self.next_check.load(Relaxed);
        if t < due
            || self
                .next_check
                .compare_exchange(due, t + self.check_every, Relaxed, Relaxed)
                .is_err()
        {
            return; // checked recently, or another thread is checking
        }
        if self.interrupt.load(Relaxed) {
            self.stop_now();
            return;
        }
        if self.clustered {
            return;
        }
        let ms = self.measure_start.load(Acquire);
        if ms == NOT_YET {
            if self.warm_due(t) {
                self.start(t);
            }
            return;
        }
        // A completion can come long after the maximum (one request slower
        // than the whole run, or a simulated clock jumping): the measurement
        // still ends at the maximum, and what completes later is not counted.
        let k = (t.saturating_sub(ms) / self.interval).min(self.max.div_ceil(self.interval));
        let seen = self.evaluated.load(Relaxed);
        if k <= seen
            || self
                .evaluated
                .compare_exchange(seen, k, AcqRel, Relaxed)
                .is_err()
        {
            return;
        }
        let series = self.series(k);
        let ci = batch_means(&series);
        self.ci_rel_bits.store(ci.rel().to_bits(), Relaxed);
        let elapsed = k * self.interval;
        let met = ci.rel() <= self.target_rel && !stalled(&series);
        if (elapsed >= self.min && met) || elapsed >= self.max {
            self.stop_at(k);
        }
    }

    /// The device's `io_ticks` now, ms, for a real target whose disk is
    /// known.
    fn device_ticks(&self) -> Option<u64> {
        crate::background::io_ticks_now(self.device?)
    }

    /// Whether the measurement has started or stopped since the
    /// engine's resources were last noted.
    fn resources_due(&self) -> bool {
        match self.resources_noted.load(Relaxed) {
            0 => self.measure_start.load(Acquire) != NOT_YET,
            1 => self.done.load(Acquire),
            _ => false,
        }
    }

    /// Notes the engine's resources `r` at `t`, where they are due.
    fn note_resources(&self, t: u64, r: Resources) {
        if self.resources_due() {
            let noted = self.resources_noted.load(Relaxed);
            self.resources.lock().unwrap()[noted as usize] = Some((t, r));
            self.resources_noted.store(noted + 1, Relaxed);
        }
    }

    /// Whether the warm start could end at `t`: uniqueBytes moved and the
    /// shortest warm start over, or the longest over.
    fn warm_due(&self, t: u64) -> bool {
        let el = t.saturating_sub(self.t0);
        let primed = self.warm_bytes() >= self.warm_target;
        (primed && el >= self.warm_min) || el >= self.warm_max
    }

    /// Ends the warm start at `t` (once).
    fn start(&self, t: u64) {
        self.start_at(t, crate::cluster::wall_now());
    }

    /// Ends the warm start at `t` (once; it may be ahead: completions
    /// before it still count as the warm start), which is `wall` on the
    /// wall clock.
    fn start_at(&self, t: u64, wall: f64) {
        if self
            .measure_start
            .compare_exchange(NOT_YET, t, AcqRel, Acquire)
            .is_ok()
        {
            self.cpu.lock().unwrap().0 = Some(cpu_times());
            self.io_ticks.lock().unwrap()[0] = self.device_ticks();
            *self.start_wall.lock().unwrap() = wall;
        }
    }

    /// Ends the warm start at wall-clock instant `at` (a rank of several;
    /// now, if that is past).
    fn start_at_wall(&self, at: f64) {
        let (mono, wall) = (engine::monotonic_ns(), crate::cluster::wall_now());
        let ahead = (at - wall).max(0.0);
        self.start_at(mono + (ahead * 1e9) as u64, wall + ahead);
    }

    /// Ends the measurement after `k` intervals.
    fn stop_at(&self, k: u64) {
        self.final_intervals.store(k, Relaxed);
        self.evaluated.store(k, Relaxed);
        self.cpu.lock().unwrap().1 = Some(cpu_times());
        self.io_ticks.lock().unwrap()[1] = self.device_ticks();
        self.done.store(true, Release);
    }

    /// Where this rank is, at `t`, for a round of a coordinated run.
    fn local(&self, t: u64, stopped: Option<String>) -> crate::cluster::Local {
        let ms = self.measure_start.load(Acquire);
        if ms == NOT_YET {
            return crate::cluster::Local {
                due: self.warm_due(t),
                stopped,
                ..Default::default()
            };
        }
        let k = (t.saturating_sub(ms) / self.interval).min(self.max.div_ceil(self.interval));
        self.evaluated.fetch_max(k, Relaxed);
        let series = self.series(k);
        let bytes = (0..series.len())
            .map(|i| self.total(i, |b| &b.read_bytes) + self.total(i, |b| &b.write_bytes))
            .sum();
        crate::cluster::Local {
            due: true,
            measuring: true,
            series,
            bytes,
            stopped,
        }
    }

    fn stop_now(&self) {
        self.done.store(true, Release);
    }

    fn fail(&self, e: Error) {
        self.failure.lock().unwrap().get_or_insert(e);
        self.failed.store(true, Release);
        self.stop_now();
    }

    /// Nothing holds the run after the measurement (see
    /// [`RunConfig::hold`]).
    fn released(&self) -> bool {
        self.hold.as_ref().is_none_or(|h| h.load(Acquire))
            || self.failed.load(Acquire)
            || self.interrupt.load(Relaxed)
    }

    fn snapshot(&self, t: u64) -> Snapshot {
        let ms = self.measure_start.load(Acquire);
        let measuring = ms != NOT_YET;
        let intervals = self.evaluated.load(Relaxed);
        let series = if measuring {
            self.series(intervals)
        } else {
            vec![]
        };
        Snapshot {
            measuring,
            done: self.done.load(Acquire),
            phase_secs: t.saturating_sub(if measuring { ms } else { self.t0 }) as f64 / 1e9,
            warmup_bytes: self.warm_bytes(),
            warmup_target_bytes: self.warm_target,
            warmup_max_secs: self.warm_max as f64 / 1e9,
            intervals,
            throughput: if series.is_empty() {
                0.0
            } else {
                series.iter().sum::<f64>() / series.len() as f64
            },
            ci_rel: f64::from_bits(self.ci_rel_bits.load(Relaxed)),
            target_ci_rel: self.target_rel,
            max_secs: self.max as f64 / 1e9,
        }
    }
}

/// The CPU time of a measurement of `secs` and the share of it the
/// device was busy: the engine's own count where it keeps one (the
/// simulated host's CPUs and storage, over the span between the notes),
/// else willy's own CPU time (`user` and `sys` seconds) and the target's
/// block device's `io_ticks` (where known).
fn resources_used(m: &Meter, user: f64, sys: f64, secs: f64) -> (CpuUsage, Option<f64>) {
    if let [Some((t0, r0)), Some((t1, r1))] = *m.resources.lock().unwrap() {
        let span = t1.saturating_sub(t0).max(1) as f64;
        let cpu = r1.cpu_ns.saturating_sub(r0.cpu_ns) as f64;
        let dev = r1.device_busy_ns.zip(r0.device_busy_ns);
        let cores_busy = cpu / span;
        let usage = CpuUsage {
            user_secs: cores_busy * secs,
            system_secs: 0.0,
            cores_busy,
        };
        let busy = dev.map(|(b, a)| (b.saturating_sub(a) as f64 / span).min(1.0));
        return (usage, busy);
    }
    let usage = CpuUsage {
        user_secs: user,
        system_secs: sys,
        cores_busy: (user + sys) / secs,
    };
    let ticks = *m.io_ticks.lock().unwrap();
    let busy = match ticks {
        [Some(a), Some(b)] => Some((b.saturating_sub(a) as f64 / 1e3 / secs).min(1.0)),
        _ => None,
    };
    (usage, busy)
}

/// (user, system) CPU seconds of this process.
/// willy's own (user, system) CPU seconds so far (`getrusage`).
pub(crate) fn cpu_times() -> (f64, f64) {
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (tv(ru.ru_utime), tv(ru.ru_stime))
}

/// One generator bound to an engine slot.
pub struct Slot {
    gen: Generator,
    fd: std::os::fd::RawFd,
    base: u64,
    /// Which workload (meter) the generator belongs to.
    meter: usize,
    /// Its workload's think time, ns.
    think: u64,
    busy: bool,
    op: Op,
    t_submit: u64,
    ready_at: u64,
    /// The request in flight: offset from `base` and length.
    req: (u64, usize),
    /// With `--verify`: the generation of each block, and the file's name.
    verify: Option<(crate::verify::Blocks, String)>,
    /// With pipelining: the next request, drawn ahead.
    next: Option<crate::generator::Request>,
    /// Bytes its requests moved in the measurement.
    measured: u64,
}

impl Slot {
    /// Generator `n` of workload `k` (of several run together), doing I/O
    /// on `fd` at offsets from `base`.
    fn of(
        w: &Workload,
        k: usize,
        n: u32,
        cfg: &RunConfig,
        fd: std::os::fd::RawFd,
        base: u64,
    ) -> Slot {
        Slot {
            gen: Generator::new(w, n, seed_of(cfg, k)),
            fd,
            base,
            meter: k,
            think: w.cpu_think.0.as_nanos() as u64,
            busy: false,
            op: Op::Read,
            t_submit: 0,
            ready_at: 0,
            req: (0, 0),
            verify: None,
            next: None,
            measured: 0,
        }
    }
}

struct Latencies {
    read: Histogram<u64>,
    write: Histogram<u64>,
    /// When each measured request completed, ns (the first
    /// [`MAX_COMPLETIONS`]): for the rounds of a run on several targets.
    done: Vec<u64>,
    /// Whether to keep them: only with several workloads at once. One
    /// workload's would be up to 16 MiB per worker for nothing, and
    /// under `--cache-limit` willy's own memory shares the cgroup with
    /// the page cache it measures.
    keep: bool,
}

/// Completion times kept per workload and worker (16 MiB of them).
const MAX_COMPLETIONS: usize = 1 << 21;

impl Latencies {
    /// Latencies of one workload of `workloads` run at once.
    fn new(workloads: usize) -> Latencies {
        let h = || Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("histogram bounds");
        Latencies {
            read: h(),
            write: h(),
            done: Vec::new(),
            keep: workloads > 1,
        }
    }
}

/// With `--verify`, stamps the blocks of the write slot `i` is about to
/// submit.
fn stamp_write(engine: &mut dyn Engine, i: usize, s: &mut Slot) {
    if let (Some((blocks, _)), Op::Write) = (&mut s.verify, s.op) {
        if let Some(buf) = engine.buffer(i) {
            blocks.before_write(&mut buf[..s.req.1], s.req.0);
        }
    }
}

/// With `--verify`, checks the blocks a read of slot `i` brought back.
fn check_read(engine: &mut dyn Engine, i: usize, s: &mut Slot, got: usize) -> Result<(), Error> {
    if let (Some((blocks, name)), Op::Read) = (&mut s.verify, s.op) {
        if let Some(buf) = engine.buffer(i) {
            let whole = got - got % blocks.block_size();
            return blocks
                .after_read(&buf[..whole], s.req.0)
                .map_err(|m| Error::Corrupt(format!("{name}: {m}")));
        }
    }
    Ok(())
}

/// Barve's pipelining: draws slot `i`'s next request now and, if it is a
/// read past the first sector, asks the engine to read the sector before
/// it, so that the disk reads the block ahead. Returns when the slot may
/// go on.
fn prefetch_next(engine: &mut dyn Engine, i: usize, s: &mut Slot) -> u64 {
    let n = s.gen.next_request();
    const SECTOR: u64 = 512;
    let at = if n.op == Op::Read && n.offset >= SECTOR {
        engine.prefetch(i, s.fd, s.base + n.offset - SECTOR, SECTOR as usize)
    } else {
        engine.now()
    };
    s.next = Some(n);
    at
}

/// Fails workload `k` with `e` and stops every workload.
fn fail_all(meters: &[Meter], k: usize, e: Error) {
    meters[k].fail(e);
    meters.iter().for_each(Meter::stop_now);
}

fn all_done(meters: &[Meter]) -> bool {
    meters.iter().all(|m| m.done.load(Acquire) && m.released())
}

/// Runs closed loops on `slots` through `engine` until every workload's
/// meter says stop, then drains what is in flight. A workload whose
/// measurement is over goes on loading the system until the others' are.
fn worker(
    engine: &mut dyn Engine,
    slots: &mut [Slot],
    meters: &[Meter],
    lane: usize,
    lats: &mut [Latencies],
) {
    let mut in_flight = 0usize;
    let pipeline = engine.pipelines();
    let mut comps: Vec<Completion> = Vec::with_capacity(slots.len());
    // The clock is read twice per request: right before submit and right
    // after reap. The completion time doubles as the next round's `now`.
    let mut now = engine.now();
    loop {
        meters.iter().for_each(|m| m.tick(now));
        // Asked of the engine only when a meter has just started or
        // stopped: twice a measurement, not once a round.
        if meters.iter().any(Meter::resources_due) {
            if let Some(r) = engine.resources() {
                meters.iter().for_each(|m| m.note_resources(now, r));
            }
        }
        let stop = all_done(meters);
        let mut next_ready = u64::MAX;
        if !stop {
            for (i, s) in slots.iter_mut().enumerate() {
                if s.busy {
                    continue;
                }
                if s.ready_at > now {
                    next_ready = next_ready.min(s.ready_at);
                    continue;
                }
                if pipeline && s.next.is_none() {
                    // Barve's order: the asynchronous read before the
                    // block, then (once the host has issued it) the block.
                    s.ready_at = prefetch_next(engine, i, s);
                    if s.ready_at > now {
                        next_ready = next_ready.min(s.ready_at);
                        continue;
                    }
                }
                let r = s.next.take().unwrap_or_else(|| s.gen.next_request());
                let io = Io {
                    op: r.op,
                    fd: s.fd,
                    offset: s.base + r.offset,
                    len: r.len as usize,
                };
                s.op = r.op;
                s.req = (r.offset, io.len);
                stamp_write(engine, i, s);
                s.t_submit = engine.now();
                if let Err(e) = engine.submit(i, &io) {
                    fail_all(meters, s.meter, Error::io("submitting a request", e));
                    break;
                }
                s.busy = true;
                in_flight += 1;
            }
        }
        if in_flight == 0 {
            if all_done(meters) {
                return;
            }
            engine.sleep_until(next_ready);
            now = engine.now();
            continue;
        }
        comps.clear();
        let deadline = (next_ready != u64::MAX && !stop).then_some(next_ready);
        if let Err(e) = engine.reap(deadline, &mut comps) {
            fail_all(meters, 0, Error::io("waiting for completions", e));
            return; // in-flight buffers stay owned by the engine until it drops
        }
        let t = engine.now();
        for c in &comps {
            let s = &mut slots[c.slot];
            s.busy = false;
            in_flight -= 1;
            s.ready_at = t + s.think;
            if c.result < 0 {
                let e = Error::io(
                    format!("{:?} failed", s.op).to_lowercase(),
                    std::io::Error::from_raw_os_error(-c.result as i32),
                );
                fail_all(meters, s.meter, e);
                continue;
            }
            if let Err(e) = check_read(engine, c.slot, s, c.result as usize) {
                fail_all(meters, s.meter, e);
                continue;
            }
            if meters[s.meter].record(lane, t, s.op, c.result as u64) {
                s.measured += c.result as u64;
                let lat = &mut lats[s.meter];
                let h = if s.op == Op::Read {
                    &mut lat.read
                } else {
                    &mut lat.write
                };
                h.saturating_record((t - s.t_submit).max(1));
                if lat.keep && lat.done.len() < MAX_COMPLETIONS {
                    lat.done.push(t);
                }
            }
        }
        now = t;
    }
}

/// Runs workload `w` on an opened target and measures it. `observe` is
/// called a few times a second from the calling thread.
pub fn run(
    w: &Workload,
    cfg: &RunConfig,
    target: &Target,
    observe: &mut dyn FnMut(&Snapshot),
) -> Result<Measurement, Error> {
    let mut m = run_many(&[(w, target)], cfg, observe)?;
    Ok(m.remove(0))
}

/// The seed of workload `k` of several run together: the first keeps the
/// run's seed, so one workload alone runs as [`run`] would.
fn seed_of(cfg: &RunConfig, k: usize) -> u64 {
    cfg.seed.wrapping_add(k as u64)
}

/// Runs several workloads at once, each on its own opened target (or its
/// own region of one device), and measures each with the same stopping
/// rule: the run ends when every workload's measurement has, and until
/// then every workload keeps loading the system. `observe` hears the first
/// workload's progress.
pub fn run_many(
    parts: &[(&Workload, &Target)],
    cfg: &RunConfig,
    observe: &mut dyn FnMut(&Snapshot),
) -> Result<Vec<Measurement>, Error> {
    cfg.validate()?;
    let coordinator = coordinator_of(parts, cfg)?;
    let max_len = parts
        .iter()
        .map(|(w, _)| (w.size_trials() + 1).min(w.blocks_per_generator()) * w.block_size.0)
        .max()
        .unwrap_or(4096);
    let mut slots = slots_of(parts, cfg);
    let lanes = if cfg.engine.thread_per_generator() {
        slots.len()
    } else {
        1
    };
    let t0 = engine::monotonic_ns();
    let meters: Vec<Meter> = parts
        .iter()
        .map(|(w, t)| Meter {
            device: crate::sysinfo::block_device_of(&t.path),
            ..Meter::new(cfg, w, t0, lanes)
        })
        .collect();
    let latencies = Mutex::new(
        parts
            .iter()
            .map(|_| Latencies::new(parts.len()))
            .collect::<Vec<_>>(),
    );
    let mut aborted = false;
    let build_err: Mutex<Option<std::io::Error>> = Mutex::new(None);

    std::thread::scope(|sc| {
        let groups: Vec<&mut [Slot]> = if cfg.engine.thread_per_generator() {
            slots.chunks_mut(1).collect()
        } else if slots.is_empty() {
            vec![] // a rank of several with no generator: rounds only
        } else {
            vec![&mut slots[..]]
        };
        let handles = spawn_workers(sc, groups, cfg, max_len, &meters, &latencies, &build_err);
        let idle = handles.is_empty();
        let mut rounds = coordinator.as_ref().map(|c| Rounds::new(c, idle));
        let all_finished = || handles.iter().all(|h| h.is_finished());
        observe_until_done(&meters, &mut rounds, all_finished, &build_err, observe);
        aborted = rounds.is_some_and(|r| r.aborted);
    });

    if let Some(e) = build_err.into_inner().unwrap() {
        return Err(Error::Usage(format!(
            "cannot start the {} engine: {e}",
            cfg.engine.name()
        )));
    }
    let lats = latencies.into_inner().unwrap();
    let mut ms = match &coordinator {
        None => finish(&meters, &lats, cfg)?,
        // The ranks stopped: each has its own error, and nothing to combine.
        Some(_) if aborted => finish(&meters, &lats, cfg)?,
        Some(c) => vec![finish_ranks(c, &meters[0], &lats[0], &slots, cfg)?],
    };
    if coordinator.is_none() {
        if cfg.verify.is_some() {
            count_verified(&mut ms, &slots);
        }
        share_by_generator(&mut ms, &slots);
    }
    Ok(ms)
}

/// One worker thread per group of slots (each generator's, or all on one
/// engine), each with its own engine.
fn spawn_workers<'s, 'e>(
    sc: &'s std::thread::Scope<'s, 'e>,
    groups: Vec<&'e mut [Slot]>,
    cfg: &'e RunConfig,
    max_len: u64,
    meters: &'e [Meter],
    latencies: &'e Mutex<Vec<Latencies>>,
    build_err: &'e Mutex<Option<std::io::Error>>,
) -> Vec<std::thread::ScopedJoinHandle<'s, ()>> {
    let mut handles = Vec::new();
    for (g, group) in groups.into_iter().enumerate() {
        handles.push(sc.spawn(move || {
            let mut e = match engine::build(
                cfg.engine,
                group.len(),
                max_len as usize,
                cfg.seed ^ g as u64,
            ) {
                Ok(e) => e,
                Err(err) => {
                    build_err.lock().unwrap().get_or_insert(err);
                    meters.iter().for_each(Meter::stop_now);
                    return;
                }
            };
            let mut lats: Vec<Latencies> = meters
                .iter()
                .map(|_| Latencies::new(meters.len()))
                .collect();
            worker(e.as_mut(), group, meters, g, &mut lats);
            let mut all = latencies.lock().unwrap();
            for (a, l) in all.iter_mut().zip(&lats) {
                let _ = a.read.add(&l.read);
                let _ = a.write.add(&l.write);
                a.done.extend_from_slice(&l.done);
            }
        }));
    }
    handles
}

/// With `cfg.cluster`, what coordinates the ranks' measurement.
fn coordinator_of(
    parts: &[(&Workload, &Target)],
    cfg: &RunConfig,
) -> Result<Option<crate::cluster::Coordinator>, Error> {
    let Some(c) = &cfg.cluster else {
        return Ok(None);
    };
    if parts.len() != 1 {
        return Err(Error::Usage(
            "several workloads at once are not run on several ranks".into(),
        ));
    }
    Ok(Some(crate::cluster::Coordinator::new(
        c.clone(),
        crate::cluster::Rule {
            interval: cfg.interval.as_nanos() as u64,
            min: cfg.min_duration.as_nanos() as u64,
            max: cfg.max_duration.as_nanos() as u64,
            target_rel: cfg.target_ci_rel,
            stonewall: cfg.stonewall_bytes,
        },
    )))
}

/// The observing thread, until the workers are done: moves the phases on
/// (alone: `tick`; as a rank: in rounds with the others) and tells
/// `observe` a few times a second.
fn observe_until_done(
    meters: &[Meter],
    rounds: &mut Option<Rounds>,
    all_finished: impl Fn() -> bool,
    build_err: &Mutex<Option<std::io::Error>>,
    observe: &mut dyn FnMut(&Snapshot),
) {
    loop {
        let finished = all_finished();
        let now = engine::monotonic_ns();
        match rounds {
            None if finished => break,
            None => meters.iter().for_each(|m| m.tick(now)),
            Some(r) if r.decided && finished => break,
            Some(r) if r.decided => {}
            Some(r) => r.round(&meters[0], now, finished, build_err),
        }
        observe(&meters[0].snapshot(now));
        let pause = if rounds.is_some() { 50 } else { 100 };
        std::thread::sleep(Duration::from_millis(pause));
    }
}

/// The rounds of a coordinated run, from the observing thread.
struct Rounds<'a> {
    coordinator: &'a crate::cluster::Coordinator,
    /// The ranks stopped or ended the measurement.
    decided: bool,
    /// They stopped it: no rank's end is exchanged.
    aborted: bool,
    /// This rank runs no generator: its workers are done from the start.
    idle: bool,
}

impl<'a> Rounds<'a> {
    fn new(coordinator: &'a crate::cluster::Coordinator, idle: bool) -> Rounds<'a> {
        Rounds {
            coordinator,
            decided: false,
            aborted: false,
            idle,
        }
    }

    /// One round: tells the others where this rank is (and why it stopped,
    /// if its workers did) and acts on what every rank decides.
    fn round(
        &mut self,
        m: &Meter,
        now: u64,
        finished: bool,
        build_err: &Mutex<Option<std::io::Error>>,
    ) {
        use crate::cluster::Decision;
        let stopped = (finished && !self.idle).then(|| {
            if let Some(e) = m.failure.lock().unwrap().as_ref() {
                e.to_string()
            } else if let Some(e) = build_err.lock().unwrap().as_ref() {
                format!("cannot start the engine: {e}")
            } else if m.interrupt.load(Relaxed) {
                "interrupted".to_string()
            } else {
                "stopped".to_string()
            }
        });
        let rank = self.coordinator.cluster().rank();
        match self.coordinator.round(m.local(now, stopped)) {
            Ok(Decision::Continue) => {}
            Ok(Decision::Start(at)) => m.start_at_wall(at),
            Ok(Decision::Stop(k)) => {
                m.stop_at(k);
                self.decided = true;
            }
            // Signalled too (Ctrl-C reaches every rank): interrupted.
            Ok(Decision::Abort(k, _)) if k == rank || m.interrupt.load(Relaxed) => {
                m.stop_now();
                (self.decided, self.aborted) = (true, true);
            }
            Ok(Decision::Abort(k, why)) => {
                let who = crate::cluster::who(self.coordinator.cluster(), k);
                m.fail(Error::Peer(format!("{who} stopped the run: {why}")));
                (self.decided, self.aborted) = (true, true);
            }
            Err(e) => {
                m.fail(e);
                (self.decided, self.aborted) = (true, true);
            }
        }
    }
}

/// A coordinated run's end: every rank's measurement to every rank, and
/// their total (with the per-rank figures). A rank whose own end failed
/// says so, and every rank fails, naming it.
fn finish_ranks(
    c: &crate::cluster::Coordinator,
    m: &Meter,
    lat: &Latencies,
    slots: &[Slot],
    cfg: &RunConfig,
) -> Result<Measurement, Error> {
    use crate::cluster::{histogram_bytes, RankEnd};
    let failure = m.failure.lock().unwrap().take();
    let cluster = c.cluster();
    let mine: Result<RankEnd, String> = match failure {
        Some(e) => Err(e.to_string()),
        None if cfg.interrupt.load(Relaxed) => Err("interrupted".into()),
        None => {
            let mut measurement = summarise(m, lat);
            if cfg.verify.is_some() {
                let mut one = [measurement];
                count_verified(&mut one, slots);
                [measurement] = one;
            }
            Ok(RankEnd {
                measurement,
                histograms: [histogram_bytes(&lat.read), histogram_bytes(&lat.write)],
                start_wall_secs: *m.start_wall.lock().unwrap(),
                generators: slots.len() as u32,
            })
        }
    };
    let bytes = serde_json::to_vec(&mine).expect("a rank's end serialises");
    let all = cluster.exchange(&bytes)?;
    let mut ends = Vec::with_capacity(all.len());
    for (k, b) in all.iter().enumerate() {
        let end: Result<RankEnd, String> = serde_json::from_slice(b).map_err(|e| {
            Error::Usage(format!(
                "{} sent a result willy cannot read ({e}): are all ranks the same willy?",
                crate::cluster::who(cluster, k)
            ))
        })?;
        match end {
            Ok(e) => ends.push(e),
            Err(why) if k == cluster.rank() && why == "interrupted" => {
                return Err(Error::Interrupted)
            }
            Err(why) => {
                let who = crate::cluster::who(cluster, k);
                return Err(Error::Peer(format!("{who} stopped the run: {why}")));
            }
        }
    }
    Ok(crate::cluster::combine(
        &ends,
        cluster.hosts(),
        cfg.stonewall_bytes,
    ))
}

/// Each workload's blocks checked by `--verify`, over its generators.
fn count_verified(ms: &mut [Measurement], slots: &[Slot]) {
    for (k, m) in ms.iter_mut().enumerate() {
        let mine = slots.iter().filter(|s| s.meter == k);
        let checked = mine.filter_map(|s| s.verify.as_ref()).map(|v| v.0.checked);
        m.verified_blocks = Some(checked.sum());
    }
}

/// Each measurement's throughput split between its generators, in their
/// order, by the bytes each moved in the measurement (a request that
/// completed in the interval the stopping rule ended in may count for its
/// generator and not in the total, so the shares, not the bytes, are
/// kept: they add up to the total).
fn share_by_generator(ms: &mut [Measurement], slots: &[Slot]) {
    let mut by_meter: Vec<Vec<u64>> = vec![Vec::new(); ms.len()];
    for s in slots {
        if let Some(b) = by_meter.get_mut(s.meter) {
            b.push(s.measured);
        }
    }
    for (m, bytes) in ms.iter_mut().zip(by_meter) {
        let all: u64 = bytes.iter().sum();
        m.generators_bytes_per_sec = match all {
            0 => Vec::new(),
            _ => bytes
                .iter()
                .map(|&b| m.throughput_bytes_per_sec * b as f64 / all as f64)
                .collect(),
        };
    }
}

/// One slot per generator of every workload, each on its own file or
/// region; with `--verify`, each knows its blocks' generations.
fn slots_of(parts: &[(&Workload, &Target)], cfg: &RunConfig) -> Vec<Slot> {
    let mut slots = Vec::new();
    for (k, (w, target)) in parts.iter().enumerate() {
        for n in 0..w.process_num {
            let (fd, base) = target.file_of(n as usize);
            let mut slot = Slot::of(w, k, n, cfg, fd, base);
            if let Some(level) = cfg.verify {
                let blocks = crate::verify::Blocks::new(
                    w.blocks_per_generator(),
                    w.block_size.0,
                    base,
                    target.kind == crate::target::TargetKind::Files,
                    level,
                );
                slot.verify = Some((blocks, target.name_of(n as usize)));
            }
            slots.push(slot);
        }
    }
    slots
}

/// The measurements, or the first failure (or the interruption).
fn finish(
    meters: &[Meter],
    lats: &[Latencies],
    cfg: &RunConfig,
) -> Result<Vec<Measurement>, Error> {
    for m in meters {
        if let Some(e) = m.failure.lock().unwrap().take() {
            return Err(e);
        }
    }
    if cfg.interrupt.load(Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(meters
        .iter()
        .zip(lats)
        .map(|(m, l)| summarise(m, l))
        .collect())
}

fn summarise(m: &Meter, lat: &Latencies) -> Measurement {
    let n = m.final_intervals.load(Relaxed);
    let secs = (n * m.interval) as f64 / 1e9;
    let sum = |f: fn(&Bucket) -> &AtomicU64| (0..n as usize).map(|i| m.total(i, f)).sum::<u64>();
    let dir = |bytes: u64, reqs: u64, h: &Histogram<u64>| DirectionStats {
        requests: reqs,
        bytes,
        throughput_bytes_per_sec: bytes as f64 / secs,
        iops: reqs as f64 / secs,
        latency_us: Latency::of(h),
    };
    let reads = dir(sum(|b| &b.read_bytes), sum(|b| &b.reads), &lat.read);
    let writes = dir(sum(|b| &b.write_bytes), sum(|b| &b.writes), &lat.write);
    let series = m.series(n);
    let ci = batch_means(&series);
    let stall = stalled(&series);
    let (transient, steady) = crate::stats::steady(&series);
    let (c0, c1) = *m.cpu.lock().unwrap();
    let (c0, c1) = (c0.unwrap_or_default(), c1.unwrap_or_else(cpu_times));
    let (user, sys) = (c1.0 - c0.0, c1.1 - c0.1);
    let (cpu, device_busy_frac) = resources_used(m, user, sys, secs);
    let ms = m.measure_start.load(Relaxed);
    let warm_bytes = m.warm_bytes();
    Measurement {
        throughput_bytes_per_sec: reads.throughput_bytes_per_sec + writes.throughput_bytes_per_sec,
        iops: reads.iops + writes.iops,
        ci95_rel: ci.rel().is_finite().then_some(ci.rel()),
        duration_secs: secs,
        bytes_transferred: reads.bytes + writes.bytes,
        requests: reads.requests + writes.requests,
        cpu,
        device_busy_frac,
        warmup: WarmupInfo {
            secs: ms.saturating_sub(m.t0) as f64 / 1e9,
            bytes: warm_bytes,
            complete: warm_bytes >= m.warm_target,
        },
        stopping: StoppingInfo {
            target_ci95_rel: m.target_rel,
            target_met: ci.rel() <= m.target_rel && !stall,
            stalled: stall,
            interval_secs: m.interval as f64 / 1e9,
            intervals: n,
            batches: ci.batches as u64,
            min_secs: m.min as f64 / 1e9,
            max_secs: m.max as f64 / 1e9,
            interval_throughput: series,
            transient_intervals: transient as u64,
            steady_throughput_bytes_per_sec: Some(steady),
        },
        reads,
        writes,
        verified_blocks: None,
        background: None,
        cluster: None,
        generators_bytes_per_sec: Vec::new(),
        completions: {
            let mut d = lat.done.clone();
            d.sort_unstable();
            crate::report::Completions(d)
        },
    }
}

/// Runs workload `w` on a simulated system, in virtual time, on the calling
/// thread. `direct` bypasses the simulated cache, as O_DIRECT would.
pub fn run_sim(
    w: &Workload,
    cfg: &RunConfig,
    sim: &crate::sim::SimConfig,
    direct: bool,
) -> Result<(Measurement, crate::sim::SimStats), Error> {
    let (mut m, stats) = run_sim_many(std::slice::from_ref(w), cfg, sim, direct)?;
    Ok((m.remove(0), stats))
}

/// Runs several workloads at once on one simulated system, in one virtual
/// time: their generators share the simulated cache and disks. Workload
/// `k` works on its own region of the simulated storage, after the regions
/// of the workloads before it. Each is measured as in [`run_many`].
pub fn run_sim_many(
    ws: &[Workload],
    cfg: &RunConfig,
    sim: &crate::sim::SimConfig,
    direct: bool,
) -> Result<(Vec<Measurement>, crate::sim::SimStats), Error> {
    let offsets = contiguous(ws);
    let all: Vec<usize> = (0..ws.len()).collect();
    run_sim_placed(ws, &offsets, &all, cfg, sim, direct)
}

/// Each workload's region starting where the one before it ends.
pub fn contiguous(ws: &[Workload]) -> Vec<u64> {
    ws.iter()
        .scan(0, |at, w| {
            *at += w.total_bytes();
            Some(*at - w.total_bytes())
        })
        .collect()
}

/// [`run_sim_many`] with workload `k`'s region at `offsets[k]`, running only
/// the workloads in `active` (the others' regions are laid out, and cached
/// at the start, all the same): what `willy interfere` compares. Workload
/// `k` draws the same requests whichever others run. The measurements are
/// `active`'s, in its order.
pub fn run_sim_placed(
    ws: &[Workload],
    offsets: &[u64],
    active: &[usize],
    cfg: &RunConfig,
    sim: &crate::sim::SimConfig,
    direct: bool,
) -> Result<(Vec<Measurement>, crate::sim::SimStats), Error> {
    cfg.validate()?;
    let mut order: Vec<usize> = (0..ws.len()).collect();
    order.sort_by_key(|&k| offsets[k]);
    let regions: Vec<(u64, u64)> = order
        .iter()
        .map(|&k| (offsets[k], ws[k].total_bytes()))
        .collect();
    check_regions(&regions, sim)?;
    let mut no_readahead;
    let sim = match (cfg.readahead, &sim.cache) {
        (false, Some(_)) => {
            no_readahead = sim.clone();
            if let Some(c) = no_readahead.cache.as_mut() {
                c.readahead = crate::units::Bytes(0);
            }
            &no_readahead
        }
        _ => sim,
    };
    let partitions = crate::sim::insulate::partition_sizes(ws, sim, direct)?
        .map(|sizes| order.iter().map(|&k| sizes[k]).collect::<Vec<u64>>());
    let mut engine =
        crate::sim::SimEngine::placed(sim, &regions, partitions.as_deref(), direct, cfg.seed);
    if cfg.pipeline {
        engine.pipeline(sim);
    }
    let mut slots: Vec<Slot> = Vec::new();
    for (meter, &k) in active.iter().enumerate() {
        let w = &ws[k];
        let per = w.bytes_per_generator();
        for n in 0..w.process_num {
            let fd = slots.len() as i32;
            let mut slot = Slot::of(w, k, n, cfg, fd, offsets[k] + u64::from(n) * per);
            slot.meter = meter;
            slots.push(slot);
        }
    }
    let meters: Vec<Meter> = active
        .iter()
        .map(|&k| Meter::new(cfg, &ws[k], engine.now(), 1))
        .collect();
    let mut lats: Vec<Latencies> = active
        .iter()
        .map(|_| Latencies::new(active.len()))
        .collect();
    worker(&mut engine, &mut slots, &meters, 0, &mut lats);
    let mut ms = finish(&meters, &lats, cfg)?;
    share_by_generator(&mut ms, &slots);
    Ok((ms, engine.stats()))
}

/// Regions (offset, length), sorted: within the simulated storage and
/// apart.
fn check_regions(regions: &[(u64, u64)], sim: &crate::sim::SimConfig) -> Result<(), Error> {
    let end = regions.iter().map(|&(o, n)| o + n).max().unwrap_or(0);
    if end > sim.capacity() {
        let total: u64 = regions.iter().map(|r| r.1).sum();
        return Err(Error::Usage(format!(
            "the simulated {} holds {} but the workloads need {} (uniqueBytes {}, up to offset {})",
            sim.name,
            crate::units::Bytes(sim.capacity()),
            crate::units::Bytes(end),
            crate::units::Bytes(total),
            crate::units::Bytes(end - total.min(end))
        )));
    }
    if let Some(w) = regions.windows(2).find(|w| w[0].0 + w[0].1 > w[1].0) {
        return Err(Error::Usage(format!(
            "two workloads' regions overlap: one at {} runs to {}, past the next at {}",
            crate::units::Bytes(w[0].0),
            crate::units::Bytes(w[0].0 + w[0].1),
            crate::units::Bytes(w[1].0)
        )));
    }
    Ok(())
}
