//! The generator issues the workload it is asked for: 1M requests, no I/O.
//!
//! The LRU depth is checked against an independent oracle: Mattson's stack
//! distance over access times ([`willy::analysis::StackDistance`]), not
//! willy's own LRU stack ([`willy::lru`]).

use willy::analysis::StackDistance;
use willy::generator::{Generator, Op};
use willy::workload::Workload;

fn workload(blocks: u64, size: u64, read: f64, seq: f64) -> Workload {
    Workload::of(blocks * 4096, size, read, seq, 1)
}

#[test]
fn one_million_requests_match_the_parameters() {
    let blocks = 16_384u64;
    // m = 3: sizes are 1 + Binomial(4, 1/2) blocks.
    let w = workload(blocks, 12 << 10, 0.3, 0.4);
    let n = 1_000_000u64;
    let mut g = Generator::new(&w, 0, 2024);
    // Replay the generator's initial stack, bottom first, into the oracle.
    let initial = g.stack_top_first();
    let mut oracle = StackDistance::new(blocks as usize, initial.len() + (n * 6) as usize);
    for &b in initial.iter().rev() {
        oracle.touch(b);
    }
    let (mut reads, mut seqs, mut size_sum) = (0u64, 0u64, 0u64);
    let (mut depth_sum, mut randoms, mut exact) = (0u64, 0u64, 0u64);
    let mut touched = vec![false; blocks as usize];
    for _ in 0..n {
        let r = g.next_request();
        reads += u64::from(r.op == Op::Read);
        seqs += u64::from(r.seq);
        size_sum += r.len;
        let (first, count) = (r.offset / 4096, r.len / 4096);
        assert!(
            first + count <= blocks,
            "request past the end of the file: {r:?}"
        );
        if let Some(d) = r.depth {
            randoms += 1;
            let measured = oracle
                .depth(first as u32)
                .expect("every block was replayed");
            depth_sum += measured;
            // Unless the start was moved back to fit the file, the request
            // starts exactly at the block that was at the drawn depth.
            exact += u64::from(measured == d);
        }
        for b in first..first + count {
            touched[b as usize] = true;
            oracle.touch(b as u32);
        }
    }
    let within = |obs: f64, want: f64, what: &str| {
        let rel = (obs - want).abs() / want;
        assert!(
            rel <= 0.01,
            "{what}: observed {obs}, wanted {want} ({:.3}% off)",
            rel * 100.0
        );
    };
    within(reads as f64 / n as f64, 0.3, "read fraction");
    within(seqs as f64 / n as f64, 0.4, "sequential fraction");
    within(size_sum as f64 / n as f64, 12.0 * 1024.0, "mean size");
    within(
        depth_sum as f64 / randoms as f64,
        (blocks - 1) as f64 / 2.0,
        "mean LRU depth",
    );
    assert!(
        exact as f64 >= 0.999 * randoms as f64,
        "only {exact} of {randoms} random requests started at their drawn depth"
    );
    let untouched = touched.iter().filter(|&&t| !t).count();
    assert_eq!(
        untouched, 0,
        "{untouched} blocks of the file were never touched"
    );
}

#[test]
fn random_single_block_requests_stay_in_the_top_of_the_stack() {
    // Chen's depth distribution (mean U/2, sd sqrt(U)/2) keeps random
    // requests on about half the blocks: the reason a cache of C blocks
    // serves uniqueBytes up to about 2C (docs/WORKLOAD.md).
    let blocks = 4096u64;
    let mut g = Generator::new(&workload(blocks, 4096, 1.0, 0.0), 0, 5);
    let mut touched = std::collections::HashSet::new();
    for _ in 0..200_000 {
        touched.insert(g.next_request().offset);
    }
    let frac = touched.len() as f64 / blocks as f64;
    assert!((0.5..0.56).contains(&frac), "touched {frac} of the blocks");
}
