//! Simulator speed: one million requests through the generators, the core
//! loop's engine calls and the simulated system must take under 2 s on one
//! core (issue 3). Each benchmark iteration simulates 1M requests, so the
//! reported time is the time per million.
//!
//! Run: `cargo bench -p willy --bench sim`

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use willy::engine::{Completion, Engine, Io};
use willy::generator::Generator;
use willy::sim::{SimConfig, SimEngine};
use willy::units::Bytes;
use willy::workload::Workload;

const REQUESTS: u64 = 1_000_000;

/// A closed loop of `procs` generators, as the core loop runs it.
fn simulate(sim: &SimConfig, w: &Workload) -> u64 {
    let mut e = SimEngine::new(sim, w.total_bytes(), false, 1);
    let per = w.bytes_per_generator();
    let mut gens: Vec<Generator> = (0..w.process_num)
        .map(|n| Generator::new(w, n, 1))
        .collect();
    let mut out: Vec<Completion> = Vec::new();
    let submit = |e: &mut SimEngine, g: &mut Generator, slot: usize| {
        let r = g.next_request();
        let io = Io {
            op: r.op,
            fd: slot as i32,
            offset: slot as u64 * per + r.offset,
            len: r.len as usize,
        };
        e.submit(slot, &io).unwrap();
    };
    for (slot, g) in gens.iter_mut().enumerate() {
        submit(&mut e, g, slot);
    }
    let mut done = 0;
    while done < REQUESTS {
        out.clear();
        e.reap(None, &mut out).unwrap();
        for c in &out {
            done += 1;
            submit(&mut e, &mut gens[c.slot], c.slot);
        }
    }
    e.now()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulate_1M_requests");
    g.sample_size(10);
    for (preset, unique) in [
        ("sparc1990", 48u64 << 20),
        ("hdd", 6 << 30),
        ("raid0", 2 << 30),
        ("ssd", 3 << 30),
    ] {
        let sim = SimConfig::load(preset).unwrap();
        let w = Workload {
            unique_bytes: Bytes(unique),
            size_mean: Bytes(16 << 10),
            read_frac: 0.5,
            seq_frac: 0.5,
            process_num: 4,
            cpu_think: Default::default(),
            block_size: Bytes(4096),
        };
        g.bench_function(preset, |b| b.iter(|| black_box(simulate(&sim, &w))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
