//! Two systems on the same workloads (Chen 1992, section 5.5): predicted
//! throughput on each profile and their ratio.
//!
//! The standard workloads are Chen's Table 5.2. His uniqueBytes (1 to
//! 500 MB) were sized for 1992 machines whose file caches held 3-30 MB.
//! They are scaled here so that they stand in the same relation to today's
//! caches: every uniqueBytes is multiplied by `S = C / CHEN_CACHE`, where
//! `C` is the larger of the two profiles' largest inferred cache (or, with
//! none inferred, of their memory sizes) and [`CHEN_CACHE`] is 16 MiB, about
//! the cache of Chen's SPARCstation and DECstation. `S` is at least 1, and
//! uniqueBytes is rounded to whole MiB. Request sizes, fractions and
//! processNum are not scaled: they describe the application, not the
//! machine.

use crate::profile::Profile;
use crate::Model;
use willy::units::Bytes;
use willy::workload::Workload;

/// The cache size Chen's Table 5.2 workloads were sized against.
pub const CHEN_CACHE: u64 = 16 << 20;

/// Chen's Table 5.2: (name, example, uniqueBytes MB, seqFrac, readFrac,
/// sizeMean KB, processNum).
pub const TABLE_5_2: [(&str, &str, u64, f64, f64, u64, u32); 5] = [
    ("workstation", "compile, grep", 1, 0.8, 0.8, 4, 1),
    ("large_utility", "sort", 10, 0.9, 0.6, 8, 1),
    ("scientific_write", "satellite data", 250, 0.5, 0.2, 100, 1),
    ("scientific_read", "image processing", 250, 0.5, 0.8, 100, 1),
    ("database", "TPC", 500, 0.1, 0.2, 4, 2),
];

/// The factor by which Table 5.2's uniqueBytes are scaled for two profiles.
pub fn scale_factor(a: &Profile, b: &Profile) -> f64 {
    let size = |p: &Profile| {
        p.cache_sizes_bytes
            .last()
            .copied()
            .unwrap_or(p.system.memory_bytes)
    };
    (size(a).max(size(b)) as f64 / CHEN_CACHE as f64).max(1.0)
}

/// Table 5.2's workloads, scaled by `factor`, with blocks of `block` bytes.
pub fn standard_workloads(factor: f64, block: u64) -> Vec<(String, Workload)> {
    TABLE_5_2
        .iter()
        .map(|&(name, _, mb, seq, read, kb, procs)| {
            let mib = ((mb as f64 * factor).round() as u64).max(1);
            let unit = block * u64::from(procs);
            let ub = ((mib << 20) / unit).max(1) * unit;
            let size = ((kb << 10) / block).max(1) * block;
            (
                name.to_string(),
                Workload {
                    unique_bytes: Bytes(ub),
                    size_mean: Bytes(size),
                    read_frac: read,
                    seq_frac: seq,
                    process_num: procs,
                    cpu_think: Default::default(),
                    block_size: Bytes(block),
                },
            )
        })
        .collect()
}

pub use willy::doc::prediction::Compared;

/// Predicts each workload on both profiles.
pub fn compare(a: &dyn Model, b: &dyn Model, workloads: &[(String, Workload)]) -> Vec<Compared> {
    workloads
        .iter()
        .map(|(name, w)| {
            let (pa, pb) = (a.predict(w), b.predict(w));
            Compared {
                name: name.clone(),
                workload: w.clone(),
                ratio: pa.predicted_throughput_bytes_per_sec
                    / pb.predicted_throughput_bytes_per_sec,
                a: pa,
                b: pb,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_workloads_scale_only_unique_bytes() {
        let one = standard_workloads(1.0, 4096);
        let big = standard_workloads(64.0, 4096);
        assert_eq!(one.len(), 5);
        for ((n1, a), (n2, b)) in one.iter().zip(&big) {
            assert_eq!(n1, n2);
            assert!(a.validate().is_ok() && b.validate().is_ok(), "{n1}");
            let r = b.unique_bytes.0 as f64 / a.unique_bytes.0 as f64;
            assert!((r - 64.0).abs() < 0.1, "{n1}: {r}");
            assert_eq!(
                (a.size_mean, a.read_frac, a.process_num),
                (b.size_mean, b.read_frac, b.process_num)
            );
        }
        assert_eq!(one[4].1.unique_bytes.0, 500 << 20);
        assert_eq!(one[2].1.size_mean.0, 100 << 10);
    }
}
