//! Cache sizes from the drops of the uniqueBytes curve.
//!
//! A read probe's cache is its drop's onset (see
//! [`crate::scaler::PROBES`]); this module gives a write probe's, from the
//! drop's centre, and checks a read probe's size against its centre.
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

use crate::curve::{Drop, Point};
use willy::analysis::StackProfile;
use willy::units::Bytes;
use willy::workload::Workload;

/// Requests the stack profile runs: enough for a stable median.
pub const PROFILE_REQUESTS: u64 = 200_000;

/// The self-check fails where a drop's centre implies a cache more than
/// this factor from the size its onset gave. An LRU cache of `C` serves
/// half of the probe's requests at a uniqueBytes the generator's stack
/// distances give (about 2C for random requests): where the measured
/// centre lies tells what cache the fall's lower part implies. An LRU
/// cache's fall agrees with its onset within 1.25x (the simulated presets:
/// 1.05x to 1.12x; an LRU curve from the stack profile itself: 1.21x);
/// Linux's page cache keeps less of this loop-like working set than LRU
/// once it overflows, and its centre lies at about 1.4C (four 1 GiB runs:
/// 1.14x to 1.53x); a fall spread over 64x of uniqueBytes gives 1.89x.
pub const FIT_TOLERANCE: f64 = 1.8;

/// `focal` with its uniqueBytes at `u`, in whole blocks per generator.
fn at(focal: &Workload, u: f64) -> Workload {
    let mut w = focal.clone();
    let unit = w.block_size.0 * u64::from(w.process_num);
    w.unique_bytes = Bytes(((u / unit as f64).round() as u64).max(1) * unit);
    w
}

/// The LRU cache size, in bytes, that serves a share `h` of `focal`'s
/// requests wholly when its uniqueBytes is `u` (at a drop's centre, 1/2).
pub fn cache_size(focal: &Workload, u: f64, h: f64, seed: u64) -> Option<u64> {
    StackProfile::measure(&at(focal, u), PROFILE_REQUESTS, seed).cache_for_hit_ratio(h)
}

/// The sizes consistent with the sweep's resolution: the caches the rule
/// would give at the two points around `u` (where the drop's level `h` is
/// crossed), so that the interval holds `size` and spans the segment the
/// crossing lies in.
pub fn size_interval(
    focal: &Workload,
    pts: &[Point],
    d: &Drop,
    u: f64,
    h: f64,
    size: u64,
    seed: u64,
) -> [u64; 2] {
    let j = (d.start..d.end)
        .find(|&j| pts[j + 1].unique_bytes > u)
        .unwrap_or(d.end - 1);
    let (a, b) = (pts[j].unique_bytes.min(u), pts[j + 1].unique_bytes.max(u));
    // `size` is the rule's size at `u` already (the onset can be a point).
    let rule = |x: f64| {
        if x == u {
            size
        } else {
            cache_size(focal, x, h, seed).unwrap_or(size)
        }
    };
    let (lo, hi) = (rule(a), rule(b));
    [lo.min(size), hi.max(size)]
}

/// How well an LRU cache of the inferred size explains a read probe's drop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The factor between the cache the drop's centre implies (the LRU size
    /// that serves half the requests there) and the size inferred at its
    /// onset; 1 is a perfect fit.
    pub factor: f64,
}

impl Fit {
    /// True when the fall does not bear the size out ([`FIT_TOLERANCE`]).
    pub fn poor(&self) -> bool {
        self.factor > FIT_TOLERANCE
    }
}

/// Checks `size`, inferred at drop `d`'s onset for the probe `focal`,
/// against the rest of the fall: the LRU model predicts where half of the
/// requests are served, and the measured centre should lie there.
pub fn check_fit(focal: &Workload, d: &Drop, size: u64, seed: u64) -> Fit {
    let implied = cache_size(focal, d.centre, 0.5, seed).unwrap_or(u64::MAX) as f64;
    Fit {
        factor: (implied / size as f64).ln().abs().exp(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::drops;

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
        let pts = crate::curve::points(&QUIET_1G);
        let d = drops(&pts);
        let file = d.last().expect("a drop");
        assert_eq!(pts[file.start].unique_bytes, 1035276288.0, "{d:?}");
        let probe = Workload::from_json(
            r#"{"uniqueBytes":"1GiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
        )
        .unwrap();
        // The read probe's cache is the onset's uniqueBytes (scaler::PROBES).
        let size = file.onset as u64;
        let c = size as f64;
        let err = c / (1u64 << 30) as f64 - 1.0;
        eprintln!("file cache {:.1} MiB ({:+.1}%)", c / 1048576.0, err * 100.0);
        assert!(
            err.abs() <= 0.10,
            "{} MiB ({:+.1}%)",
            c / 1048576.0,
            err * 100.0
        );
        // The onset lies in the step the fall begins in, 987 MiB to
        // 1.08 GiB of uniqueBytes; the upper half of the fall bears a cache
        // of that size out.
        let j = file.onset_segment;
        assert_eq!(pts[j].unique_bytes, 1035276288.0);
        assert_eq!(pts[j + 1].unique_bytes, 1155014656.0);
        let fit = check_fit(&probe, file, size, 1);
        eprintln!("{fit:?}");
        assert!(!fit.poor(), "{fit:?}");
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

#[cfg(test)]
mod fit_tests {
    use super::*;
    use crate::curve::{drops, Point};

    const C: u64 = 16 << 20;

    /// A read probe in front of an LRU cache of [`C`] bytes, from 1 MiB to
    /// 2 GiB: throughput from the share of the work the cache serves,
    /// between 2 GB/s and 200 MB/s; `share` gives that share at each
    /// uniqueBytes.
    fn probe_curve(share: impl Fn(f64) -> f64) -> Vec<Point> {
        (0..23)
            .map(|i| {
                let u = 1048576.0 * 2f64.powf(i as f64 / 2.0);
                let h = share(u);
                Point {
                    unique_bytes: u,
                    throughput: 1.0 / (h / 2e9 + (1.0 - h) / 2e8),
                    ci: 0.0,
                }
            })
            .collect()
    }

    fn probe() -> Workload {
        Workload::from_json(
            r#"{"uniqueBytes":"64MiB","sizeMean":"8KiB","readFrac":1,"seqFrac":0,"processNum":1}"#,
        )
        .unwrap()
    }

    /// The last drop and its cache: the onset's uniqueBytes.
    fn infer(pts: &[Point]) -> (Drop, u64) {
        let d = *drops(pts).last().expect("a drop");
        (d, d.onset as u64)
    }

    #[test]
    fn an_lru_cache_fits_and_its_interval_holds_it() {
        let w = probe();
        let pts =
            probe_curve(|u| StackProfile::measure(&at(&w, u), PROFILE_REQUESTS, 1).hit_ratio(C));
        let (d, size) = infer(&pts);
        let j = d.onset_segment;
        let (lo, hi) = (pts[j].unique_bytes, pts[j + 1].unique_bytes);
        eprintln!(
            "{} in {} to {}",
            Bytes(size),
            Bytes(lo as u64),
            Bytes(hi as u64)
        );
        assert!(lo <= C as f64 && C as f64 <= hi);
        let fit = check_fit(&w, &d, size, 1);
        eprintln!("{fit:?}");
        assert!(!fit.poor() && fit.factor < 1.25, "{fit:?}");
    }

    /// The same onset, but a fall spread over 64x of uniqueBytes instead of
    /// LRU's: no LRU cache explains it, and the check says so.
    #[test]
    fn a_doctored_fall_is_a_poor_fit() {
        let slow = |u: f64| (1.0 - (u / C as f64).ln() / 64f64.ln()).clamp(0.0, 1.0);
        let pts = probe_curve(slow);
        let (d, size) = infer(&pts);
        let fit = check_fit(&probe(), &d, size, 1);
        eprintln!("{fit:?}");
        assert!(fit.poor(), "{fit:?}");
    }
}
