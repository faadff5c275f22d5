//! The generator's own cache behaviour, computed without I/O.
//!
//! An LRU cache of `C` blocks serves an access exactly when the access's LRU
//! *stack distance* (the number of distinct blocks touched since the same
//! block was last touched) is below `C` (Mattson, Gecsei, Slutz and Traiger,
//! "Evaluation techniques for storage hierarchies", IBM Systems Journal,
//! 1970). So the distances of a workload's block accesses give its hit ratio
//! for every cache size at once. The self-scaling benchmark uses this to
//! turn the place where throughput drops into a cache size: with Chen's
//! depth distribution the drop of random accesses comes near `uniqueBytes =
//! 2C`, and sequential accesses move it (docs/WORKLOAD.md).
//!
//! [`StackDistance`] computes distances by access times with a Fenwick
//! tree: O(log T) per access, independent of willy's own [`crate::lru`].

use crate::generator::Generator;
use crate::workload::Workload;

/// Mattson's stack distances by access times.
#[derive(Clone, Debug)]
pub struct StackDistance {
    last: Vec<usize>,
    fen: Vec<i64>,
    now: usize,
}

impl StackDistance {
    /// Room for `blocks` distinct blocks and `touches` accesses.
    pub fn new(blocks: usize, touches: usize) -> StackDistance {
        StackDistance {
            last: vec![0; blocks],
            fen: vec![0; touches + 2],
            now: 0,
        }
    }

    fn add(&mut self, i: usize, d: i64) {
        let mut i = i + 1;
        while i < self.fen.len() {
            self.fen[i] += d;
            i += i & i.wrapping_neg();
        }
    }

    fn prefix(&self, i: usize) -> i64 {
        let (mut i, mut s) = (i + 1, 0);
        while i > 0 {
            s += self.fen[i];
            i &= i - 1;
        }
        s
    }

    /// The current distance of block `b`: distinct blocks touched since `b`
    /// was; `None` if it was never touched.
    pub fn depth(&self, b: u32) -> Option<u64> {
        let t = self.last[b as usize];
        (t > 0).then(|| (self.prefix(self.now) - self.prefix(t)) as u64)
    }

    /// Touches block `b`; returns its distance before the touch.
    pub fn touch(&mut self, b: u32) -> Option<u64> {
        assert!(
            self.now + 1 < self.fen.len() - 1,
            "StackDistance: more touches than room was made for"
        );
        let d = self.depth(b);
        self.now += 1;
        let old = self.last[b as usize];
        if old > 0 {
            self.add(old, -1);
        }
        self.last[b as usize] = self.now;
        self.add(self.now, 1);
        d
    }
}

/// The stack distances of a workload's accesses, in steady state.
///
/// A request is served wholly by an LRU cache of `C` blocks iff the largest
/// distance among its blocks is below `C`; one missing block costs the
/// request a trip to storage. Time per byte is therefore linear in the
/// fraction of *requests* served (not of blocks), and that is what
/// [`StackProfile::hit_ratio`] and [`StackProfile::cache_for_hit_ratio`]
/// give. Block-level ratios are [`StackProfile::block_hit_ratio`].
#[derive(Clone, Debug)]
pub struct StackProfile {
    block_size: u64,
    /// Sorted, per request: the largest distance among its blocks.
    requests: Vec<u64>,
    /// Sorted distances of all block accesses; `u64::MAX` for a first touch.
    all: Vec<u64>,
}

impl StackProfile {
    /// Runs the workload's generators for `requests` requests in all (no
    /// I/O) and keeps the distances of the second half. Generators take
    /// turns, one request each, as generators of equal speed would; their
    /// files are distinct blocks of one cache. The generators' own initial
    /// LRU stacks are replayed first (interleaved, bottom first), so no
    /// access is a first touch and GiB-scale working sets need no long
    /// warm-up.
    pub fn measure(w: &Workload, requests: u64, seed: u64) -> StackProfile {
        let per = w.blocks_per_generator();
        let blocks = (per * u64::from(w.process_num)) as usize;
        let mut gens: Vec<Generator> = (0..w.process_num)
            .map(|n| Generator::new(w, n, seed))
            .collect();
        let max_touches = (requests * (w.size_trials() + 1).min(per)) as usize + blocks;
        let mut all_sd = StackDistance::new(blocks, max_touches);
        // The caches start as the generators' stacks: replay them, bottom
        // first, generators interleaved.
        let stacks: Vec<Vec<u32>> = gens.iter().map(|g| g.stack_top_first()).collect();
        for depth in (0..per as usize).rev() {
            for (n, st) in stacks.iter().enumerate() {
                let b = n as u64 * per + u64::from(st[depth]);
                all_sd.touch(b as u32);
            }
        }
        drop(stacks);
        let (mut all, mut reqs) = (Vec::new(), Vec::new());
        for i in 0..requests {
            let n = (i % u64::from(w.process_num)) as usize;
            let r = gens[n].next_request();
            let first = n as u64 * per + r.offset / w.block_size.0;
            let keep = i >= requests / 2;
            let mut worst = 0;
            for b in first..first + r.len / w.block_size.0 {
                let d = all_sd.touch(b as u32).unwrap_or(u64::MAX);
                worst = worst.max(d);
                if keep {
                    all.push(d);
                }
            }
            if keep {
                reqs.push(worst);
            }
        }
        all.sort_unstable();
        reqs.sort_unstable();
        StackProfile {
            block_size: w.block_size.0,
            requests: reqs,
            all,
        }
    }

    fn ratio(v: &[u64], blocks: u64) -> f64 {
        if v.is_empty() {
            return f64::NAN;
        }
        v.partition_point(|&d| d < blocks) as f64 / v.len() as f64
    }

    fn quantile(v: &[u64], q: f64, block_size: u64) -> Option<u64> {
        let d = *v.get(((v.len() as f64 - 1.0) * q.clamp(0.0, 1.0)).round() as usize)?;
        (d != u64::MAX).then_some((d + 1) * block_size)
    }

    /// Fraction of requests an LRU cache of `cache_bytes` serves wholly.
    pub fn hit_ratio(&self, cache_bytes: u64) -> f64 {
        Self::ratio(&self.requests, cache_bytes / self.block_size)
    }

    /// Fraction of block accesses an LRU cache of `cache_bytes` serves.
    pub fn block_hit_ratio(&self, cache_bytes: u64) -> f64 {
        Self::ratio(&self.all, cache_bytes / self.block_size)
    }

    /// The smallest LRU cache, in bytes, that serves a fraction `q` of the
    /// requests wholly; `None` if first touches make that impossible.
    pub fn cache_for_hit_ratio(&self, q: f64) -> Option<u64> {
        Self::quantile(&self.requests, q, self.block_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use statrs::distribution::{Binomial, DiscreteCDF};

    fn wl(blocks: u64, size: u64, read: f64, seq: f64, procs: u32) -> Workload {
        Workload::of(blocks * 4096, size, read, seq, procs)
    }

    #[test]
    fn distances_of_a_known_sequence() {
        let mut s = StackDistance::new(4, 10);
        assert_eq!(s.touch(0), None);
        assert_eq!(s.touch(1), None);
        assert_eq!(s.touch(2), None);
        assert_eq!(s.touch(0), Some(2));
        assert_eq!(s.touch(0), Some(0));
        assert_eq!(s.touch(2), Some(1));
        assert_eq!(s.depth(1), Some(2));
        assert_eq!(s.depth(3), None);
    }

    /// Random single-block requests: the hit ratio of a cache of C blocks is
    /// P(Binomial(U - 1, 1/2) < C), the depth distribution itself.
    #[test]
    fn random_requests_follow_the_depth_distribution() {
        let u = 4096u64;
        let p = StackProfile::measure(&wl(u, 4096, 1.0, 0.0, 1), 200_000, 3);
        let exact = Binomial::new(0.5, u - 1).unwrap();
        for c in [1990u64, 2048, 2100] {
            let (got, want) = (p.hit_ratio(c * 4096), exact.cdf(c - 1));
            assert!((got - want).abs() < 0.01, "C = {c}: {got} vs {want}");
        }
        let median = p.cache_for_hit_ratio(0.5).unwrap() as f64 / 4096.0;
        assert!(
            (median / 2048.0 - 1.0).abs() < 0.01,
            "median distance {median} blocks"
        );
    }

    /// With one-block requests, a request is served exactly when its block
    /// is. (With larger requests the two differ either way: small requests
    /// that hit and large ones that miss make the request ratio the larger.)
    #[test]
    fn one_block_requests_have_equal_request_and_block_ratios() {
        let p = StackProfile::measure(&wl(2048, 4096, 0.5, 0.5, 2), 50_000, 7);
        for c in [0u64, 500, 1000, 2048, 3000, 4096] {
            assert_eq!(
                p.hit_ratio(c * 4096),
                p.block_hit_ratio(c * 4096),
                "C = {c}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn hit_ratio_grows_with_the_cache(seq in 0.0f64..1.0, read in 0.0f64..1.0, procs in 1u32..4, seed in 0u64..100) {
            let p = StackProfile::measure(&wl(1024, 8192, read, seq, procs), 20_000, seed);
            let mut last = 0.0;
            for c in (0..=1024u64 * u64::from(procs)).step_by(64) {
                let h = p.hit_ratio(c * 4096);
                prop_assert!(h >= last && (0.0..=1.0).contains(&h));
                last = h;
            }
            prop_assert_eq!(p.hit_ratio(0), 0.0);
            // Block-level ratios grow with the cache too.
            let mut last = 0.0;
            for c in (0..=1024u64 * u64::from(procs)).step_by(64) {
                let h = p.block_hit_ratio(c * 4096);
                prop_assert!(h >= last);
                last = h;
            }
            // A cache as large as all files misses only first touches.
            prop_assert!(p.hit_ratio(4 * 1024 * 4096 * u64::from(procs)) > 0.99);
        }
    }
}
