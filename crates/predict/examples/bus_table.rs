//! The table of docs/BUS.md: Barve et al.'s Table 6 (Cheetah / Ultra-1,
//! naive, fence 0) beside willy's simulated bus and Barve's model (eqs.
//! 1-5) on `sim:cheetah-bus`, with the rounds kept under both arbitration
//! policies.
//!
//! `cargo run --release -p willy-predict --example bus_table`

use std::time::Duration;
use willy::run::{run_sim_placed, RunConfig};
use willy::sim::config::{Arbitration, StorageConfig};
use willy::sim::SimConfig;
use willy::units::Bytes;
use willy::workload::Workload;
use willy_predict::bus::BusModel;

/// Barve's Table 6, naive: MB/s for D = 2, 3, 4.
const PAPER: [(u64, [f64; 3]); 6] = [
    (8, [1.32, 1.97, 2.63]),
    (16, [2.48, 3.65, 4.83]),
    (32, [4.43, 6.32, 8.02]),
    (64, [7.08, 9.38, 10.72]),
    (96, [8.76, 10.85, 12.09]),
    (128, [9.86, 11.79, 13.00]),
];

/// Throughput (bytes/s) and rounds kept of `d` disks reading `block`s.
fn run(d: u32, block: u64, arbitration: Arbitration) -> (f64, Option<f64>, SimConfig) {
    let mut sim = SimConfig::load(&format!("cheetah-bus@{d}")).expect("a preset");
    if let StorageConfig::Bus { arbitration: a, .. } = &mut sim.storage {
        *a = arbitration;
    }
    let disk = sim.capacity() / u64::from(d);
    let w = Workload {
        unique_bytes: Bytes(disk / block * block),
        size_mean: Bytes(block),
        read_frac: 1.0,
        seq_frac: 0.0,
        process_num: 1,
        cpu_think: Default::default(),
        block_size: Bytes(block),
    };
    let ws = vec![w; d as usize];
    let offsets: Vec<u64> = (0..u64::from(d)).map(|k| k * disk).collect();
    let all: Vec<usize> = (0..d as usize).collect();
    let cfg = RunConfig {
        min_duration: Duration::from_secs(30),
        max_duration: Duration::from_secs(30),
        warmup_min: Duration::from_secs(2),
        warmup_max: Duration::from_secs(2),
        interval: Duration::from_millis(500),
        ..RunConfig::default()
    };
    let (ms, _) = run_sim_placed(&ws, &offsets, &all, &cfg, &sim, true).expect("a run");
    let total = ms.iter().map(|m| m.throughput_bytes_per_sec).sum();
    let times: Vec<Vec<u64>> = ms.iter().map(|m| m.completions.0.clone()).collect();
    let kept = willy::rounds::rounds_kept(&willy::rounds::merge(&times), d as usize);
    (total, kept, sim)
}

fn main() {
    println!("| B (KiB) | D | paper, naive (MB/s) | willy, simulated (MB/s) | model (MB/s) | read duration: simulated / model (ms) | error | rounds kept: disk-first / host-first |");
    println!("|---|---|---|---|---|---|---|---|");
    let pct = |x: Option<f64>| x.map_or("-".into(), |v| format!("{:.0}%", v * 100.0));
    for (kib, paper) in PAPER {
        for d in 1..=4u32 {
            let b = kib << 10;
            let (t, kept, sim) = run(d, b, Arbitration::DiskFirst);
            let (_, host, _) = run(d, b, Arbitration::HostFirst);
            let model = BusModel::of_sim(&sim).expect("a bus");
            let (rd, _) = model.read_duration_ms(d, b);
            let sim_rd = f64::from(d) * b as f64 / t * 1e3;
            let p = if d >= 2 {
                format!("{:.2}", paper[d as usize - 2])
            } else {
                "-".into()
            };
            println!(
                "| {kib} | {d} | {p} | {:.2} | {:.2} | {sim_rd:.2} / {rd:.2} | {:+.1}% | {} / {} |",
                t / 1e6,
                model.throughput(d, b) / 1e6,
                (sim_rd / rd - 1.0) * 100.0,
                pct(kept),
                pct(host)
            );
        }
    }
}
