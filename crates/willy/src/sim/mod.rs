//! A deterministic simulated storage system: the test oracle, and what-if
//! runs for users (`--target sim:PRESET` or `--target sim:config.json`).
//!
//! Virtual time, discrete events, no real I/O and no sleeping. The very same
//! generators and core loop as a real run drive [`SimEngine`], an
//! [`crate::engine::Engine`] whose clock is virtual. What it models:
//! an LRU page cache (write-back or write-through, a dirty limit, a periodic
//! flusher, read-ahead), disks (seek curve, rotation, media rate, overhead,
//! track buffer, FCFS or elevator queue; optionally zones, tracks, switches,
//! skew and zero-latency access), RAID-0 with a shared bus, independent disks on a simulated
//! SCSI-like bus (fence, disconnects, arbitration), SSDs with
//! internal parallelism, and raw access with no cache. See docs/SIMULATOR.md.

pub mod bus;
pub mod cache;
pub mod config;
pub mod engine;
pub mod geometry;
pub mod insulate;
pub mod storage;

pub use config::{Insulation, SimConfig, PRESETS};
pub use engine::{SimEngine, SimStats};

/// The first of several servers (CPUs, channels) to be free, by the time
/// each is free: its index and that time. `free` is not empty.
fn earliest(free: &[u64]) -> (usize, u64) {
    let (i, &t) = free
        .iter()
        .enumerate()
        .min_by_key(|(_, &f)| f)
        .expect("a server");
    (i, t)
}
