//! Independent disks sharing one bus, event by event (Barve et al.,
//! sections 3-4): commands go over the bus, a disk disconnects to
//! position and read into its buffer, asks for the bus again when the
//! fence's share is buffered, sends from the buffer at the bus rate and
//! then at the media rate as the sectors come, and lets go at a track
//! boundary it has caught up with or at the end. The host adapter's
//! arbitration decides who gets a free bus: disk-first (the host asks
//! only when no disk does, which makes rounds) or host-first.
//!
//! Times are ns, as `f64` inside and rounded up for the event queue.

use super::config::{Arbitration, DiskConfig};
use super::geometry::Layout;
use super::storage::{Schedule, StorageOp};
use crate::generator::Op;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A request's data as it reaches the disk's buffer: one part per track,
/// (first byte in, last byte in, bytes).
type Segments = Vec<(f64, f64, u64)>;

#[derive(Clone, Debug)]
struct Xfer {
    op: StorageOp,
    segs: Segments,
    /// Bytes sent to the host so far.
    sent: u64,
    /// When the disk asks for the bus next.
    want: f64,
}

impl Xfer {
    /// When the first `x` bytes are all in the buffer.
    fn arrival(&self, x: u64) -> f64 {
        let mut before = 0;
        for &(st, en, b) in &self.segs {
            if x <= before + b {
                let frac = (x - before) as f64 / b.max(1) as f64;
                return if x == before {
                    st
                } else {
                    st + frac * (en - st)
                };
            }
            before += b;
        }
        self.segs.last().map_or(0.0, |s| s.1)
    }

    fn done_reading(&self) -> f64 {
        self.segs.last().map_or(0.0, |s| s.1)
    }
}

#[derive(Clone, Debug, Default)]
struct BusDisk {
    /// Commands received, not started.
    queue: VecDeque<StorageOp>,
    xfer: Option<Xfer>,
    head_track: u64,
    /// Where the last read ended and when its last sector was read: since
    /// then the disk reads ahead into its buffer.
    last_read_end: Option<u64>,
    last_read_done: f64,
    busy_ns: f64,
    started: f64,
}

#[derive(Clone, Copy, Debug)]
enum Due {
    /// A command reaches its disk.
    Command(usize, StorageOp),
    /// A disk has sent (or written) all of its request.
    Finished(usize),
}

/// The bus and its disks. See the module documentation.
#[derive(Clone, Debug)]
pub struct ScsiBus {
    disks: Vec<BusDisk>,
    cfg: DiskConfig,
    layout: Layout,
    bus_ns_per_byte: f64,
    arbitration: Arbitration,
    fence: u64,
    command_ns: f64,
    /// Commands the host has yet to send, in order.
    host: VecDeque<(usize, StorageOp)>,
    bus_free: f64,
    wakes: BTreeSet<u64>,
    due: BTreeMap<(u64, u64), Due>,
    seq: u64,
}

/// Bytes a disk waits for before asking for the bus: the fence's share
/// (of 256) of the request, at least a sector, past what it has sent.
fn fence_bytes(fence: u64, sector: u64, x: &Xfer) -> u64 {
    let share = (x.op.len * fence / 256).max(sector);
    (x.sent + share).min(x.op.len)
}

/// Wake-up times go to the event queue rounded up to whole ns.
fn tick(t: f64) -> u64 {
    t.ceil().max(0.0) as u64
}

impl ScsiBus {
    /// The bus of a storage configuration of kind `bus`.
    pub fn of(cfg: &super::config::StorageConfig) -> Option<ScsiBus> {
        match cfg {
            super::config::StorageConfig::Bus {
                disks,
                disk,
                bus_mb_per_s,
                arbitration,
                fence,
                command_ms,
            } => Some(ScsiBus::new(
                *disks,
                disk,
                *bus_mb_per_s,
                *arbitration,
                *fence,
                *command_ms,
            )),
            _ => None,
        }
    }

    /// `disks` disks like `disk` (which has a geometry) on a bus of
    /// `bus_mb_per_s`.
    pub fn new(
        disks: u32,
        disk: &DiskConfig,
        bus_mb_per_s: f64,
        arbitration: Arbitration,
        fence: u32,
        command_ms: f64,
    ) -> ScsiBus {
        let g = disk.geometry.as_ref().expect("bus disks have a geometry");
        ScsiBus {
            disks: vec![BusDisk::default(); disks as usize],
            cfg: disk.clone(),
            layout: Layout::new(g, disk.rpm),
            bus_ns_per_byte: 1e3 / bus_mb_per_s,
            arbitration,
            fence: u64::from(fence),
            command_ns: command_ms * 1e6,
            host: VecDeque::new(),
            bus_free: 0.0,
            wakes: BTreeSet::new(),
            due: BTreeMap::new(),
            seq: 0,
        }
    }

    /// Time the disks spent serving requests (command received to last
    /// byte sent), ns, averaged over the disks.
    pub fn busy_ns(&self) -> u64 {
        (self.disks.iter().map(|d| d.busy_ns).sum::<f64>() / self.disks.len() as f64) as u64
    }

    /// Requests at the host, queued at a disk or in service.
    pub fn queued(&self) -> usize {
        self.host.len()
            + self
                .disks
                .iter()
                .map(|d| d.queue.len() + usize::from(d.xfer.is_some()))
                .sum::<usize>()
    }

    /// Queues `req` at the host (split at disk boundaries); returns the
    /// number of parts.
    pub fn submit(&mut self, now: u64, req: StorageOp, out: &mut Vec<Schedule>) -> u32 {
        let cap = self.cfg.capacity.0;
        let (mut off, end) = (req.offset, req.offset + req.len);
        let mut parts = 0;
        while off < end {
            let d = ((off / cap) as usize).min(self.disks.len() - 1);
            let piece = ((d as u64 + 1) * cap)
                .saturating_sub(off)
                .min(end - off)
                .max(1);
            let local = StorageOp {
                offset: off - d as u64 * cap,
                len: piece,
                ..req
            };
            self.host.push_back((d, local));
            off += piece;
            parts += 1;
        }
        self.wake(now, out);
        parts
    }

    /// Does what is due by `now` and gives a free bus to whoever may have
    /// it; schedules the next wake-up.
    pub fn wake(&mut self, now: u64, out: &mut Vec<Schedule>) {
        self.wakes.remove(&now);
        while let Some((&(t, s), _)) = self.due.first_key_value() {
            if t > now {
                break;
            }
            let due = self.due.remove(&(t, s)).expect("present");
            match due {
                Due::Command(d, op) => {
                    self.disks[d].queue.push_back(op);
                    if self.disks[d].xfer.is_none() {
                        self.start(d, t as f64, out);
                    }
                }
                Due::Finished(d) => self.finish(d, t as f64, out),
            }
        }
        let now_f = now as f64;
        if self.bus_free <= now_f {
            self.arbitrate(now_f, out);
        }
        let next_want = self
            .disks
            .iter()
            .filter_map(|d| d.xfer.as_ref())
            .filter(|x| x.op.op == Op::Read && x.sent < x.op.len && x.want > now_f)
            .map(|x| x.want)
            .fold(f64::INFINITY, f64::min);
        // A busy bus is looked at again when it is free; a free one when
        // the next disk wants it.
        let mut next = if self.bus_free > now_f {
            self.bus_free
        } else {
            next_want
        };
        if let Some((&(t, _), _)) = self.due.first_key_value() {
            next = next.min(t as f64);
        }
        if next.is_finite() && next > now_f {
            self.schedule(tick(next), out);
        }
    }

    fn schedule(&mut self, t: u64, out: &mut Vec<Schedule>) {
        if self.wakes.insert(t) {
            out.push(Schedule::Wake(t));
        }
    }

    fn at(&mut self, t: f64, due: Due, out: &mut Vec<Schedule>) {
        self.seq += 1;
        self.due.insert((tick(t), self.seq), due);
        self.schedule(tick(t), out);
    }

    /// Disk `d` starts its next command at `t`: overhead, then positioning
    /// and reading into its buffer (or, for a write, writing).
    fn start(&mut self, d: usize, t: f64, out: &mut Vec<Schedule>) {
        let Some(op) = self.disks[d].queue.pop_front() else {
            return;
        };
        let l = &self.layout;
        let c = &self.cfg;
        let sector = l.sector_size();
        let disk = &mut self.disks[d];
        disk.started = t;
        let mut at = t + c.overhead_ms * 1e6;
        let first = op.offset / sector;
        let n = (op.offset + op.len).div_ceil(sector) - first;
        let mut segs: Segments = Vec::new();
        let (mut first, mut n, mut streaming) = (first, n, false);
        if op.op == Op::Read && disk.last_read_end == Some(op.offset) {
            // The disk has read on since the last read ended.
            let idle = (at - disk.last_read_done).max(0.0);
            let ahead = (idle * c.media_mb_per_s / 1e3) as u64;
            if ahead < c.track_buffer.0 {
                // Still reading: the sectors come as the head passes them,
                // from where the last read left it (those already passed
                // are in the buffer now).
                let mut left = op.len;
                l.segments(first, n, disk.last_read_done, true, |st, en, k| {
                    let b = (k * sector).min(left);
                    left -= b;
                    segs.push((st.max(at), en.max(at), b));
                });
                disk.head_track = l.place(first + n - 1).track;
                n = 0;
            } else {
                // The buffer filled and the disk stopped: what it holds
                // is there, the rest is read anew.
                let from_buffer = c.track_buffer.0.min(op.len) / sector * sector;
                segs.push((at, at, from_buffer));
                let skip = (from_buffer / sector).min(n);
                first += skip;
                n -= skip;
                streaming = false;
            }
        }
        if n > 0 {
            let target = l.place(first).track;
            if !streaming {
                at += c.positioning_ns(l, disk.head_track, target);
            }
            let mut left = op.len - segs.iter().map(|s| s.2).sum::<u64>();
            l.segments(first, n, at, streaming, |st, en, k| {
                let b = (k * sector).min(left);
                left -= b;
                segs.push((st, en, b));
            });
            disk.head_track = l.place(first + n - 1).track;
        }
        let mut x = Xfer {
            op,
            segs,
            sent: 0,
            want: 0.0,
        };
        if op.op == Op::Write {
            // The data came with the command; done when it is on the media.
            x.sent = op.len;
            let end = x.done_reading().max(t);
            disk.xfer = Some(x);
            self.at(end, Due::Finished(d), out);
            return;
        }
        x.want = x.arrival(fence_bytes(self.fence, sector, &x));
        disk.xfer = Some(x);
    }

    fn finish(&mut self, d: usize, t: f64, out: &mut Vec<Schedule>) {
        let disk = &mut self.disks[d];
        let x = disk.xfer.take().expect("a disk finishes what it started");
        disk.busy_ns += t - disk.started;
        disk.last_read_end = (x.op.op == Op::Read).then_some(x.op.offset + x.op.len);
        disk.last_read_done = x.done_reading();
        out.push(Schedule::Part(x.op.tag, tick(t)));
        self.start(d, t, out);
    }

    /// The bus is free at `now`: the host or a disk that wants it gets it.
    fn arbitrate(&mut self, now: f64, out: &mut Vec<Schedule>) {
        // SCSI priority: the highest ID wins among disks.
        let disk = (0..self.disks.len()).rev().find(|&d| {
            self.disks[d]
                .xfer
                .as_ref()
                .is_some_and(|x| x.op.op == Op::Read && x.sent < x.op.len && x.want <= now)
        });
        let host_turn =
            !self.host.is_empty() && (disk.is_none() || self.arbitration == Arbitration::HostFirst);
        if host_turn {
            let (d, op) = self.host.pop_front().expect("a command");
            let data = if op.op == Op::Write { op.len } else { 0 };
            let took = self.command_ns + data as f64 * self.bus_ns_per_byte;
            self.bus_free = now + took;
            self.at(self.bus_free, Due::Command(d, op), out);
        } else if let Some(d) = disk {
            self.connect(d, now, out);
        }
    }

    /// Disk `d` holds the bus from `now`: sends what its buffer has at the
    /// bus rate, then each sector as it is read, until it has caught up
    /// at a track boundary (it disconnects) or sent everything.
    fn connect(&mut self, d: usize, now: f64, out: &mut Vec<Schedule>) {
        let per = self.bus_ns_per_byte;
        let x = self.disks[d].xfer.as_mut().expect("a transfer");
        let (mut s, mut sent) = (now, x.sent);
        let mut before = 0;
        for (i, &(_, en, b)) in x.segs.iter().enumerate() {
            let end = before + b;
            before = end;
            if sent >= end {
                continue;
            }
            s = (s + (end - sent) as f64 * per).max(en);
            sent = end;
            let next_start = x.segs.get(i + 1).map(|n| n.0);
            if next_start.is_none_or(|st| s <= st) {
                break; // all sent, or caught up at a track boundary
            }
        }
        x.sent = sent;
        self.bus_free = s;
        if sent >= x.op.len {
            self.at(s, Due::Finished(d), out);
        } else {
            let want = fence_bytes(self.fence, self.layout.sector_size(), x);
            x.want = x.arrival(want).max(s);
            self.schedule(tick(s), out);
        }
    }
}
