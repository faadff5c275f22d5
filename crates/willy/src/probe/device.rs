//! What the probes time: one read at a time, on a simulated system's
//! storage (below its cache, as O_DIRECT would be) or on a real device or
//! file opened with O_DIRECT, read only.

use crate::engine::{monotonic_ns, AlignedBuf};
use crate::generator::Op;
use crate::sim::config::StorageConfig;
use crate::sim::storage::{Schedule, Storage, StorageOp};
use crate::sim::SimConfig;
use crate::Error;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Something the probes can read from and time.
pub trait Device {
    /// Bytes that can be read.
    fn capacity(&self) -> u64;
    /// The smallest unit a read must be aligned to and sized in, bytes.
    fn sector(&self) -> u64;
    /// Reads `len` bytes at `offset` and waits for them: the response
    /// time, seconds.
    fn read(&mut self, offset: u64, len: u64) -> Result<f64, Error>;
    /// Waits `secs` with nothing outstanding.
    fn idle(&mut self, secs: f64);
    /// Seconds since the device was opened (virtual on a simulator).
    fn clock(&self) -> f64;
    /// Reads made so far.
    fn requests(&self) -> u64;
    /// True on a simulator (times are virtual).
    fn simulated(&self) -> bool;
}

/// A simulated system's storage, read below its cache.
pub struct SimDevice {
    storage: Storage,
    capacity: u64,
    sector: u64,
    /// Virtual time, ns.
    now: u64,
    /// The host's time between one completion and the next request, ns.
    turnaround: u64,
    rng: Xoshiro256PlusPlus,
    requests: u64,
}

impl SimDevice {
    /// The storage of `cfg`; `seed` drives its random rotational latency
    /// (disks without a geometry).
    pub fn new(cfg: &SimConfig, seed: u64) -> SimDevice {
        let sector = match &cfg.storage {
            StorageConfig::Disk { disk }
            | StorageConfig::Raid0 { disk, .. }
            | StorageConfig::Bus { disk, .. } => {
                disk.geometry.as_ref().map_or(512, |g| g.sector_size.0)
            }
            StorageConfig::Ssd { .. } => 512,
        };
        SimDevice {
            storage: Storage::new(&cfg.storage),
            capacity: cfg.capacity(),
            sector,
            now: 0,
            turnaround: (cfg.cpu.request_overhead_ms * 1e6).round() as u64,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x0050_524f_4245),
            requests: 0,
        }
    }
}

impl Device for SimDevice {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn sector(&self) -> u64 {
        self.sector
    }

    fn read(&mut self, offset: u64, len: u64) -> Result<f64, Error> {
        let start = self.now;
        let mut out = Vec::new();
        let op = StorageOp {
            op: Op::Read,
            offset,
            len,
            tag: 0,
        };
        let mut parts = self.storage.submit(start, op, &mut self.rng, &mut out);
        // Disk completions (Some(disk)) and bus wake-ups (None), by time.
        let mut disks: BinaryHeap<Reverse<(u64, Option<usize>)>> = BinaryHeap::new();
        let mut done = start;
        loop {
            for s in out.drain(..) {
                match s {
                    Schedule::DiskDone(d, t) => disks.push(Reverse((t, Some(d)))),
                    Schedule::Wake(t) => disks.push(Reverse((t, None))),
                    Schedule::Part(_, t) => {
                        parts -= 1;
                        done = done.max(t);
                    }
                }
            }
            if parts == 0 {
                break;
            }
            match disks.pop().expect("a part is being served") {
                Reverse((t, Some(d))) => self.storage.disk_done(d, t, &mut self.rng, &mut out),
                Reverse((t, None)) => self.storage.wake(t, &mut out),
            }
        }
        // A bus may still have a wake-up due; nothing is left to do then.
        disks.retain(|Reverse((_, d))| d.is_some());
        // Nothing else is queued: what is left are idle disks.
        debug_assert!(disks.is_empty());
        self.now = done + self.turnaround;
        self.requests += 1;
        Ok((done - start) as f64 / 1e9)
    }

    fn idle(&mut self, secs: f64) {
        self.now += (secs.max(0.0) * 1e9).round() as u64;
    }

    fn clock(&self) -> f64 {
        self.now as f64 / 1e9
    }

    fn requests(&self) -> u64 {
        self.requests
    }

    fn simulated(&self) -> bool {
        true
    }
}

/// The least a device or file must hold to be probed: the straddle tests
/// try units up to a quarter of it, the long reads need room.
pub const MIN_CAPACITY: u64 = 16 << 20;

/// A block device or a file, opened read-only with O_DIRECT.
pub struct RealDevice {
    file: File,
    capacity: u64,
    sector: u64,
    buf: AlignedBuf,
    opened: u64,
    requests: u64,
    interrupt: Arc<AtomicBool>,
}

impl RealDevice {
    /// Opens `path` (a block device or a regular file) for O_DIRECT reads.
    pub fn open(path: &Path, interrupt: Arc<AtomicBool>) -> Result<RealDevice, Error> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .map_err(|e| {
                Error::Usage(format!(
                    "cannot open {} for O_DIRECT reads: {e}",
                    path.display()
                ))
            })?;
        let capacity = match crate::target::block_device(path)? {
            Some((size, _)) => size,
            None => file
                .metadata()
                .map_err(|e| Error::io(format!("reading the size of {}", path.display()), e))?
                .len(),
        };
        let mut d = RealDevice {
            file,
            capacity,
            sector: 4096,
            buf: AlignedBuf::new(1 << 20, 1),
            opened: monotonic_ns(),
            requests: 0,
            interrupt,
        };
        // The smallest O_DIRECT unit: 512 bytes where the device takes it.
        if capacity >= 8192
            && d.file
                .read_at(&mut d.buf.as_mut_slice()[..512], 512)
                .is_ok()
        {
            d.sector = 512;
        }
        if capacity < MIN_CAPACITY {
            return Err(Error::Usage(format!(
                "{} holds {}: too little to probe (at least 16 MiB)",
                path.display(),
                crate::units::human_bytes(capacity as f64)
            )));
        }
        Ok(d)
    }
}

impl Device for RealDevice {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn sector(&self) -> u64 {
        self.sector
    }

    fn read(&mut self, offset: u64, len: u64) -> Result<f64, Error> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        if self.buf.len() < len as usize {
            self.buf = AlignedBuf::new(len as usize, 1);
        }
        let buf = &mut self.buf.as_mut_slice()[..len as usize];
        let t0 = monotonic_ns();
        let mut got = 0;
        while got < buf.len() {
            match self.file.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(format!("reading {len} bytes at {offset}"), e)),
            }
        }
        let t1 = monotonic_ns();
        if got < buf.len() {
            return Err(Error::io(
                format!("reading {len} bytes at {offset}: only {got} before the end"),
                std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
            ));
        }
        self.requests += 1;
        Ok((t1 - t0) as f64 / 1e9)
    }

    fn idle(&mut self, secs: f64) {
        // Sleep for the long part, spin for the last 200 us: a sleep may
        // overshoot by more than the phases being swept.
        let until = monotonic_ns() + (secs.max(0.0) * 1e9) as u64;
        let sleep = secs - 200e-6;
        if sleep > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(sleep));
        }
        while monotonic_ns() < until {
            std::hint::spin_loop();
        }
    }

    fn clock(&self) -> f64 {
        (monotonic_ns() - self.opened) as f64 / 1e9
    }

    fn requests(&self) -> u64 {
        self.requests
    }

    fn simulated(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_read_takes_what_the_disk_takes() {
        let cfg = SimConfig::load("atlas10k3").unwrap();
        let mut d = SimDevice::new(&cfg, 1);
        assert_eq!(d.sector(), 512);
        // A whole outer track (686 sectors) with zero-latency access: one
        // revolution (6 ms) after the overhead (0.02 ms) and the wait for
        // the next sector boundary (under 8.75 us).
        let t = d.read(0, 686 * 512).unwrap();
        assert!((t - 6.02e-3).abs() < 9e-6, "{t}");
        assert_eq!(d.requests(), 1);
        let before = d.clock();
        d.idle(0.5);
        assert!((d.clock() - before - 0.5).abs() < 1e-9);
    }
}
