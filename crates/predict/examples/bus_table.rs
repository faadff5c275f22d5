//! The table of docs/BUS.md: Barve et al.'s Table 6 (Cheetah / Ultra-1,
//! naive, fence 0) beside willy's simulated bus and Barve's model (eqs.
//! 1-5) on `sim:cheetah-bus`, with the rounds kept under both arbitration
//! policies.
//!
//! `cargo run --release -p willy-predict --example bus_table`

use willy::sim::config::{Arbitration, StorageConfig};
use willy::sim::SimConfig;
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

/// Throughput (bytes/s) and rounds kept of `d` disks reading `block`s,
/// 30 s of virtual time each.
fn run(d: u32, block: u64, arbitration: Arbitration) -> (f64, Option<f64>, SimConfig) {
    let mut sim = SimConfig::load(&format!("cheetah-bus@{d}")).expect("a preset");
    if let StorageConfig::Bus { arbitration: a, .. } = &mut sim.storage {
        *a = arbitration;
    }
    let (total, kept) =
        willy_predict::bus::simulate(&sim, (d, block), 30.0, 1, false).expect("a run");
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
