//! A simulated system's description: the JSON of a preset.
//!
//! Units are in the field names: `_ms` milliseconds, `_mb_per_s` decimal
//! megabytes (10^6 bytes) per second, byte sizes as integers or strings with
//! a unit ("21MiB").

use super::geometry::Geometry;
use crate::units::Bytes;
use crate::Error;
use serde::{Deserialize, Serialize};

/// A whole simulated system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Short name.
    pub name: String,
    /// What it models.
    pub description: String,
    /// The effective cache size(s) this system is built to show, smallest
    /// first: what a self-scaling run should infer. `[]` without a cache.
    pub cache_sizes_bytes: Vec<Bytes>,
    /// The host: cost of the system call and the memory copy.
    pub cpu: CpuConfig,
    /// The file cache, or `null` for raw access.
    pub cache: Option<CacheConfig>,
    /// The storage below the cache.
    pub storage: StorageConfig,
    /// Argon's insulation between workloads run together (`willy
    /// interfere`); absent: none, as in an ordinary system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insulation: Option<Insulation>,
    /// Known performance bugs planted on purpose, for `willy anomalies` to
    /// find (Shen et al., FAST'05, section 5); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Faults>,
}

/// Performance bugs a simulated system can be given, after the ones Shen,
/// Zhong and Li found in Linux 2.6.10.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Faults {
    /// Shen's bug #1: a sequential read miss whose read-ahead starts while
    /// more than this many operations are queued at the storage has its
    /// read-ahead cancelled, and the pages the application asked for are
    /// then read one page at a time, each waiting for the one before
    /// ("single-page makeup I/Os").
    #[serde(default)]
    pub readahead_cancel_queue: Option<u32>,
}

/// Argon's three mechanisms (Wachs et al., FAST'07, section 3), each off
/// unless given. A workload run with others is told apart by its region
/// of the simulated storage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Insulation {
    /// Amortization: a sequential read miss reads this much (prefetch), and
    /// a dirty page written out takes the contiguous dirty pages after it
    /// along up to this much (write-back coalescing), per workload.
    #[serde(default)]
    pub amortization: Option<Bytes>,
    /// Round-robin disk time quanta, ms: one workload's requests at a time
    /// reach the storage; when its quantum is over, what it has there
    /// drains and the next workload with requests waiting has its turn (a
    /// workload with none waiting is skipped).
    #[serde(default)]
    pub quantum_ms: Option<f64>,
    /// Cache partitions, one per workload: `"stack"` sizes each from its
    /// LRU stack distances, the least that keeps its throughput within
    /// `r_value` of what the whole cache gives it (the rest is shared out
    /// evenly); `"equal"` splits the cache evenly; or a list of sizes.
    #[serde(default)]
    pub partitions: Option<Partitions>,
    /// The R-value `"stack"` partitions are sized for (default 0.9).
    #[serde(default = "default_r_value")]
    pub r_value: f64,
}

fn default_r_value() -> f64 {
    0.9
}

impl Insulation {
    fn validate(&self, cached: bool) -> Result<(), String> {
        if self.amortization.is_some_and(|a| a.0 == 0) {
            return Err("insulation.amortization must be positive".into());
        }
        if self.quantum_ms.is_some_and(|q| !(q > 0.0 && q.is_finite())) {
            return Err("insulation.quantum_ms must be positive".into());
        }
        if !(self.r_value > 0.0 && self.r_value < 1.0) {
            return Err("insulation.r_value must be between 0 and 1".into());
        }
        if self.partitions.is_some() && !cached {
            return Err("insulation.partitions needs a cache".into());
        }
        Ok(())
    }
}

impl Default for Insulation {
    fn default() -> Insulation {
        Insulation {
            amortization: None,
            quantum_ms: None,
            partitions: None,
            r_value: default_r_value(),
        }
    }
}

/// How the cache is partitioned among workloads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Partitions {
    /// Sized by a rule.
    Rule(PartitionRule),
    /// One size per workload, in order.
    Sizes(Vec<Bytes>),
}

/// A partition-sizing rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartitionRule {
    /// From each workload's LRU stack distances.
    Stack,
    /// Evenly.
    Equal,
}

/// Per-request host costs. A request's copy between cache and user memory
/// takes `request_overhead_ms + bytes / memory_mb_per_s` on one of `cpus`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuConfig {
    /// Fixed cost of every request (system call, lookup), ms.
    pub request_overhead_ms: f64,
    /// Memory copy bandwidth, MB/s.
    pub memory_mb_per_s: f64,
    /// Requests that can be copied at once.
    pub cpus: u32,
    /// The host's cost of issuing one asynchronous read (Barve's
    /// `aioread()`, with pipelining), ms of a CPU before the read reaches
    /// the storage.
    #[serde(default)]
    pub async_read_overhead_ms: f64,
}

/// When a write reaches the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// Writes complete in the cache; dirty pages go to storage on eviction,
    /// when dirty data passes `dirty_limit`, or from the periodic flusher.
    WriteBack,
    /// Writes complete when the storage has them; the cache keeps a clean copy.
    WriteThrough,
}

/// An LRU page cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Capacity.
    pub capacity: Bytes,
    /// Page size (the unit of caching).
    pub page_size: Bytes,
    /// Write-back or write-through.
    pub write_policy: WritePolicy,
    /// Most dirty data the cache holds; a write past it writes out the
    /// oldest dirty pages until 7/8 of the limit is left, and waits for them.
    /// `null`: only the capacity limits dirty data.
    pub dirty_limit: Option<Bytes>,
    /// The flusher wakes this often, s (`null`: no periodic flusher).
    pub flush_interval_s: Option<f64>,
    /// ... and writes out pages dirty for longer than this, s.
    pub dirty_expire_s: f64,
    /// Read-ahead on a sequential read miss: this much more is read.
    pub readahead: Bytes,
    /// Write dirty pages out as one sequential log write per batch (a
    /// log-structured filesystem such as Sprite LFS) instead of to their
    /// own addresses.
    #[serde(default)]
    pub log_writes: bool,
}

/// What is below the cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum StorageConfig {
    /// One disk.
    Disk {
        /// The disk.
        disk: DiskConfig,
    },
    /// RAID-0 over identical disks.
    Raid0 {
        /// Number of disks.
        disks: u32,
        /// Stripe unit.
        stripe_unit: Bytes,
        /// Each disk.
        disk: DiskConfig,
        /// A bus shared by all disks, MB/s (`null`: no shared bus).
        bus_mb_per_s: Option<f64>,
    },
    /// Independent disks sharing one bus (Barve et al.), not striped:
    /// disk `k` holds bytes `k * capacity` to `(k + 1) * capacity` of the
    /// storage, and each can be a target of its own (`sim:NAME:k`). Each
    /// request's data goes through the disk's buffer, and the bus is
    /// simulated event by event: the host sends commands over it, a disk
    /// disconnects to position, asks for the bus again once its buffer
    /// holds the fence's share of the request, holds it while it sends
    /// (at the bus rate from the buffer, then at the media rate), and lets
    /// go at a track boundary it has caught up with, or at the end.
    Bus {
        /// Number of disks.
        disks: u32,
        /// Each disk.
        disk: DiskConfig,
        /// The bus's rate, MB/s.
        bus_mb_per_s: f64,
        /// Who gets a free bus when the host and a disk both want it.
        arbitration: Arbitration,
        /// The buffer-full ratio, 0 to 255: a disk asks for the bus when
        /// `fence / 256` of the request (at least one sector) is in its
        /// buffer.
        #[serde(default)]
        fence: u32,
        /// The bus time to send one command, ms.
        command_ms: f64,
    },
    /// A flash device: no seek, `channels` requests served at once.
    Ssd {
        /// Capacity.
        capacity: Bytes,
        /// Internal parallelism.
        channels: u32,
        /// Per-request latency, reads, ms.
        read_overhead_ms: f64,
        /// Per-request latency, writes, ms.
        write_overhead_ms: f64,
        /// Read transfer rate per channel, MB/s.
        read_mb_per_s: f64,
        /// Write transfer rate per channel, MB/s.
        write_mb_per_s: f64,
    },
}

/// A bus's arbitration policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// The host adapter asks for the bus only when no disk does (Barve's
    /// observed policy, which makes rounds).
    DiskFirst,
    /// The host, highest priority on the bus, wins whenever it has a
    /// command to send.
    HostFirst,
}

/// Request queue order at a disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueuePolicy {
    /// First come, first served.
    Fcfs,
    /// Elevator (LOOK): the nearest request ahead in the sweep direction.
    Elevator,
}

/// A disk. Seek time for a distance of `d > 0` cylinders is
/// `a + b * sqrt(d)` below `seek_break_cyl` and `c + e * d` from it on (the
/// form of Barve et al. and Shen et al.); rotational latency is uniform over
/// one revolution; transfer is at `media_mb_per_s`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskConfig {
    /// Capacity.
    pub capacity: Bytes,
    /// Cylinders over the capacity.
    pub cylinders: u64,
    /// Short-seek constant, ms.
    pub seek_a_ms: f64,
    /// Short-seek sqrt coefficient, ms.
    pub seek_b_ms: f64,
    /// Long-seek constant, ms.
    pub seek_c_ms: f64,
    /// Long-seek linear coefficient, ms per cylinder.
    pub seek_e_ms: f64,
    /// Where long seeks start, cylinders.
    pub seek_break_cyl: u64,
    /// Spindle speed.
    pub rpm: f64,
    /// Media transfer rate, MB/s.
    pub media_mb_per_s: f64,
    /// Controller overhead per request, ms.
    pub overhead_ms: f64,
    /// On-disk read-ahead buffer: after a read the disk reads ahead at the
    /// media rate, up to this much; a read continuing the previous one gets
    /// what was read ahead at `buffer_mb_per_s`.
    pub track_buffer: Bytes,
    /// Transfer rate from the track buffer, MB/s.
    pub buffer_mb_per_s: f64,
    /// Queue order.
    pub queue: QueuePolicy,
    /// Zones, tracks, switches and skew (see [`super::geometry`]); absent:
    /// rotational latency uniform over a revolution, no track boundaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geometry: Option<Geometry>,
}

impl StorageConfig {
    /// What an access away from the current position costs besides its
    /// transfer, ms: a disk's overhead, mean seek and half a revolution
    /// (Argon's `T_seek + T_rot / 2`, section 3.3); an SSD's read latency.
    pub fn positioning_ms(&self) -> f64 {
        match self {
            StorageConfig::Disk { disk }
            | StorageConfig::Raid0 { disk, .. }
            | StorageConfig::Bus { disk, .. } => {
                disk.overhead_ms + disk.mean_seek_ms() + disk.revolution_ms() / 2.0
            }
            StorageConfig::Ssd {
                read_overhead_ms, ..
            } => *read_overhead_ms,
        }
    }

    /// Media rate of the whole storage, MB/s: a disk's, an array's disks'
    /// together, an SSD's channels' together (reads).
    pub fn media_mb_per_s(&self) -> f64 {
        match self {
            StorageConfig::Disk { disk } => disk.media_mb_per_s,
            StorageConfig::Raid0 { disks, disk, .. } => disk.media_mb_per_s * f64::from(*disks),
            StorageConfig::Bus {
                disks,
                disk,
                bus_mb_per_s,
                ..
            } => (disk.media_mb_per_s * f64::from(*disks)).min(*bus_mb_per_s),
            StorageConfig::Ssd {
                channels,
                read_mb_per_s,
                ..
            } => read_mb_per_s * f64::from(*channels),
        }
    }
}

impl DiskConfig {
    /// Mean seek time between two positions drawn uniformly over the disk,
    /// ms: the seek curve against the density `2 (C - d) / C^2` of their
    /// distance `d` over `C` cylinders, integrated in closed form piece by
    /// piece.
    pub fn mean_seek_ms(&self) -> f64 {
        let c = self.cylinders as f64;
        let b = (self.seek_break_cyl as f64).min(c);
        // Integrals over [lo, hi] of (C - d), (C - d) d and (C - d) sqrt(d).
        let one = |lo: f64, hi: f64| c * (hi - lo) - (hi * hi - lo * lo) / 2.0;
        let lin =
            |lo: f64, hi: f64| c * (hi * hi - lo * lo) / 2.0 - (hi.powi(3) - lo.powi(3)) / 3.0;
        let root = |lo: f64, hi: f64| {
            c * 2.0 / 3.0 * (hi.powf(1.5) - lo.powf(1.5))
                - 2.0 / 5.0 * (hi.powf(2.5) - lo.powf(2.5))
        };
        let short = self.seek_a_ms * one(0.0, b) + self.seek_b_ms * root(0.0, b);
        let long = self.seek_c_ms * one(b, c) + self.seek_e_ms * lin(b, c);
        2.0 / (c * c) * (short + long)
    }

    /// Time in ns to move the heads from track `from` to track `to` of
    /// layout `l`: a seek to another cylinder, a head switch to another
    /// track of the same one, nothing to the same track.
    pub fn positioning_ns(&self, l: &super::geometry::Layout, from: u64, to: u64) -> f64 {
        let d = l.cylinder(to).abs_diff(l.cylinder(from));
        if d > 0 {
            self.seek_ms(d) * 1e6
        } else if to != from {
            self.geometry.as_ref().map_or(0.0, |g| g.head_switch_ms) * 1e6
        } else {
            0.0
        }
    }

    /// Seek time in ms for `d` cylinders.
    pub fn seek_ms(&self, d: u64) -> f64 {
        if d == 0 {
            0.0
        } else if d < self.seek_break_cyl {
            self.seek_a_ms + self.seek_b_ms * (d as f64).sqrt()
        } else {
            self.seek_c_ms + self.seek_e_ms * d as f64
        }
    }

    /// One revolution, ms.
    pub fn revolution_ms(&self) -> f64 {
        60_000.0 / self.rpm
    }
}

fn positive(v: f64, k: &str) -> Result<(), String> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(format!("{k} must be positive"))
    }
}

fn non_negative(v: f64, k: &str) -> Result<(), String> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(format!("{k} must not be negative"))
    }
}

/// Checks a storage description; `disk` checks each disk.
fn validate_storage(
    storage: &StorageConfig,
    disk: &dyn Fn(&DiskConfig) -> Result<(), String>,
) -> Result<(), String> {
    let (pos, nonneg) = (positive, non_negative);
    match storage {
        StorageConfig::Disk { disk: d } => disk(d)?,
        StorageConfig::Raid0 {
            disks,
            stripe_unit,
            disk: d,
            bus_mb_per_s,
        } => {
            disk(d)?;
            if *disks == 0 || stripe_unit.0 == 0 {
                return Err("raid0 needs at least one disk and a positive stripe_unit".into());
            }
            if let Some(b) = bus_mb_per_s {
                pos(*b, "storage.bus_mb_per_s")?;
            }
        }
        StorageConfig::Bus {
            disks,
            disk: d,
            bus_mb_per_s,
            fence,
            command_ms,
            ..
        } => {
            disk(d)?;
            if *disks == 0 || *disks > 64 {
                return Err("bus needs 1 to 64 disks".into());
            }
            if d.geometry.is_none() {
                return Err("bus disks need a geometry (tracks to disconnect at)".into());
            }
            if *fence > 255 {
                return Err("storage.fence is 0 to 255".into());
            }
            pos(*bus_mb_per_s, "storage.bus_mb_per_s")?;
            nonneg(*command_ms, "storage.command_ms")?;
        }
        StorageConfig::Ssd {
            capacity,
            channels,
            read_mb_per_s,
            write_mb_per_s,
            read_overhead_ms,
            write_overhead_ms,
        } => {
            if capacity.0 == 0 || *channels == 0 {
                return Err("ssd needs a positive capacity and at least one channel".into());
            }
            pos(*read_mb_per_s, "storage.read_mb_per_s")?;
            pos(*write_mb_per_s, "storage.write_mb_per_s")?;
            nonneg(*read_overhead_ms, "storage.read_overhead_ms")?;
            nonneg(*write_overhead_ms, "storage.write_overhead_ms")?;
        }
    }
    Ok(())
}

/// A simulated target's preset and, after a last `:k`, the disk it
/// addresses: `cheetah-bus:1` is disk 1 of `cheetah-bus`.
pub fn split_disk(spec: &str) -> (&str, Option<u32>) {
    match spec.rsplit_once(':') {
        Some((base, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => {
            (base, k.parse().ok())
        }
        _ => (spec, None),
    }
}

/// The built-in presets: (name, JSON). The files live in `presets/`.
pub const PRESETS: &[(&str, &str)] = &[
    ("sparc1990", include_str!("../../presets/sparc1990.json")),
    ("hdd", include_str!("../../presets/hdd.json")),
    ("ssd", include_str!("../../presets/ssd.json")),
    ("raid0", include_str!("../../presets/raid0.json")),
    (
        "split-cache",
        include_str!("../../presets/split-cache.json"),
    ),
    (
        "write-through",
        include_str!("../../presets/write-through.json"),
    ),
    ("raw-disk", include_str!("../../presets/raw-disk.json")),
    ("atlas10k3", include_str!("../../presets/atlas10k3.json")),
    (
        "cheetah-bus",
        include_str!("../../presets/cheetah-bus.json"),
    ),
];

impl SimConfig {
    /// Parses and checks a configuration.
    pub fn from_json(text: &str, origin: &str) -> Result<SimConfig, Error> {
        let c: SimConfig = serde_json::from_str(text)
            .map_err(|e| Error::Usage(format!("simulator config {origin}: {e}")))?;
        c.validate()
            .map_err(|m| Error::Usage(format!("simulator config {origin}: {m}")))?;
        Ok(c)
    }

    /// `sim:NAME` (a built-in preset) or `sim:path/to/config.json`;
    /// `NAME@D` gives an array's or a bus's disk count.
    pub fn load(spec: &str) -> Result<SimConfig, Error> {
        if let Some((base, n)) = spec.rsplit_once('@') {
            if let Ok(n) = n.parse::<u32>() {
                let mut c = SimConfig::load(base)?;
                c.set_disks(n)?;
                return Ok(c);
            }
        }
        if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == spec) {
            return SimConfig::from_json(text, spec);
        }
        let p = std::path::Path::new(spec);
        if p.extension().is_some_and(|e| e == "json") || p.exists() {
            let text = std::fs::read_to_string(p)
                .map_err(|e| Error::Usage(format!("cannot read simulator config {spec}: {e}")))?;
            return SimConfig::from_json(&text, spec);
        }
        let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
        Err(Error::Usage(format!(
            "unknown simulator preset {spec:?}; presets: {}",
            names.join(", ")
        )))
    }

    /// Gives an array or a bus `n` disks (`NAME@n`).
    fn set_disks(&mut self, n: u32) -> Result<(), Error> {
        match &mut self.storage {
            StorageConfig::Raid0 { disks, .. } | StorageConfig::Bus { disks, .. } => {
                if !(1..=64).contains(&n) {
                    return Err(Error::Usage(format!(
                        "sim:{}@{n}: the disk count is 1 to 64",
                        self.name
                    )));
                }
                *disks = n;
                self.name = format!("{}@{n}", self.name);
                Ok(())
            }
            _ => Err(Error::Usage(format!(
                "sim:{}@{n}: only an array (raid0) or a bus of disks has a disk count",
                self.name
            ))),
        }
    }

    /// A bus's disk `k`, as a target of its own (`sim:NAME:k`): the byte
    /// range of the storage it holds.
    pub fn disk_range(&self, k: u32) -> Result<(u64, u64), Error> {
        match &self.storage {
            StorageConfig::Bus { disks, disk, .. } if k < *disks => {
                Ok((u64::from(k) * disk.capacity.0, disk.capacity.0))
            }
            StorageConfig::Bus { disks, .. } => Err(Error::Usage(format!(
                "sim:{}:{k}: the bus has {disks} disks, 0 to {}",
                self.name,
                disks - 1
            ))),
            _ => Err(Error::Usage(format!(
                "sim:{}:{k}: only a bus of independent disks (kind \"bus\") has disks to address; {} stores one address space",
                self.name, self.name
            ))),
        }
    }

    fn validate(&self) -> Result<(), String> {
        let (pos, nonneg) = (positive, non_negative);
        pos(self.cpu.memory_mb_per_s, "cpu.memory_mb_per_s")?;
        nonneg(self.cpu.request_overhead_ms, "cpu.request_overhead_ms")?;
        nonneg(
            self.cpu.async_read_overhead_ms,
            "cpu.async_read_overhead_ms",
        )?;
        if self.cpu.cpus == 0 {
            return Err("cpu.cpus must be at least 1".into());
        }
        if let Some(c) = &self.cache {
            if c.page_size.0 == 0 || c.capacity.0 < c.page_size.0 {
                return Err("cache.capacity must hold at least one page".into());
            }
            nonneg(c.dirty_expire_s, "cache.dirty_expire_s")?;
            if let Some(f) = c.flush_interval_s {
                pos(f, "cache.flush_interval_s")?;
            }
        }
        let disk = |d: &DiskConfig| -> Result<(), String> {
            pos(d.rpm, "disk.rpm")?;
            pos(d.media_mb_per_s, "disk.media_mb_per_s")?;
            pos(d.buffer_mb_per_s, "disk.buffer_mb_per_s")?;
            nonneg(d.overhead_ms, "disk.overhead_ms")?;
            if d.cylinders == 0 || d.capacity.0 == 0 {
                return Err("disk.cylinders and disk.capacity must be positive".into());
            }
            if let Some(g) = &d.geometry {
                g.validate(d.capacity.0, d.cylinders, d.rpm, d.media_mb_per_s)?;
            }
            Ok(())
        };
        if let Some(i) = &self.insulation {
            i.validate(self.cache.is_some())?;
        }
        validate_storage(&self.storage, &disk)
    }

    /// Bytes the storage holds.
    pub fn capacity(&self) -> u64 {
        match &self.storage {
            StorageConfig::Disk { disk } => disk.capacity.0,
            StorageConfig::Raid0 { disks, disk, .. } | StorageConfig::Bus { disks, disk, .. } => {
                disk.capacity.0 * u64::from(*disks)
            }
            StorageConfig::Ssd { capacity, .. } => capacity.0,
        }
    }
}
