//! Cache sizes from the drops of the uniqueBytes curve.
//!
//! At a drop's centre `U*`, half of the work is served at the faster level
//! ([`crate::curve`]). For an LRU cache that is where half the focal
//! workload's requests are served wholly by the cache: the cache size is the
//! median, over requests, of the largest LRU stack distance among each
//! request's blocks, measured by running the generators without I/O
//! ([`willy::analysis::StackProfile`]). For random single-block requests
//! that is `U*/2` (Chen's depth distribution); sequential and multi-block
//! requests change it, and the profile accounts for them. (Counting blocks
//! instead of requests put sparc1990's 21 MiB cache at 18.7 MiB.)
//!
//! Limitation (issue 4): a write cache whose dirty pages are cleaned in
//! first-dirtied order, not LRU, drops earlier than this predicts.

use willy::analysis::StackProfile;
use willy::units::Bytes;
use willy::workload::Workload;

/// Requests the stack profile runs: enough for a stable median.
pub const PROFILE_REQUESTS: u64 = 200_000;

/// The LRU cache size, in bytes, that serves a share `h` of `focal`'s
/// requests wholly when its uniqueBytes is `u` (at a drop's onset, `h` is
/// [`crate::curve::ONSET_H`]; at its centre, 1/2).
pub fn cache_size(focal: &Workload, u: f64, h: f64, seed: u64) -> Option<u64> {
    let mut w = focal.clone();
    let unit = w.block_size.0 * u64::from(w.process_num);
    w.unique_bytes = Bytes(((u / unit as f64).round() as u64).max(1) * unit);
    StackProfile::measure(&w, PROFILE_REQUESTS, seed).cache_for_hit_ratio(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{drops, Point, ONSET_H};

    /// The read probe (8 KiB random reads, one process) of a quiet 20-minute
    /// run under a 1 GiB cgroup (../shared/data/real-1g-quiet-profile.json):
    /// the fall past the file cache begins between 987 MiB and 1.08 GiB, but
    /// the plateau above it slopes down through the CPU's caches, so its
    /// median lies above the last point before the fall. The onset used to
    /// fall back to the middle of the drop's span: 1.49 GiB (+45%).
    const QUIET_1G: [(f64, f64); 28] = [
        (1048576.0, 3684127539.0),
        (1626112.0, 3474199347.0),
        (2514944.0, 3341624934.0),
        (3899392.0, 3235006054.0),
        (6041600.0, 2931554987.0),
        (9359360.0, 2967189914.0),
        (14499840.0, 2786723430.0),
        (22462464.0, 2434453504.0),
        (34799616.0, 2185310208.0),
        (53915648.0, 2223273301.0),
        (83529728.0, 2176640341.0),
        (129409024.0, 2337960755.0),
        (200486912.0, 2414021837.0),
        (310607872.0, 2255536128.0),
        (481214464.0, 2236825600.0),
        (745525248.0, 2196419379.0),
        (927948800.0, 2055461274.0),
        (1035276288.0, 1974480896.0),
        (1155014656.0, 866758656.0),
        (1288601600.0, 601215795.0),
        (1437638656.0, 443802965.0),
        (1603911680.0, 370084523.0),
        (1789415424.0, 341465771.0),
        (1996378112.0, 297653043.0),
        (2227273728.0, 294376243.0),
        (2484875264.0, 253728085.0),
        (2772271104.0, 247134618.0),
        (4294967296.0, 206737408.0),
    ];

    #[test]
    fn the_quiet_1_gib_run_finds_its_file_cache_within_10_percent() {
        let pts: Vec<Point> = QUIET_1G
            .iter()
            .map(|&(u, t)| Point {
                unique_bytes: u,
                throughput: t,
            })
            .collect();
        let d = drops(&pts);
        let file = d.last().expect("a drop");
        assert_eq!(pts[file.start].unique_bytes, 1035276288.0, "{d:?}");
        let probe = Workload::from_json(
            r#"{"uniqueBytes":"1GiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
        )
        .unwrap();
        let c = cache_size(&probe, file.onset, ONSET_H, 1).unwrap() as f64;
        let err = c / (1u64 << 30) as f64 - 1.0;
        eprintln!("file cache {:.1} MiB ({:+.1}%)", c / 1048576.0, err * 100.0);
        assert!(
            err.abs() <= 0.10,
            "{} MiB ({:+.1}%)",
            c / 1048576.0,
            err * 100.0
        );
    }

    #[test]
    fn random_single_block_requests_give_half_the_centre() {
        let w = Workload::from_json(
            r#"{"uniqueBytes":"64MiB","sizeMean":"4KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
        )
        .unwrap();
        let c = cache_size(&w, 64.0 * 1048576.0, 0.5, 1).unwrap() as f64;
        assert!((c / (32.0 * 1048576.0) - 1.0).abs() < 0.01, "{c}");
    }
}
