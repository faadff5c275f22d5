//! One closed-loop generator's request stream (Chen 1992, section 3.4).
//!
//! Each generator owns one file of `U = uniqueBytes / processNum / blockSize`
//! blocks and draws, per request:
//! - the direction: a read with probability `readFrac`;
//! - the size in blocks: `1 + Binomial(2m - 2, 1/2)` with
//!   `m = sizeMean / blockSize` (rounded to the nearest half block), clamped
//!   to `U`; the mean is `sizeMean` and the size is never 0;
//! - the address: with probability `seqFrac` the request starts where this
//!   generator's previous request ended; it wraps to block 0 when it would
//!   run past the end of the file. Otherwise a depth `~ Binomial(U - 1, 1/2)`
//!   is drawn in the generator's LRU stack, and the request starts at the
//!   block found there (moved back so that the request fits in the file).
//!
//! # The LRU stack
//! - It starts as a seeded random permutation of the file's blocks, so that
//!   the blocks the model keeps returning to are spread over the whole file
//!   rather than bunched in one half of it.
//! - Every block a request covers, sequential or not, is moved to the top, in
//!   ascending address order (the last block ends on top), exactly as an LRU
//!   cache of blocks would see the request. The stack therefore *is* the
//!   generator's own LRU cache order: a cache of `C` blocks private to one
//!   generator hits a random request exactly when its depth is below `C`.
//! - Because the depth is `Binomial(U - 1, 1/2)` (mean `U/2`, standard
//!   deviation `sqrt(U)/2`), random single-block requests keep coming back to
//!   about the top half of the stack; blocks that sink below it are reached
//!   again only by sequential or multi-block requests. That is Chen's model,
//!   and why a cache of `C` blocks covers random requests up to `U ≈ 2C`.
//!
//! Cost per request: O(log U) per block the request covers (see
//! [`crate::lru`]). The first request's "previous end" is block 0.

use crate::lru::LruStack;
use crate::workload::Workload;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_distr::weighted::WeightedAliasIndex;
use rand_distr::{Binomial, Distribution};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Read from the file.
    Read,
    /// Overwrite part of the file.
    Write,
}

/// One request, in bytes relative to the start of the generator's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Read or write.
    pub op: Op,
    /// Byte offset in the generator's file (block-aligned).
    pub offset: u64,
    /// Length in bytes (whole blocks, at least one).
    pub len: u64,
    /// True if the request was drawn as sequential.
    pub seq: bool,
    /// For a random request, the LRU stack depth drawn (the request starts at
    /// the block that was at this depth, unless moved back to fit the file).
    pub depth: Option<u64>,
}

/// The request stream of one generator. Deterministic for a given workload,
/// seed and generator index; does no I/O.
#[derive(Clone, Debug)]
pub struct Generator {
    stack: LruStack,
    rng: Xoshiro256PlusPlus,
    read_frac: f64,
    seq_frac: f64,
    size: Binomial,
    size_trials: u64,
    depth: DepthSampler,
    blocks: u64,
    block_size: u64,
    prev_end: u64,
}

impl Generator {
    /// Generator number `index` of workload `w` (which must be valid).
    pub fn new(w: &Workload, index: u32, seed: u64) -> Generator {
        let blocks = w.blocks_per_generator();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let mut order: Vec<u32> = (0..blocks as u32).collect();
        order.shuffle(&mut rng);
        Generator {
            stack: LruStack::new(&order),
            rng,
            read_frac: w.read_frac,
            seq_frac: w.seq_frac,
            size: Binomial::new(w.size_trials(), 0.5).expect("p = 0.5 is valid"),
            size_trials: w.size_trials(),
            depth: DepthSampler::new(blocks - 1),
            blocks,
            block_size: w.block_size.0,
            prev_end: 0,
        }
    }

    /// Blocks in this generator's file.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The next request.
    pub fn next_request(&mut self) -> Request {
        let op = if self.rng.random_bool(self.read_frac) {
            Op::Read
        } else {
            Op::Write
        };
        // One-block requests (sizeMean = blockSize) need no draw.
        let extra = if self.size_trials == 0 {
            0
        } else {
            self.size.sample(&mut self.rng)
        };
        let n = (1 + extra).min(self.blocks);
        let seq = self.rng.random_bool(self.seq_frac);
        let (start, depth) = if seq {
            (
                if self.prev_end + n > self.blocks {
                    0
                } else {
                    self.prev_end
                },
                None,
            )
        } else {
            let d = self.depth.sample(&mut self.rng);
            (
                u64::from(self.stack.at_depth(d)).min(self.blocks - n),
                Some(d),
            )
        };
        for b in start..start + n {
            self.stack.touch(b as u32);
        }
        self.prev_end = start + n;
        Request {
            op,
            offset: start * self.block_size,
            len: n * self.block_size,
            seq,
            depth,
        }
    }

    /// The generator's LRU stack, top first. O(U): for tests.
    pub fn stack_top_first(&self) -> Vec<u32> {
        self.stack.to_vec()
    }
}

/// Draws `Binomial(n, 1/2)` in O(1) with an alias table over the mean
/// ± 12 standard deviations (all of `0..=n` when that is narrower). The mass
/// left out is below 1e-32 (`2 * P(Z > 12)`), so no run can tell the
/// difference, and a draw costs one table lookup instead of BTPE's
/// rejection loop.
#[derive(Clone, Debug)]
pub struct DepthSampler {
    lo: u64,
    table: WeightedAliasIndex<f64>,
}

impl DepthSampler {
    /// The sampler for `Binomial(n, 1/2)`.
    pub fn new(n: u64) -> DepthSampler {
        let mean = n as f64 / 2.0;
        let width = 12.0 * (n as f64).sqrt() / 2.0 + 1.0;
        let lo = (mean - width).floor().max(0.0) as u64;
        let hi = ((mean + width).ceil() as u64).min(n);
        let ln2n = n as f64 * std::f64::consts::LN_2;
        let weights: Vec<f64> = (lo..=hi)
            .map(|k| (statrs::function::factorial::ln_binomial(n, k) - ln2n).exp())
            .collect();
        let table =
            WeightedAliasIndex::new(weights).expect("binomial weights are positive and finite");
        DepthSampler { lo, table }
    }

    /// One draw.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        self.lo + self.table.sample(rng) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wl(unique: u64, size: u64, read: f64, seq: f64) -> Workload {
        Workload::of(unique, size, read, seq, 1)
    }

    /// The alias-table depth against the exact binomial: mean, variance and
    /// a chi-square over the central cells.
    #[test]
    fn depth_sampler_draws_the_binomial() {
        use statrs::distribution::{Binomial as B, Discrete};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for n in [0u64, 1, 7, 1000, 65_535] {
            let d = DepthSampler::new(n);
            let draws: Vec<u64> = (0..200_000).map(|_| d.sample(&mut rng)).collect();
            let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
            let var = draws
                .iter()
                .map(|&x| (x as f64 - mean).powi(2))
                .sum::<f64>()
                / draws.len() as f64;
            assert!(
                (mean - n as f64 / 2.0).abs() <= 0.01 * (n as f64).sqrt() + 0.005,
                "n {n}: mean {mean}"
            );
            if n > 0 {
                assert!(
                    (var / (n as f64 / 4.0) - 1.0).abs() < 0.02,
                    "n {n}: variance {var}"
                );
            }
            if n == 1000 {
                let exact = B::new(0.5, n).unwrap();
                let mut counts = std::collections::HashMap::new();
                for &x in &draws {
                    *counts.entry(x).or_insert(0u64) += 1;
                }
                let (mut chi2, mut cells) = (0.0, 0);
                for k in 470..=530u64 {
                    let e = exact.pmf(k) * draws.len() as f64;
                    let o = *counts.get(&k).unwrap_or(&0) as f64;
                    chi2 += (o - e).powi(2) / e;
                    cells += 1;
                }
                // 61 cells: the 99.9% point of chi-square(60) is about 99.6.
                assert!(chi2 < 99.6, "chi-square {chi2} over {cells} cells");
            }
        }
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        let w = wl(64 << 20, 16 << 10, 0.5, 0.5);
        let run = |seed| {
            let mut g = Generator::new(&w, 0, seed);
            (0..1000).map(|_| g.next_request()).collect::<Vec<_>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }

    #[test]
    fn sequential_requests_continue_the_previous_one() {
        let w = wl(1 << 20, 12 << 10, 0.5, 0.7);
        let mut g = Generator::new(&w, 0, 3);
        let mut prev_end = 0;
        for _ in 0..10_000 {
            let r = g.next_request();
            assert_eq!(r.offset % 4096, 0);
            assert!(r.len >= 4096 && r.offset + r.len <= 1 << 20);
            if r.seq {
                assert!(
                    r.offset == prev_end || r.offset == 0,
                    "{r:?} after {prev_end}"
                );
            }
            prev_end = r.offset + r.len;
        }
    }

    #[test]
    fn a_random_request_starts_at_the_block_at_its_depth_and_lands_on_top() {
        let w = wl(256 * 4096, 4096, 1.0, 0.0);
        let mut g = Generator::new(&w, 0, 9);
        for _ in 0..1000 {
            let r = g.next_request();
            assert_eq!(g.stack_top_first()[0] as u64, r.offset / 4096);
        }
    }
}
