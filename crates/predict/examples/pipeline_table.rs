//! The pipelining table of docs/BUS.md: Barve et al.'s Table 6 (Cheetah /
//! Ultra-1, naive and pipelined, fence 0) beside `sim:cheetah-bus` without
//! and with `--pipeline` (the host's cost of each asynchronous read:
//! `cpu.async_read_overhead_ms`, 1 ms in the preset).
//!
//! `cargo run --release -p willy-predict --example pipeline_table`

use willy::sim::SimConfig;

/// Barve's Table 6: (KB, [(naive, pipelined) for D = 2, 3, 4]), MB/s.
const PAPER: [(u64, [(f64, f64); 3]); 6] = [
    (8, [(1.32, 1.22), (1.97, 1.74), (2.63, 2.30)]),
    (16, [(2.48, 2.34), (3.65, 3.31), (4.83, 4.28)]),
    (32, [(4.43, 4.27), (6.32, 6.07), (8.02, 7.75)]),
    (64, [(7.08, 7.09), (9.38, 10.05), (10.72, 12.48)]),
    (96, [(8.76, 9.48), (10.85, 12.76), (12.09, 14.12)]),
    (128, [(9.86, 11.01), (11.79, 14.19), (13.00, 14.45)]),
];

fn main() {
    println!("| B (KiB) | D | paper: naive / pipelined (MB/s) | paper | willy: naive / pipelined (MB/s) | willy |");
    println!("|---|---|---|---|---|---|");
    for (kib, paper) in PAPER {
        for d in 1..=4u32 {
            let sim = SimConfig::load(&format!("cheetah-bus@{d}")).expect("a preset");
            let run = |p| willy_predict::bus::simulate(&sim, (d, kib << 10), 30.0, 1, p);
            let (naive, _) = run(false).expect("a run");
            let (piped, _) = run(true).expect("a run");
            let (pp, pg) = match d {
                1 => ("-".to_string(), "-".to_string()),
                _ => {
                    let (a, b) = paper[d as usize - 2];
                    (
                        format!("{a:.2} / {b:.2}"),
                        format!("{:+.0}%", (b / a - 1.0) * 100.0),
                    )
                }
            };
            println!(
                "| {kib} | {d} | {pp} | {pg} | {:.2} / {:.2} | {:+.0}% |",
                naive / 1e6,
                piped / 1e6,
                (piped / naive - 1.0) * 100.0
            );
        }
    }
}
