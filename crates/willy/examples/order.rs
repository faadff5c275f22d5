//! Whether a measurement depends on what was measured before it on the
//! same files (docs/PERFORMANCE.md, "Why the disk region's focal point
//! always ran faster in the validation").
//! The disk region's focal point of this machine's profiles (2.73 GiB,
//! 256 KiB requests, half reads, half sequential, one generator) under a
//! 1 GiB memory cgroup, measured fresh, again, and right after other
//! workloads on the same files, with a profile's short stopping rule and
//! a validation's long one.
//!
//! As root, on a quiet machine (about 2 minutes):
//! `cargo run --release -p willy --example order -- DIR`

use std::path::PathBuf;
use std::time::Duration;
use willy::run::RunConfig;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::workload::Workload;

fn main() -> Result<(), willy::Error> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .ok_or_else(|| willy::Error::Usage("usage: order DIR".into()))?;
    let opts = TestbedOptions {
        cache_limit: Some(1 << 30),
        ..TestbedOptions::default()
    };
    let mut bed = Testbed::open(TargetArg::Path(dir), &opts)?;
    let u = 2.73 * (1u64 << 30) as f64;
    let at = |size: u64, read: f64, seq: f64| Workload::of(u as u64, size, read, seq, 1);
    let focal = at(256 << 10, 0.5, 0.5);
    let short = RunConfig {
        warmup_max: Duration::from_secs(2),
        min_duration: Duration::from_secs(2),
        max_duration: Duration::from_secs(3),
        ..RunConfig::default()
    };
    let long = RunConfig {
        warmup_max: Duration::from_secs(20),
        max_duration: Duration::from_secs(20),
        ..RunConfig::default()
    };
    let steps = [
        ("focal, fresh files, short", &focal, &short),
        ("focal again, short", &focal, &short),
        ("focal again, long", &focal, &long),
        ("4 KiB requests, short", &at(4096, 0.5, 0.5), &short),
        ("focal after them, short", &focal, &short),
        ("writes only, short", &at(256 << 10, 0.0, 0.5), &short),
        ("focal after them, short", &focal, &short),
        ("all sequential, short", &at(256 << 10, 0.5, 1.0), &short),
        ("focal after them, short", &focal, &short),
        ("focal again, long", &focal, &long),
    ];
    for (name, w, cfg) in steps {
        let m = bed.measure(w, cfg)?;
        println!("{name:28} {:6.0} MB/s", m.throughput_bytes_per_sec / 1e6);
    }
    Ok(())
}
