//! Measures workloads one after another in one testbed on files under a
//! memory cgroup, as `willy run --scale` and `willy validate` do, and
//! prints each second's throughput: what a measurement leaves in the cache
//! for the next one on the same files (docs/PERFORMANCE.md, "Measured
//! again"). As root:
//!
//! ```sh
//! cargo run --release -p willy --example again -- DIR [SECONDS] [LIMIT_MIB] < workloads.jsonl
//! ```
//!
//! One workload (JSON) per line of stdin; each is measured for SECONDS
//! (20) after its warm start, under a cgroup of LIMIT_MIB (1024).
use std::io::BufRead;
use std::time::Duration;
use willy::run::{RunConfig, Snapshot};
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::workload::Workload;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: again DIR [SECONDS] [LIMIT_MIB] < workloads.jsonl");
        std::process::exit(2);
    };
    let secs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let mib: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let opts = TestbedOptions {
        cache_limit: Some(mib << 20),
        ..TestbedOptions::default()
    };
    let target = TargetArg::parse(Some(std::path::Path::new(dir)));
    let mut bed = Testbed::open(target, &opts).unwrap_or_else(|e| {
        eprintln!("again: {e}");
        std::process::exit(1)
    });
    let cfg = RunConfig {
        min_duration: Duration::from_secs(secs),
        max_duration: Duration::from_secs(secs),
        warmup_max: Duration::from_secs(20),
        seed: 1,
        ..RunConfig::default()
    };
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
            continue;
        }
        let w = Workload::from_json(&line).unwrap_or_else(|e| {
            eprintln!("again: {e}");
            std::process::exit(2)
        });
        // Each whole second's throughput, from the running mean.
        let (mut last, mut series) = ((-1.0f64, 0.0f64), Vec::new());
        let mut each_second = |s: &Snapshot| {
            if s.measuring && s.phase_secs.floor() > last.0 {
                let bytes = s.throughput * s.phase_secs;
                if last.0 >= 0.0 {
                    let gb = (bytes - last.1) / (s.phase_secs - last.0) / 1e9;
                    series.push(format!("{gb:.2}"));
                }
                last = (s.phase_secs.floor(), bytes);
            }
        };
        let ms = bed
            .measure_observed(
                std::slice::from_ref(&w),
                &cfg,
                &mut |_, _| true,
                &mut each_second,
            )
            .unwrap_or_else(|e| {
                eprintln!("again: {e}");
                std::process::exit(1)
            });
        println!(
            "{w}: {:.2} GB/s\n  each second: {}",
            ms[0].throughput_bytes_per_sec / 1e9,
            series.join(" ")
        );
    }
}
