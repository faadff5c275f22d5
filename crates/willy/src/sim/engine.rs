//! The simulated system as an [`Engine`]: the core loop drives it exactly as
//! it drives a real engine, and its clock is virtual.
//!
//! A request's life:
//! - **No cache** (raw, or `--direct`): the storage does the I/O.
//! - **Read**: cached pages are touched. Missing pages are read from storage
//!   in one operation, extended by the read-ahead when the read starts where
//!   the previous read of the same file ended, and then cached.
//! - **Write, write-back**: pages are cached dirty. If dirty data passes
//!   the dirty limit, the oldest dirty pages are written out and the write
//!   waits for them.
//! - **Write, write-through**: pages are cached clean and the write waits
//!   for the storage.
//! - Inserting a page into a full cache evicts the least recently used
//!   page; a dirty victim is written out and the request that evicted it
//!   waits (direct reclaim).
//! - A periodic flusher writes pages dirty for longer than `dirty_expire_s`
//!   in the background.
//! - Every request ends with `request_overhead + bytes / memory bandwidth`
//!   on one of the CPUs (the copy between cache and user memory).
//!
//! Files are laid out one after the other on the simulated device, and the
//! cache starts as the real one does after willy has written the files:
//! holding the last-written pages, clean.

use super::cache::Cache;
use super::config::{SimConfig, WritePolicy};
use super::storage::{ms, transfer_ns, Schedule, Storage, StorageOp};
use crate::engine::{Completion, Engine, Io, Resources};
use crate::generator::Op;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    DiskDone(usize),
    Part(usize),
    CpuDone(usize),
    Flush,
    /// The quantum of this number ends.
    QuantumEnd(u64),
    /// A shared bus has something to do.
    Bus,
    /// The host has issued this job's asynchronous read (pipelining).
    Prefetch(usize),
}

/// A storage operation's tag: its job, and the region (workload) it works
/// for, if any, above bit 32.
fn tag_of(job: usize, region: Option<usize>) -> usize {
    job | (region.map_or(0, |r| r + 1) << 32)
}

fn job_of(tag: usize) -> usize {
    tag & 0xFFFF_FFFF
}

fn region_of_tag(tag: usize) -> Option<usize> {
    (tag >> 32).checked_sub(1)
}

/// Argon's round-robin disk time quanta over the regions (workloads).
#[derive(Debug)]
struct Quanta {
    quantum: u64,
    /// The region whose turn it is, and when its turn ends.
    active: Option<(usize, u64)>,
    number: u64,
    /// Per region: operations at the storage, operations waiting for its
    /// turn, and the time one operation takes (ns per operation over its
    /// last quantum, smoothed).
    outstanding: Vec<u64>,
    waiting: Vec<std::collections::VecDeque<StorageOp>>,
    per_op: Vec<f64>,
    /// Operations completed in the current quantum.
    done: u64,
    started: u64,
}

impl Quanta {
    /// Quanta of `quantum` ns over `regions`; an operation is first
    /// expected to take the storage's positioning time (Argon's first
    /// estimate, "the average rotational plus seek time").
    fn new(quantum: u64, regions: usize, cfg: &SimConfig) -> Quanta {
        Quanta {
            quantum,
            active: None,
            number: 0,
            outstanding: vec![0; regions],
            waiting: vec![Default::default(); regions],
            per_op: vec![cfg.storage.positioning_ms() * 1e6; regions],
            done: 0,
            started: 0,
        }
    }
}

#[derive(Clone, Debug)]
struct Job {
    /// The slot to complete, or `None` for background write-outs.
    slot: Option<usize>,
    bytes: u64,
    pending: u32,
    /// Pages to cache (clean) when the storage read completes: the pages
    /// asked for, then read-ahead pages up to the last.
    insert: Option<(u32, u32, u32)>,
    /// Pages still to read one at a time, each after the one before
    /// (the read-ahead-cancel fault's makeup reads): (next, last).
    makeup: Option<(u32, u32)>,
    copy_ns: u64,
}

impl Job {
    /// Work of the system's own (a write-out, a prefetch): no request
    /// waits for it.
    fn background() -> Job {
        Job {
            slot: None,
            bytes: 0,
            pending: 0,
            insert: None,
            makeup: None,
            copy_ns: 0,
        }
    }
}

/// Counters for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Read requests all of whose pages were cached.
    pub read_hits: u64,
    /// Read requests that went to storage.
    pub read_misses: u64,
    /// Pages written out to storage (any cause).
    pub pages_written_out: u64,
    /// Virtual time the storage spent serving operations, ns (averaged
    /// over its disks or channels).
    pub storage_busy_ns: u64,
    /// Virtual time the host's CPUs spent on requests (overhead and
    /// copies, and Barve's asynchronous reads), ns, summed over the CPUs:
    /// work handed to a CPU counts when it is handed over.
    pub cpu_busy_ns: u64,
    /// Virtual time simulated, ns.
    pub elapsed_ns: u64,
}

/// A simulated storage system.
pub struct SimEngine {
    now: u64,
    seq: u64,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    cache: Option<Cache>,
    page: u64,
    /// The regions the workloads use, bytes (offset, length), in order.
    regions: Vec<(u64, u64)>,
    /// With insulation: pages per sequential read miss, and the most pages
    /// one write-out run coalesces.
    amortize_pages: Option<u64>,
    quanta: Option<Quanta>,
    policy: WritePolicy,
    dirty_limit: Option<u64>,
    /// Log-structured write-out: the next log position, and the log's span.
    log: Option<(u64, u64, u64)>,
    readahead_pages: u64,
    /// The planted read-ahead-cancel fault's queue depth.
    cancel_queue: Option<usize>,
    expire_ns: u64,
    flush_ns: Option<u64>,
    overhead_ns: u64,
    memory_mb_per_s: f64,
    cpu_free: Vec<u64>,
    storage: Storage,
    rng: Xoshiro256PlusPlus,
    jobs: Vec<Option<Job>>,
    free_jobs: Vec<usize>,
    last_read_end: HashMap<i32, u64>,
    done: Vec<Completion>,
    scratch: Vec<Schedule>,
    stats: SimStats,
    /// Pipelining: the host's cost of an asynchronous read, ns, and the
    /// reads issued but not yet at the storage (job -> offset, length).
    pipeline: Option<u64>,
    prefetching: HashMap<usize, (u64, u64)>,
}

impl SimEngine {
    /// A simulation of `cfg` over a device of `bytes` bytes. With
    /// `bypass_cache` (willy's `--direct`) the cache is not used.
    pub fn new(cfg: &SimConfig, bytes: u64, bypass_cache: bool, seed: u64) -> SimEngine {
        SimEngine::placed(cfg, &[(0, bytes)], None, bypass_cache, seed)
    }

    /// A simulation of `cfg` whose workloads use `regions` of the device
    /// ((offset, length) in bytes, in order, disjoint), with a cache
    /// partition of `partitions[k]` bytes for region `k` if given. The
    /// cache starts holding the last pages of the last regions, clean, as
    /// after the files were written in order.
    pub fn placed(
        cfg: &SimConfig,
        regions: &[(u64, u64)],
        partitions: Option<&[u64]>,
        bypass_cache: bool,
        seed: u64,
    ) -> SimEngine {
        let cache_cfg = cfg.cache.as_ref().filter(|_| !bypass_cache);
        let page = cache_cfg.map(|c| c.page_size.0).unwrap_or(4096);
        let page_regions: Vec<(u64, u64)> = regions
            .iter()
            .map(|&(o, n)| (o / page, (o + n).div_ceil(page) - o / page))
            .collect();
        let end = regions.iter().map(|&(o, n)| o + n).max().unwrap_or(0);
        let insulation = cfg.insulation.clone().unwrap_or_default();
        let mut e = SimEngine {
            now: 0,
            seq: 0,
            events: BinaryHeap::new(),
            cache: cache_cfg.map(|c| match partitions {
                Some(sizes) => {
                    let pages: Vec<u64> = sizes.iter().map(|b| (b / page).max(1)).collect();
                    Cache::partitioned(&pages, &page_regions)
                }
                None => Cache::shared(c.capacity.0 / page, &page_regions),
            }),
            page,
            regions: regions.to_vec(),
            amortize_pages: insulation.amortization.map(|a| a.0.div_ceil(page)),
            quanta: insulation
                .quantum_ms
                .map(|q| Quanta::new(ms(q), regions.len(), cfg)),
            policy: cache_cfg
                .map(|c| c.write_policy)
                .unwrap_or(WritePolicy::WriteThrough),
            dirty_limit: cache_cfg
                .and_then(|c| c.dirty_limit)
                .map(|d| (d.0 / page).max(1)),
            // The log lives past the files, or over the whole device if the
            // files leave no room: (head, start, end).
            log: cache_cfg.filter(|c| c.log_writes).map(|_| {
                let start = end.div_ceil(page) * page;
                let start = if cfg.capacity().saturating_sub(start) >= 64 << 20 {
                    start
                } else {
                    0
                };
                (start, start, cfg.capacity())
            }),
            readahead_pages: cache_cfg.map(|c| c.readahead.0.div_ceil(page)).unwrap_or(0),
            cancel_queue: cfg
                .faults
                .as_ref()
                .and_then(|f| f.readahead_cancel_queue)
                .map(|k| k as usize),
            expire_ns: cache_cfg.map(|c| ms(c.dirty_expire_s * 1e3)).unwrap_or(0),
            flush_ns: cache_cfg
                .and_then(|c| c.flush_interval_s)
                .map(|s| ms(s * 1e3)),
            overhead_ns: ms(cfg.cpu.request_overhead_ms),
            memory_mb_per_s: cfg.cpu.memory_mb_per_s,
            cpu_free: vec![0; cfg.cpu.cpus as usize],
            storage: Storage::new(&cfg.storage),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x51D0_51D0),
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            last_read_end: HashMap::new(),
            done: Vec::new(),
            scratch: Vec::new(),
            stats: SimStats::default(),
            pipeline: None,
            prefetching: HashMap::new(),
        };
        e.fill(&page_regions);
        if let Some(f) = e.flush_ns {
            e.push(f, Event::Flush);
        }
        e
    }

    /// The files were just written and synced, region by region: the
    /// cache holds the last pages written, clean.
    fn fill(&mut self, page_regions: &[(u64, u64)]) {
        if let Some(c) = &mut self.cache {
            for &(first, n) in page_regions {
                for p in first..first + n {
                    c.insert(p as u32, false, 0);
                }
            }
        }
    }

    /// Turns Barve's pipelining on: the core loop's
    /// [`Engine::prefetch`]es cost a CPU `cpu.async_read_overhead_ms` each,
    /// then read from the storage (past the cache).
    pub fn pipeline(&mut self, cfg: &SimConfig) {
        self.pipeline = Some(ms(cfg.cpu.async_read_overhead_ms));
    }

    /// Counters so far.
    pub fn stats(&self) -> SimStats {
        SimStats {
            storage_busy_ns: self.storage.busy_ns(),
            elapsed_ns: self.now,
            ..self.stats
        }
    }

    /// The region (workload) the byte at `offset` belongs to.
    fn region_at(&self, offset: u64) -> Option<usize> {
        let k = self
            .regions
            .partition_point(|r| r.0 <= offset)
            .checked_sub(1)?;
        (offset < self.regions[k].0 + self.regions[k].1).then_some(k)
    }

    fn push(&mut self, t: u64, ev: Event) {
        self.seq += 1;
        self.events.push(Reverse((t, self.seq, ev)));
    }

    fn new_job(&mut self, job: Job) -> usize {
        match self.free_jobs.pop() {
            Some(i) => {
                self.jobs[i] = Some(job);
                i
            }
            None => {
                self.jobs.push(Some(job));
                self.jobs.len() - 1
            }
        }
    }

    /// The CPU free first, and when.
    fn earliest_cpu(&self) -> (usize, u64) {
        super::earliest(&self.cpu_free)
    }

    fn schedule(&mut self) {
        let mut s = std::mem::take(&mut self.scratch);
        for x in s.drain(..) {
            match x {
                Schedule::DiskDone(d, t) => self.push(t, Event::DiskDone(d)),
                Schedule::Part(tag, t) => self.push(t, Event::Part(tag)),
                Schedule::Wake(t) => self.push(t, Event::Bus),
            }
        }
        self.scratch = s;
    }

    fn storage_op(&mut self, op: Op, offset: u64, len: u64, job: usize) {
        let region = self.region_at(offset);
        let op = StorageOp {
            op,
            offset,
            len,
            tag: tag_of(job, region),
        };
        self.jobs[job].as_mut().expect("live job").pending += 1;
        match (&mut self.quanta, region) {
            (Some(q), Some(r)) => {
                q.waiting[r].push_back(op);
                if q.active.is_none() {
                    self.start_quantum(r);
                } else {
                    self.release();
                }
            }
            _ => self.send_to_storage(op),
        }
    }

    /// Sends `op` to the storage; its job waits for every part.
    fn send_to_storage(&mut self, op: StorageOp) {
        let mut out = std::mem::take(&mut self.scratch);
        let parts = self.storage.submit(self.now, op, &mut self.rng, &mut out);
        self.scratch = out;
        let job = job_of(op.tag);
        self.jobs[job].as_mut().expect("live job").pending += parts - 1;
        if let (Some(q), Some(r)) = (&mut self.quanta, region_of_tag(op.tag)) {
            q.outstanding[r] += u64::from(parts);
        }
        self.schedule();
    }

    /// Region `r`'s quantum begins now.
    fn start_quantum(&mut self, r: usize) {
        let q = self.quanta.as_mut().expect("quanta");
        q.number += 1;
        q.active = Some((r, self.now + q.quantum));
        q.done = 0;
        q.started = self.now;
        let (t, n) = (self.now + q.quantum, q.number);
        self.push(t, Event::QuantumEnd(n));
        self.release();
    }

    /// Passes the active region's waiting operations to the storage while
    /// they are expected to finish within its quantum (Argon issues no
    /// more than its quantum can serve, so that draining stays short).
    fn release(&mut self) {
        loop {
            let q = self.quanta.as_mut().expect("quanta");
            let Some((r, end)) = q.active else { return };
            let fits = q.outstanding[r] == 0
                || self.now as f64 + (q.outstanding[r] + 1) as f64 * q.per_op[r] <= end as f64;
            if self.now >= end || !fits {
                return;
            }
            let Some(op) = q.waiting[r].pop_front() else {
                return;
            };
            self.send_to_storage(op);
        }
    }

    /// A part of region `r`'s operations completed.
    fn quantum_part_done(&mut self, r: usize) {
        let q = self.quanta.as_mut().expect("quanta");
        q.outstanding[r] -= 1;
        if q.active.map(|a| a.0) != Some(r) {
            return;
        }
        q.done += 1;
        let (_, end) = q.active.expect("active");
        if self.now >= end && q.outstanding[r] == 0 {
            self.next_quantum();
        } else {
            self.release();
        }
    }

    /// The active quantum is over and drained: the next region (round
    /// robin) with operations waiting has its turn; none: the next
    /// operation to come starts one.
    fn next_quantum(&mut self) {
        let q = self.quanta.as_mut().expect("quanta");
        let (r, _) = q.active.take().expect("active");
        if q.done > 0 {
            let per = (self.now - q.started) as f64 / q.done as f64;
            q.per_op[r] = 0.5 * q.per_op[r] + 0.5 * per;
        }
        let n = q.waiting.len();
        let next = (1..=n)
            .map(|i| (r + i) % n)
            .find(|&k| !q.waiting[k].is_empty());
        if let Some(k) = next {
            self.start_quantum(k);
        }
    }

    fn quantum_end(&mut self, number: u64) {
        let q = self.quanta.as_mut().expect("quanta");
        if q.number != number {
            return;
        }
        if let Some((r, _)) = q.active {
            if q.outstanding[r] == 0 {
                self.next_quantum();
            }
        }
    }

    /// Writes `pages` out as part of `job`: sorted and merged into runs at
    /// their own addresses, or as one sequential write at the log head.
    fn write_out(&mut self, mut pages: Vec<u32>, job: usize) {
        self.stats.pages_written_out += pages.len() as u64;
        if let Some((head, start, end)) = self.log {
            let len = pages.len() as u64 * self.page;
            let at = if head + len > end { start } else { head };
            self.log = Some((at + len, start, end));
            self.storage_op(Op::Write, at, len.min(end - start), job);
            return;
        }
        pages.sort_unstable();
        let mut i = 0;
        while i < pages.len() {
            let mut j = i + 1;
            while j < pages.len() && pages[j] == pages[j - 1] + 1 {
                j += 1;
            }
            let (first, mut n) = (u64::from(pages[i]), (j - i) as u64);
            n += self.coalesce(pages[j - 1], n);
            self.storage_op(Op::Write, first * self.page, n * self.page, job);
            i = j;
        }
    }

    /// Write-back coalescing (Argon's amortization): the dirty pages right
    /// after `last` join a run of `n` pages, up to the amortization size;
    /// they are marked clean. Returns how many joined.
    fn coalesce(&mut self, last: u32, n: u64) -> u64 {
        let (Some(max), Some(c)) = (self.amortize_pages, &mut self.cache) else {
            return 0;
        };
        let mut more = 0;
        while n + more < max {
            let p = last + 1 + more as u32;
            if !c.is_dirty(p) {
                break;
            }
            c.clean(p);
            more += 1;
        }
        self.stats.pages_written_out += more;
        more
    }

    /// Caches `first..=last` (clean, or dirty); dirty victims are written
    /// out as part of `job`.
    fn cache_pages(&mut self, first: u32, last: u32, dirty: bool, job: usize) {
        let now = self.now;
        let Some(c) = &mut self.cache else { return };
        let mut victims = Vec::new();
        for p in first..=last {
            if let Some(ev) = c.insert(p, dirty, now) {
                if ev.dirty {
                    victims.push(ev.page);
                }
            }
        }
        if dirty {
            if let Some(limit) = self.dirty_limit.filter(|&l| c.dirty_len() > l) {
                // Throttle: write out the oldest until 7/8 of the limit is
                // left, one batch (a segment, for a log-structured cache).
                // Dirty data then stays between 7/8 and all of the limit, so
                // the effective write cache is the limit to within 1/8.
                while c.dirty_len() > limit - limit / 8 {
                    let (p, _) = c.oldest_dirty().expect("dirty pages exist");
                    c.clean(p);
                    victims.push(p);
                }
            }
        }
        if !victims.is_empty() {
            self.write_out(victims, job);
        }
    }

    /// Caches read-ahead pages `first..=last` cold (see
    /// [`Cache::insert_cold_run`]); dirty victims are written out for `job`.
    fn cache_ahead(&mut self, first: u32, last: u32, job: usize) {
        let Some(c) = &mut self.cache else { return };
        if first > last {
            return;
        }
        let victims: Vec<u32> = c
            .insert_cold_run(first, last)
            .into_iter()
            .filter(|e| e.dirty)
            .map(|e| e.page)
            .collect();
        if !victims.is_empty() {
            self.write_out(victims, job);
        }
    }

    /// The last page a read missing pages `a..=b` brings in: on a
    /// sequential miss, `readahead` more (or, with amortization, all of the
    /// amortization size from `a`), within the region.
    fn read_ahead(&self, a: u32, b: u32, seq: bool) -> u32 {
        let end = self
            .cache
            .as_ref()
            .and_then(|c| c.region_end(b))
            .unwrap_or(b);
        let want = match (seq, self.amortize_pages) {
            (false, _) => u64::from(b),
            (true, None) => u64::from(b) + self.readahead_pages,
            (true, Some(s)) => u64::from(b).max(u64::from(a) + s - 1),
        };
        want.min(u64::from(end)) as u32
    }

    /// Whether the planted read-ahead-cancel fault strikes now: read-ahead
    /// is on and more operations are queued at the storage than its
    /// threshold.
    fn readahead_cancelled(&self) -> bool {
        self.readahead_pages > 0
            && self
                .cancel_queue
                .is_some_and(|k| self.storage.queued(self.now) > k)
    }

    /// The job's storage work is done: cache what it read, else copy.
    fn advance(&mut self, id: usize) {
        let job = self.jobs[id].as_mut().expect("live job");
        if job.pending > 0 {
            return;
        }
        if let Some((next, last)) = job.makeup {
            job.makeup = (next < last).then_some((next + 1, last));
            self.storage_op(Op::Read, u64::from(next) * self.page, self.page, id);
            return;
        }
        if let Some((first, last, ahead)) = job.insert.take() {
            self.cache_pages(first, last, false, id);
            self.cache_ahead(last + 1, ahead, id);
            if self.jobs[id].as_ref().expect("live job").pending > 0 {
                return;
            }
        }
        let job = self.jobs[id].as_ref().expect("live job");
        if job.slot.is_none() {
            self.jobs[id] = None;
            self.free_jobs.push(id);
            return;
        }
        let (i, free) = self.earliest_cpu();
        let t = free.max(self.now) + job.copy_ns;
        self.cpu_free[i] = t;
        self.stats.cpu_busy_ns += job.copy_ns;
        self.push(t, Event::CpuDone(id));
    }

    fn flush(&mut self) {
        let Some(c) = &mut self.cache else { return };
        let mut pages = Vec::new();
        while let Some((p, since)) = c.oldest_dirty() {
            if self.now.saturating_sub(since) < self.expire_ns {
                break;
            }
            c.clean(p);
            pages.push(p);
        }
        if !pages.is_empty() {
            let job = self.new_job(Job::background());
            self.write_out(pages, job);
            self.advance(job);
        }
        if let Some(f) = self.flush_ns {
            self.push(self.now + f, Event::Flush);
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::DiskDone(d) => {
                let mut out = std::mem::take(&mut self.scratch);
                self.storage.disk_done(d, self.now, &mut self.rng, &mut out);
                self.scratch = out;
                self.schedule();
            }
            Event::Part(tag) => {
                let id = job_of(tag);
                self.jobs[id].as_mut().expect("live job").pending -= 1;
                if let (Some(_), Some(r)) = (&self.quanta, region_of_tag(tag)) {
                    self.quantum_part_done(r);
                }
                self.advance(id);
            }
            Event::QuantumEnd(n) => self.quantum_end(n),
            Event::Prefetch(job) => {
                let (offset, len) = self.prefetching.remove(&job).expect("a prefetch");
                self.storage_op(Op::Read, offset, len, job);
                self.advance(job);
            }
            Event::Bus => {
                let mut out = std::mem::take(&mut self.scratch);
                self.storage.wake(self.now, &mut out);
                self.scratch = out;
                self.schedule();
            }
            Event::CpuDone(id) => {
                let job = self.jobs[id].take().expect("live job");
                self.free_jobs.push(id);
                self.done.push(Completion {
                    slot: job.slot.expect("a request"),
                    result: job.bytes as i64,
                });
            }
            Event::Flush => self.flush(),
        }
    }
}

impl Engine for SimEngine {
    fn submit(&mut self, slot: usize, io: &Io) -> std::io::Result<()> {
        let len = io.len as u64;
        let copy_ns = self.overhead_ns + transfer_ns(len, self.memory_mb_per_s);
        let job = self.new_job(Job {
            slot: Some(slot),
            bytes: len,
            pending: 0,
            insert: None,
            makeup: None,
            copy_ns,
        });
        if self.cache.is_none() {
            self.storage_op(io.op, io.offset, len, job);
            self.advance(job);
            return Ok(());
        }
        let first = (io.offset / self.page) as u32;
        let last = ((io.offset + len - 1) / self.page) as u32;
        match io.op {
            Op::Read => {
                let seq = self.last_read_end.insert(io.fd, io.offset + len) == Some(io.offset);
                let c = self.cache.as_mut().expect("cache");
                let mut missing: Option<(u32, u32)> = None;
                for p in first..=last {
                    if !c.touch(p) {
                        missing = Some(missing.map_or((p, p), |(a, _)| (a, p)));
                    }
                }
                match missing {
                    None => self.stats.read_hits += 1,
                    Some((a, b)) if seq && self.readahead_cancelled() => {
                        // Shen's bug #1: no read-ahead, and the pages asked
                        // for come one at a time.
                        self.stats.read_misses += 1;
                        let j = self.jobs[job].as_mut().expect("live job");
                        j.insert = Some((a, b, b));
                        j.makeup = (a < b).then_some((a + 1, b));
                        self.storage_op(Op::Read, u64::from(a) * self.page, self.page, job);
                    }
                    Some((a, b)) => {
                        self.stats.read_misses += 1;
                        let ahead = self.read_ahead(a, b, seq);
                        self.jobs[job].as_mut().expect("live job").insert = Some((a, b, ahead));
                        let (off, n) = (
                            u64::from(a) * self.page,
                            u64::from(ahead - a + 1) * self.page,
                        );
                        self.storage_op(Op::Read, off, n, job);
                    }
                }
            }
            Op::Write => match self.policy {
                WritePolicy::WriteBack => self.cache_pages(first, last, true, job),
                WritePolicy::WriteThrough => {
                    self.cache_pages(first, last, false, job);
                    self.storage_op(Op::Write, io.offset, len, job);
                }
            },
        }
        self.advance(job);
        Ok(())
    }

    fn pipelines(&self) -> bool {
        self.pipeline.is_some()
    }

    /// The host spends `async_read_overhead_ms` on a CPU issuing the read
    /// (the generator waits for it, and so does whatever that CPU does
    /// next), then it goes to the storage; its completion is not waited
    /// for.
    fn prefetch(&mut self, _slot: usize, _fd: i32, offset: u64, len: usize) -> u64 {
        let Some(cost) = self.pipeline else {
            return self.now;
        };
        let job = self.new_job(Job::background());
        let (i, free) = self.earliest_cpu();
        let t = free.max(self.now) + cost;
        if t <= self.now {
            // Free: at the storage now, before the read it is for.
            self.storage_op(Op::Read, offset, len as u64, job);
            self.advance(job);
            return t;
        }
        self.cpu_free[i] = t;
        self.stats.cpu_busy_ns += cost;
        self.prefetching.insert(job, (offset, len as u64));
        self.push(t, Event::Prefetch(job));
        t
    }

    fn resources(&self) -> Option<Resources> {
        Some(Resources {
            cpu_ns: self.stats.cpu_busy_ns,
            device_busy_ns: Some(self.storage.busy_ns()),
        })
    }

    fn reap(&mut self, deadline: Option<u64>, out: &mut Vec<Completion>) -> std::io::Result<()> {
        loop {
            if !self.done.is_empty() {
                out.append(&mut self.done);
                return Ok(());
            }
            let Some(Reverse((t, _, _))) = self.events.peek().copied() else {
                if deadline.is_none() {
                    // Something was submitted that can never complete: a bug
                    // in the model. Fail rather than spin.
                    return Err(std::io::Error::other(
                        "simulator: requests in flight but no events pending",
                    ));
                }
                self.now = self.now.max(deadline.unwrap_or(0));
                return Ok(());
            };
            if deadline.is_some_and(|d| t > d) {
                self.now = self.now.max(deadline.unwrap_or(0));
                return Ok(());
            }
            let Reverse((t, _, ev)) = self.events.pop().expect("peeked");
            self.now = self.now.max(t);
            self.handle(ev);
        }
    }

    fn now(&self) -> u64 {
        self.now
    }

    fn sleep_until(&mut self, t: u64) {
        // Background events (flushes) still happen while nothing is in flight.
        while let Some(Reverse((et, _, _))) = self.events.peek().copied() {
            if et > t {
                break;
            }
            let Reverse((et, _, ev)) = self.events.pop().expect("peeked");
            self.now = self.now.max(et);
            self.handle(ev);
        }
        self.now = self.now.max(t);
    }
}
