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
