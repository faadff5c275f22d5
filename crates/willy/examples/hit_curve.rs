//! The block hit ratio of one generator's accesses under an LRU cache of
//! a tenth to all of its file (docs/PREDICTION.md, "The disk regions
//! over time"): Chen's depth distribution keeps random requests near
//! half the file deep in the generator's LRU stack, so the curve is flat
//! to half the file and rises there in a step, whatever the request
//! size. Computed from the request stream alone, without I/O
//! ([`StackProfile`]):
//!
//! `cargo run --release -p willy --example hit_curve -- FILE_BYTES SIZE_BYTES READ_FRAC SEQ_FRAC`

use willy::analysis::StackProfile;
use willy::workload::Workload;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hit_curve: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let usage = "usage: hit_curve FILE_BYTES SIZE_BYTES READ_FRAC SEQ_FRAC";
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 4 {
        return Err(usage.into());
    }
    let num = |s: &str| {
        s.parse::<f64>()
            .map_err(|_| format!("not a number: {s} ({usage})"))
    };
    let (file, size) = (num(&a[0])? as u64, num(&a[1])? as u64);
    let (read, seq) = (num(&a[2])?, num(&a[3])?);
    let w = Workload::of(file, size, read, seq, 1);
    w.validate().map_err(|e| e.to_string())?;
    let p = StackProfile::measure(&w, 400_000, 1);
    println!("cache / file  block hit ratio");
    for f in [0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.0] {
        let c = (file as f64 * f) as u64;
        println!("{f:>12.2}  {:.3}", p.block_hit_ratio(c));
    }
    Ok(())
}
