//! Scores every model on the workloads of validations already measured,
//! without measuring again (docs/PREDICTION.md, "The willy model"):
//!
//! ```sh
//! cargo run --release -p willy-predict --example rescore -- \
//!     PROFILE VALIDATION [PROFILE VALIDATION ...]
//! ```
//!
//! For each pair, prints every model's median error overall and in each
//! region (the region of each point as the validation recorded it).
//! With `--points`, also every last-region workload: measured and each
//! model's prediction; with `--all`, every workload. With `--drift`, each
//! prediction is scaled by its region's drift (the validation's focal
//! point again over the profile's, `1 + change`), as a user who measured
//! the focal points again could (docs/PREDICTION.md, "What was tried").
use std::process::ExitCode;
use willy::doc::validation::ValidationReport;
use willy_predict::profile::Profile;
use willy_predict::validate::{median, rel_error};

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn one(profile: &str, validation: &str, flags: Flags) -> Result<(), String> {
    let Flags { points, all, drift } = flags;
    let p = Profile::from_json(&read(profile)?).map_err(|e| format!("{profile}: {e}"))?;
    let v = ValidationReport::from_json(&read(validation)?)
        .map_err(|e| format!("{validation}: {e}"))?;
    let models = willy_predict::all_models(&p).map_err(|e| format!("{profile}: {e}"))?;
    let last = v.points.iter().map(|x| x.region).max().unwrap_or(0);
    let scale = |region: usize| -> f64 {
        let d = v.drift.iter().find(|d| drift && d.region == region);
        d.map_or(1.0, |d| 1.0 + d.change)
    };
    let mut line = format!("{profile:<40}");
    for (name, m) in &models {
        let err = |x: &willy::doc::validation::ValidatedPoint| {
            let tp = m.predict(&x.workload).predicted_throughput_bytes_per_sec;
            rel_error(tp * scale(x.region), x.measured_bytes_per_sec)
        };
        let all: Vec<f64> = v.points.iter().map(err).collect();
        line += &format!(" | {name}: {:5.1}%", median(&all) * 100.0);
        for r in 0..=last {
            let there: Vec<f64> = v.points.iter().filter(|x| x.region == r).map(err).collect();
            if !there.is_empty() {
                line += &format!(", region {r} {:5.1}%", median(&there) * 100.0);
            }
        }
    }
    println!("{line}");
    if points {
        for x in v.points.iter().filter(|x| all || x.region == last) {
            let w = &x.workload;
            let mut l = format!(
                "  [{}] U {} size {} read {} seq {} N {}: measured {:.3e}",
                x.region,
                w.unique_bytes,
                w.size_mean,
                w.read_frac,
                w.seq_frac,
                w.process_num,
                x.measured_bytes_per_sec
            );
            for (name, m) in &models {
                let tp = m.predict(w).predicted_throughput_bytes_per_sec * scale(x.region);
                l += &format!(", {name} {tp:.3e}");
            }
            println!("{l}");
        }
    }
    Ok(())
}

/// What to print and how to score.
#[derive(Clone, Copy)]
struct Flags {
    points: bool,
    all: bool,
    drift: bool,
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let has = |f: &str| args.iter().any(|a| a == f);
    let all = has("--all");
    let flags = Flags {
        points: all || has("--points"),
        all,
        drift: has("--drift"),
    };
    args.retain(|a| !["--points", "--all", "--drift"].contains(&a.as_str()));
    if args.is_empty() || !args.len().is_multiple_of(2) {
        eprintln!(
            "usage: rescore [--points|--all] [--drift] PROFILE VALIDATION [PROFILE VALIDATION ...]"
        );
        return ExitCode::from(2);
    }
    for pair in args.chunks(2) {
        if let Err(e) = one(&pair[0], &pair[1], flags) {
            eprintln!("rescore: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
