//! Simulated storage: disks (seek, rotation, transfer, track buffer, a
//! queue), RAID-0 over disks with an optional shared bus, and SSDs.
//!
//! Storage works in events: [`Storage::submit`] queues an operation and
//! returns what to schedule; [`Storage::disk_done`] ends a disk's current
//! operation and starts its next. An operation carries a `tag` that the
//! caller gets back when all of it has completed.

use super::config::{DiskConfig, QueuePolicy, StorageConfig};
use super::geometry::Layout;
use crate::generator::Op;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{BTreeMap, VecDeque};

/// Milliseconds to nanoseconds.
pub fn ms(v: f64) -> u64 {
    (v * 1e6).round() as u64
}

/// Nanoseconds to move `bytes` at `mb_per_s` (10^6 bytes per second).
pub fn transfer_ns(bytes: u64, mb_per_s: f64) -> u64 {
    (bytes as f64 * 1e3 / mb_per_s).round() as u64
}

/// One storage operation: `len` bytes at `offset`, reported back as `tag`.
#[derive(Clone, Copy, Debug)]
pub struct StorageOp {
    /// Read or write.
    pub op: Op,
    /// Byte offset on the (whole) storage.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Returned with each completed part.
    pub tag: usize,
}

#[derive(Clone, Debug)]
struct Disk {
    cfg: DiskConfig,
    /// FCFS: operations in arrival order.
    fifo: VecDeque<StorageOp>,
    /// Elevator: operations by (cylinder, arrival number), so that the
    /// nearest in the sweep direction is found in O(log n) even when a
    /// flush queues a million writes.
    by_cylinder: BTreeMap<(u64, u64), StorageOp>,
    arrivals: u64,
    current: Option<StorageOp>,
    head_cyl: u64,
    sweep_up: bool,
    /// The previous read ended here, at this time; since then the disk has
    /// been reading ahead into its track buffer.
    last_read_end: u64,
    last_read_done: u64,
    /// The previous operation of either kind ended here.
    last_end: u64,
    /// Time spent serving operations, ns.
    busy: u64,
    /// The disk's zones and tracks, when it has a geometry.
    layout: Option<Layout>,
    /// With a geometry: the track the heads are over.
    head_track: u64,
}

impl Disk {
    fn cylinder(&self, offset: u64) -> u64 {
        if let Some(l) = &self.layout {
            return l.cylinder(l.place(offset / l.sector_size()).track);
        }
        ((offset as u128 * u128::from(self.cfg.cylinders)) / u128::from(self.cfg.capacity.0.max(1)))
            as u64
    }

    /// Queues an operation.
    fn push(&mut self, o: StorageOp) {
        match self.cfg.queue {
            QueuePolicy::Fcfs => self.fifo.push_back(o),
            QueuePolicy::Elevator => {
                self.by_cylinder
                    .insert((self.cylinder(o.offset), self.arrivals), o);
                self.arrivals += 1;
            }
        }
    }

    /// Picks the next operation by the queue policy.
    fn pick(&mut self) -> Option<StorageOp> {
        match self.cfg.queue {
            QueuePolicy::Fcfs => self.fifo.pop_front(),
            QueuePolicy::Elevator => {
                if self.by_cylinder.is_empty() {
                    return None;
                }
                // LOOK: the nearest cylinder in the sweep direction, the
                // earliest arrival there; reverse when there is none.
                let head = self.head_cyl;
                let ahead = if self.sweep_up {
                    self.by_cylinder.range((head, 0)..).next().map(|(k, _)| k.0)
                } else {
                    self.by_cylinder
                        .range(..=(head, u64::MAX))
                        .next_back()
                        .map(|(k, _)| k.0)
                };
                let cyl = match ahead {
                    Some(c) => c,
                    None => {
                        self.sweep_up = !self.sweep_up;
                        let (first, last) = (
                            self.by_cylinder.first_key_value().map(|(k, _)| k.0),
                            self.by_cylinder.last_key_value().map(|(k, _)| k.0),
                        );
                        if self.sweep_up { first } else { last }.expect("not empty")
                    }
                };
                let key = *self
                    .by_cylinder
                    .range((cyl, 0)..)
                    .next()
                    .expect("the cylinder has an operation")
                    .0;
                self.by_cylinder.remove(&key)
            }
        }
    }

    /// Service time of `o` starting at `now`, in ns; moves the head.
    ///
    /// - A read that continues the previous read: after the previous read
    ///   the disk kept reading ahead at the media rate, up to
    ///   `track_buffer` bytes. What it has read ahead comes from the buffer
    ///   at buffer speed, the rest from the media; no seek, no rotation.
    /// - An operation that continues the previous one streams on: overhead
    ///   + media transfer, no seek, no rotational delay.
    /// - Anything else: overhead + seek + rotation + media transfer.
    fn service(&mut self, o: &StorageOp, now: u64, rng: &mut Xoshiro256PlusPlus) -> u64 {
        if self.layout.is_some() {
            return self.service_geometric(o, now);
        }
        let c = &self.cfg;
        let t = if o.op == Op::Read && o.offset == self.last_read_end {
            let idle_ns = now.saturating_sub(self.last_read_done);
            let ahead = ((idle_ns as f64 * c.media_mb_per_s / 1e3) as u64).min(c.track_buffer.0);
            let from_buffer = ahead.min(o.len);
            ms(c.overhead_ms)
                + transfer_ns(from_buffer, c.buffer_mb_per_s)
                + transfer_ns(o.len - from_buffer, c.media_mb_per_s)
        } else if o.offset == self.last_end {
            ms(c.overhead_ms) + transfer_ns(o.len, c.media_mb_per_s)
        } else {
            let d = self.cylinder(o.offset).abs_diff(self.head_cyl);
            let rot = rng.random::<f64>() * c.revolution_ms();
            ms(c.overhead_ms + c.seek_ms(d) + rot) + transfer_ns(o.len, c.media_mb_per_s)
        };
        self.head_cyl = self.cylinder(o.offset + o.len);
        self.last_end = o.offset + o.len;
        if o.op == Op::Read {
            self.last_read_end = o.offset + o.len;
            self.last_read_done = now + t;
        }
        self.busy += t;
        t
    }

    /// Service time with a geometry: overhead, then a seek (or a head
    /// switch on the same cylinder), then the transfer sector by sector as
    /// the platters turn ([`Layout::transfer`]). A read continuing the
    /// previous one takes what the disk read ahead from its buffer, as
    /// without a geometry; if the disk was still reading ahead when it
    /// came, the rest comes as the heads pass it, streaming on from where
    /// the last read left them (on the platters' own clock, so that the
    /// next track's first sector is met after the switch, not a
    /// revolution later).
    fn service_geometric(&mut self, o: &StorageOp, now: u64) -> u64 {
        let c = &self.cfg;
        let l = self.layout.as_ref().expect("a geometry");
        let sector = l.sector_size();
        let first = o.offset / sector;
        let n = (o.offset + o.len).div_ceil(sector) - first;
        let mut t = now as f64 + c.overhead_ms * 1e6;
        let (mut first, mut n) = (first, n);
        if o.op == Op::Read && o.offset == self.last_read_end {
            let idle_ns = now.saturating_sub(self.last_read_done);
            let ahead = ((idle_ns as f64 * c.media_mb_per_s / 1e3) as u64).min(c.track_buffer.0);
            let from_buffer = ahead.min(o.len);
            t += transfer_ns(from_buffer, c.buffer_mb_per_s) as f64;
            if ahead < c.track_buffer.0 {
                // Still reading ahead: the rest comes as the head passes
                // it, going on from where the last read left it.
                t = t.max(l.transfer(first, n, self.last_read_done as f64, true));
                self.head_track = l.place(first + n - 1).track;
                self.head_cyl = l.cylinder(self.head_track);
                n = 0;
            } else {
                let skip = (from_buffer / sector).min(n);
                first += skip;
                n -= skip;
            }
        }
        if n > 0 {
            t += c.positioning_ns(l, self.head_track, l.place(first).track);
            t = l.transfer(first, n, t, false);
            self.head_track = l.place(first + n - 1).track;
            self.head_cyl = l.cylinder(self.head_track);
        }
        let took = (t - now as f64).round().max(0.0) as u64;
        self.last_end = o.offset + o.len;
        if o.op == Op::Read {
            self.last_read_end = o.offset + o.len;
            self.last_read_done = now + took;
        }
        self.busy += took;
        took
    }
}

/// Something for the caller to schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Disk `n` finishes its current operation at this time.
    DiskDone(usize, u64),
    /// Part of the operation tagged `tag` completes at this time.
    Part(usize, u64),
    /// A shared bus has something to do at this time ([`Storage::wake`]).
    Wake(u64),
}

/// The storage below the cache.
#[derive(Clone, Debug)]
pub struct Storage {
    disks: Vec<Disk>,
    stripe: u64,
    bus_mb_per_s: Option<f64>,
    bus_free: u64,
    /// SSD: when each channel is next free; per-request costs.
    ssd: Option<Ssd>,
    /// Independent disks on a simulated bus.
    bus: Option<Box<super::bus::ScsiBus>>,
}

#[derive(Clone, Debug)]
struct Ssd {
    free: Vec<u64>,
    busy: u64,
    read: (u64, f64),
    write: (u64, f64),
}

impl Storage {
    /// Builds the storage of a configuration.
    pub fn new(cfg: &StorageConfig) -> Storage {
        let disk = |d: &DiskConfig| Disk {
            cfg: d.clone(),
            fifo: VecDeque::new(),
            by_cylinder: BTreeMap::new(),
            arrivals: 0,
            current: None,
            head_cyl: 0,
            sweep_up: true,
            last_read_end: u64::MAX,
            last_read_done: 0,
            last_end: u64::MAX,
            busy: 0,
            layout: d.geometry.as_ref().map(|g| Layout::new(g, d.rpm)),
            head_track: 0,
        };
        match cfg {
            StorageConfig::Disk { disk: d } => Storage {
                disks: vec![disk(d)],
                stripe: u64::MAX,
                bus_mb_per_s: None,
                bus_free: 0,
                ssd: None,
                bus: None,
            },
            StorageConfig::Raid0 {
                disks,
                stripe_unit,
                disk: d,
                bus_mb_per_s,
            } => Storage {
                disks: (0..*disks).map(|_| disk(d)).collect(),
                stripe: stripe_unit.0,
                bus_mb_per_s: *bus_mb_per_s,
                bus_free: 0,
                ssd: None,
                bus: None,
            },
            StorageConfig::Ssd {
                channels,
                read_overhead_ms,
                write_overhead_ms,
                read_mb_per_s,
                write_mb_per_s,
                ..
            } => Storage {
                disks: vec![],
                stripe: u64::MAX,
                bus_mb_per_s: None,
                bus_free: 0,
                ssd: Some(Ssd {
                    free: vec![0; *channels as usize],
                    busy: 0,
                    read: (ms(*read_overhead_ms), *read_mb_per_s),
                    write: (ms(*write_overhead_ms), *write_mb_per_s),
                }),
                bus: None,
            },
            StorageConfig::Bus { .. } => Storage {
                disks: vec![],
                stripe: u64::MAX,
                bus_mb_per_s: None,
                bus_free: 0,
                ssd: None,
                bus: super::bus::ScsiBus::of(cfg).map(Box::new),
            },
        }
    }

    /// Time the storage spent serving operations, ns, averaged over its
    /// disks (or an SSD's channels).
    pub fn busy_ns(&self) -> u64 {
        if let Some(b) = &self.bus {
            return b.busy_ns();
        }
        match &self.ssd {
            Some(s) => s.busy / s.free.len() as u64,
            None => self.disks.iter().map(|d| d.busy).sum::<u64>() / self.disks.len() as u64,
        }
    }

    /// Operations (parts) queued or being served at time `now`.
    pub fn queued(&self, now: u64) -> usize {
        if let Some(b) = &self.bus {
            return b.queued();
        }
        match &self.ssd {
            Some(s) => s.free.iter().filter(|&&f| f > now).count(),
            None => self
                .disks
                .iter()
                .map(|d| d.fifo.len() + d.by_cylinder.len() + usize::from(d.current.is_some()))
                .sum(),
        }
    }

    /// Queues `req` at time `now`; returns the number of parts it was split
    /// into, and pushes what to schedule.
    pub fn submit(
        &mut self,
        now: u64,
        req: StorageOp,
        rng: &mut Xoshiro256PlusPlus,
        out: &mut Vec<Schedule>,
    ) -> u32 {
        let StorageOp {
            op,
            offset,
            len,
            tag,
        } = req;
        if let Some(b) = &mut self.bus {
            return b.submit(now, req, out);
        }
        if let Some(ssd) = &mut self.ssd {
            let (over, rate) = if op == Op::Read { ssd.read } else { ssd.write };
            let (i, free) = super::earliest(&ssd.free);
            let done = free.max(now) + over + transfer_ns(len, rate);
            ssd.free[i] = done;
            ssd.busy += over + transfer_ns(len, rate);
            out.push(Schedule::Part(tag, done));
            return 1;
        }
        let n = self.disks.len() as u64;
        let mut parts = 0;
        let mut off = offset;
        let end = offset + len;
        while off < end {
            // RAID-0: stripe unit `s` number k lives on disk k mod n at k / n.
            let (disk, local, piece) = if n == 1 {
                (0, off, end - off)
            } else {
                let k = off / self.stripe;
                let within = off % self.stripe;
                let piece = (self.stripe - within).min(end - off);
                ((k % n) as usize, (k / n) * self.stripe + within, piece)
            };
            parts += 1;
            let d = &mut self.disks[disk];
            d.push(StorageOp {
                op,
                offset: local,
                len: piece,
                tag,
            });
            if d.current.is_none() {
                self.start(disk, now, rng, out);
            }
            off += piece;
        }
        parts
    }

    fn start(
        &mut self,
        disk: usize,
        now: u64,
        rng: &mut Xoshiro256PlusPlus,
        out: &mut Vec<Schedule>,
    ) {
        let d = &mut self.disks[disk];
        if let Some(o) = d.pick() {
            let t = d.service(&o, now, rng);
            d.current = Some(o);
            out.push(Schedule::DiskDone(disk, now + t));
        }
    }

    /// A shared bus's wake-up at `now` ([`Schedule::Wake`]).
    pub fn wake(&mut self, now: u64, out: &mut Vec<Schedule>) {
        if let Some(b) = &mut self.bus {
            b.wake(now, out);
        }
    }

    /// Disk `disk` finished its operation at `now`: passes the part on
    /// (through the bus, if shared) and starts the next operation.
    pub fn disk_done(
        &mut self,
        disk: usize,
        now: u64,
        rng: &mut Xoshiro256PlusPlus,
        out: &mut Vec<Schedule>,
    ) {
        let o = self.disks[disk]
            .current
            .take()
            .expect("a disk completes what it started");
        let at = match self.bus_mb_per_s {
            Some(rate) => {
                self.bus_free = self.bus_free.max(now) + transfer_ns(o.len, rate);
                self.bus_free
            }
            None => now,
        };
        out.push(Schedule::Part(o.tag, at));
        self.start(disk, now, rng, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimConfig;
    use rand::SeedableRng;

    /// Keeps `depth` random 4 KiB reads queued at one disk, with offsets
    /// drawn independently over `span` bytes; returns operations per second.
    fn closed_loop(queue: QueuePolicy, depth: usize, span: u64) -> f64 {
        let mut cfg = SimConfig::load("raw-disk").unwrap().storage;
        let StorageConfig::Disk { disk } = &mut cfg else {
            panic!("one disk")
        };
        disk.queue = queue;
        let mut st = Storage::new(&cfg);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut offsets = Xoshiro256PlusPlus::seed_from_u64(10);
        let mut events: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
            Default::default();
        let mut out = Vec::new();
        let read = |offset, tag| StorageOp {
            op: Op::Read,
            offset,
            len: 4096,
            tag,
        };
        let draw = |r: &mut Xoshiro256PlusPlus| r.random_range(0..span / 4096) * 4096;
        for tag in 0..depth {
            st.submit(0, read(draw(&mut offsets), tag), &mut rng, &mut out);
        }
        let (mut now, mut done) = (0, 0u64);
        while done < 20_000 {
            let pending: Vec<Schedule> = std::mem::take(&mut out);
            for s in pending {
                match s {
                    Schedule::DiskDone(d, t) => events.push(std::cmp::Reverse((t, d))),
                    Schedule::Part(tag, t) => {
                        done += 1;
                        now = now.max(t);
                        st.submit(now, read(draw(&mut offsets), tag), &mut rng, &mut out);
                    }
                    Schedule::Wake(_) => unreachable!("one disk has no bus"),
                }
            }
            if out.is_empty() {
                let std::cmp::Reverse((t, d)) = events.pop().expect("the disk is busy");
                now = t;
                st.disk_done(d, now, &mut rng, &mut out);
            }
        }
        done as f64 / (now as f64 / 1e9)
    }

    /// LOOK over a plain list, as first written: the nearest cylinder in
    /// the sweep direction, the earliest arrival among equals.
    fn naive_pick(d: &Disk, queue: &mut Vec<StorageOp>, sweep_up: &mut bool) -> StorageOp {
        for _ in 0..2 {
            let head = d.head_cyl;
            let best = queue
                .iter()
                .enumerate()
                .filter(|(_, o)| {
                    let c = d.cylinder(o.offset);
                    if *sweep_up {
                        c >= head
                    } else {
                        c <= head
                    }
                })
                .min_by_key(|(i, o)| (d.cylinder(o.offset).abs_diff(head), *i))
                .map(|(i, _)| i);
            if let Some(i) = best {
                return queue.remove(i);
            }
            *sweep_up = !*sweep_up;
        }
        unreachable!("the queue is not empty")
    }

    proptest::proptest! {
        /// The elevator's ordered queue picks exactly what a scan of the
        /// whole queue picks, whatever the arrivals and the head.
        #[test]
        fn the_ordered_elevator_picks_what_a_full_scan_picks(
            steps in proptest::collection::vec((0u64..64, 0u8..3), 1..200),
        ) {
            let mut cfg = SimConfig::load("hdd").unwrap().storage;
            let StorageConfig::Disk { disk: dc } = &mut cfg else { panic!("one disk") };
            dc.cylinders = 16;
            dc.capacity.0 = 64 * 4096;
            let mut st = Storage::new(&cfg);
            let d = &mut st.disks[0];
            let (mut naive, mut up) = (Vec::new(), true);
            for (tag, (block, picks)) in steps.into_iter().enumerate() {
                let o = StorageOp { op: Op::Read, offset: block * 4096, len: 4096, tag };
                d.push(o);
                naive.push(o);
                for _ in 0..picks {
                    let Some(got) = d.pick() else {
                        proptest::prop_assert!(naive.is_empty());
                        continue;
                    };
                    let want = naive_pick(d, &mut naive, &mut up);
                    proptest::prop_assert_eq!(got.tag, want.tag);
                    proptest::prop_assert_eq!(d.sweep_up, up);
                    d.head_cyl = d.cylinder(got.offset + got.len);
                }
            }
        }
    }

    #[test]
    fn the_elevator_beats_fcfs_under_a_deep_queue() {
        let span = 256 << 20;
        let fcfs = closed_loop(QueuePolicy::Fcfs, 16, span);
        let elevator = closed_loop(QueuePolicy::Elevator, 16, span);
        assert!(
            elevator > 1.25 * fcfs,
            "elevator {elevator:.1}/s vs FCFS {fcfs:.1}/s"
        );
        // With one request queued there is nothing to reorder.
        let (a, b) = (
            closed_loop(QueuePolicy::Fcfs, 1, span),
            closed_loop(QueuePolicy::Elevator, 1, span),
        );
        assert!((a / b - 1.0).abs() < 1e-9, "{a} vs {b}");
    }
}
