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
//! With `--steady`, every profile point and validated workload whose
//! measurement began before its steady state is taken at that state
//! (`steady_bytes_per_sec`, `measured_steady_bytes_per_sec`; profiles of
//! version 8 and validations of version 5 on).
//!
//! With `--split`, the pairs are runs that validated the same workloads
//! (the same `--seed`), and the error is split into the model's and the
//! runs' (docs/PERFORMANCE.md, "Where the error comes from"). Each
//! workload's error in a run is `e = ln(predicted / measured)`; its *bias*
//! in that run is the median of its `e` over the *other* runs. For each
//! run and model, three medians of `|exp(x) - 1|` over its workloads,
//! overall, in every region but the last and in the last: `x = e` (the
//! run's error), `x = e - bias` (what remains once each workload's bias is
//! known: a model that made none of the others' errors again) and
//! `x = bias` (the others' error alone, without this run's noise).
//! Then, over the workloads that lay outside the last region in every
//! run, the median of their standard deviation from run to run: of the
//! logarithm of what was measured, and of each model's prediction.
//!
//! With `--factors`, the pairs are again runs of the same workloads, and
//! each model's prediction of every workload outside the last region is
//! taken apart at a reference workload, the first profile's focal point
//! of its first region: the prediction there (`level`), how much the
//! workload's uniqueBytes changes it, and then how much each of its other
//! four parameters does, set alone at the reference with the workload's
//! uniqueBytes (all in the logarithm; for `chen` the parts add up to its
//! prediction). Printed: the median over the workloads of each part's
//! standard deviation from run to run, which shows the curves whose
//! points move a prediction most (docs/PERFORMANCE.md, "Where the error
//! comes from"). Before that, for each run and region: the median over
//! its workloads of how far each part, the whole prediction and what was
//! measured lay from that workload's median over the runs (in the log,
//! workloads validated in at least three runs), which shows whether a
//! run's miss in a region came from its profile or from its measurements.
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use willy::doc::validation::ValidationReport;
use willy_predict::profile::Profile;
use willy_predict::validate::{median, rel_error};
use willy_predict::willy::workload::Workload;
use willy_predict::{Model, Named};

/// `println!` that ends the program quietly when standard output's reader
/// has gone (`rescore ... | head`), and with a one-line error on any other
/// failure to write, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("rescore: {e}");
            std::process::exit(1);
        }
    };
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// A profile and a validation of it, every model made ready from the
/// profile, and the validation's last region.
fn load(
    profile: &str,
    validation: &str,
) -> Result<(Profile, ValidationReport, Vec<Named>, usize), String> {
    let mut p = Profile::from_json(&read(profile)?).map_err(|e| format!("{profile}: {e}"))?;
    let mut v = ValidationReport::from_json(&read(validation)?)
        .map_err(|e| format!("{validation}: {e}"))?;
    if STEADY.load(std::sync::atomic::Ordering::Relaxed) {
        for x in &mut p.points {
            x.throughput_bytes_per_sec =
                x.steady_bytes_per_sec.unwrap_or(x.throughput_bytes_per_sec);
        }
        for x in &mut v.points {
            x.measured_bytes_per_sec = x
                .measured_steady_bytes_per_sec
                .unwrap_or(x.measured_bytes_per_sec);
        }
    }
    let models = willy_predict::all_models(&p).map_err(|e| format!("{profile}: {e}"))?;
    let last = v.points.iter().map(|x| x.region).max().unwrap_or(0);
    Ok((p, v, models, last))
}

/// A validated workload's key from run to run: its readFrac, seqFrac and
/// processNum (the seed fixes them).
fn key(w: &Workload) -> (u64, u64, u32) {
    (w.read_frac.to_bits(), w.seq_frac.to_bits(), w.process_num)
}

/// One run's workloads: for each, its key (readFrac, seqFrac, processNum:
/// the seed fixes them), whether it lay in the last region, and the
/// logarithms of what was measured and of each model's prediction.
type Run = Vec<Entry>;

/// One workload of a [`Run`].
type Entry = ((u64, u64, u32), bool, f64, Vec<f64>);

fn errors(profile: &str, validation: &str) -> Result<(Vec<&'static str>, Run), String> {
    let (_, v, models, last) = load(profile, validation)?;
    let run = v.points.iter().map(|x| {
        let w = &x.workload;
        let predicted = models
            .iter()
            .map(|(_, m)| m.predict(w).predicted_throughput_bytes_per_sec.ln());
        let measured = x.measured_bytes_per_sec.ln();
        (key(w), x.region == last, measured, predicted.collect())
    });
    Ok((models.iter().map(|(n, _)| *n).collect(), run.collect()))
}

/// `--split`: see the module documentation.
fn split(pairs: &[(String, String)]) -> Result<(), String> {
    let mut runs = Vec::new();
    let mut names = Vec::new();
    for (p, v) in pairs {
        let (n, run) = errors(p, v)?;
        names = n;
        runs.push((v.clone(), run));
    }
    let abs = |x: f64| x.exp_m1().abs() * 100.0;
    say!("median |error| over each run's workloads, %: the run's / less each workload's bias in the other runs / that bias alone");
    for (r, (name, run)) in runs.iter().enumerate() {
        let mut line = format!("{name:<50}");
        for (m, model) in names.iter().enumerate() {
            let bias = |key| {
                let others = runs.iter().enumerate().filter(|&(o, _)| o != r);
                let e: Vec<f64> = others
                    .flat_map(|(_, (_, run))| {
                        run.iter().filter(|x| x.0 == key).map(|x| x.3[m] - x.2)
                    })
                    .collect();
                (!e.is_empty()).then(|| median(&e))
            };
            let scored: Vec<(bool, f64, f64)> = run
                .iter()
                .filter_map(|x| bias(x.0).map(|b| (x.1, x.3[m] - x.2, b)))
                .collect();
            line += &format!(" | {model}");
            for part in [None, Some(false), Some(true)] {
                let there = scored
                    .iter()
                    .filter(|x| part.is_none_or(|last| x.0 == last));
                let three: [Vec<f64>; 3] = [
                    there.clone().map(|x| abs(x.1)).collect(),
                    there.clone().map(|x| abs(x.1 - x.2)).collect(),
                    there.map(|x| abs(x.2)).collect(),
                ];
                let label = match part {
                    None => "all",
                    Some(false) => "cache",
                    Some(true) => "last",
                };
                let count = three[0].len();
                let [a, b, c] = three.map(|v| median(&v));
                line += &format!(" {label} {a:4.1}/{b:4.1}/{c:4.1} ({count})");
            }
        }
        say!("{line}");
    }
    spread(&names, &runs);
    Ok(())
}

/// The last part of `--split`: how much what was measured and what each
/// model predicted move from run to run, outside the last region.
fn spread(names: &[&str], runs: &[(String, Run)]) {
    let mut keys: Vec<(u64, u64, u32)> = runs
        .iter()
        .flat_map(|(_, r)| r.iter().map(|x| x.0))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    // Each workload's entries, where it lay outside the last region in
    // every run that measured it more than once.
    let each: Vec<Vec<_>> = keys
        .iter()
        .map(|&k| {
            runs.iter()
                .flat_map(|(_, r)| r.iter().filter(move |x| x.0 == k))
                .collect()
        })
        .filter(|v: &Vec<&_>| v.len() > 1 && v.iter().all(|x| !x.1))
        .collect();
    let median_sd = |f: &dyn Fn(&Entry) -> f64| {
        let sds: Vec<f64> = each
            .iter()
            .map(|v| sd(&v.iter().map(|x| f(x)).collect::<Vec<_>>()))
            .collect();
        median(&sds) * 100.0
    };
    let mut line = format!(
        "run to run, outside the last region ({} workloads), median standard deviation of the log, %: measured {:.1}",
        each.len(),
        median_sd(&|x| x.2)
    );
    for (m, model) in names.iter().enumerate() {
        line += &format!(", {model} {:.1}", median_sd(&|x| x.3[m]));
    }
    say!("{line}");
}

/// The standard deviation of `v` (over `v.len()`; not empty).
fn sd(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

/// The parts `--factors` follows: see the module documentation.
const PARTS: [&str; 6] = [
    "level",
    "uniqueBytes",
    "sizeMean",
    "readFrac",
    "seqFrac",
    "processNum",
];

/// One workload's prediction taken apart in one run ([`taken_apart`]):
/// the run's number, the workload's region, the parts and the log of
/// what was measured.
type Taken = (usize, usize, [f64; 6], f64);

/// `--factors`' table by run and region, for model `name`: see the module
/// documentation.
fn by_run(name: &str, each: &BTreeMap<(u64, u64, u32), Vec<Taken>>) {
    // Per run and region, each workload's six parts, whole prediction and
    // measured, less that workload's median over the runs.
    let mut dev: BTreeMap<(usize, usize), Vec<[f64; 8]>> = BTreeMap::new();
    for v in each.values().filter(|v| v.len() > 2) {
        let all = |x: &Taken| {
            let mut a = [0.0; 8];
            a[..6].copy_from_slice(&x.2);
            (a[6], a[7]) = (x.2.iter().sum(), x.3);
            a
        };
        let mid: [f64; 8] =
            std::array::from_fn(|j| median(&v.iter().map(|x| all(x)[j]).collect::<Vec<_>>()));
        for x in v {
            let a = all(x);
            dev.entry((x.0, x.1))
                .or_default()
                .push(std::array::from_fn(|j| a[j] - mid[j]));
        }
    }
    say!("{name}: by run and region, median distance from each workload's median over the runs, log %");
    say!(
        "run region workloads | {} | prediction | measured",
        PARTS.join(" ")
    );
    for ((run, region), ds) in &dev {
        let at = |j: usize| 100.0 * median(&ds.iter().map(|d| d[j]).collect::<Vec<_>>());
        let parts: Vec<String> = (0..6).map(|j| format!("{:+.1}", at(j))).collect();
        say!(
            "{run} {region} {} | {} | {:+.1} | {:+.1}",
            ds.len(),
            parts.join(" "),
            at(6),
            at(7)
        );
    }
}

/// `--factors`: see the module documentation.
fn factors(pairs: &[(String, String)]) -> Result<(), String> {
    let mut reference: Option<Workload> = None;
    let mut names = Vec::new();
    // For each model, each workload's parts in each run: the run, the
    // region, the parts and the log of what was measured.
    let mut parts: Vec<BTreeMap<(u64, u64, u32), Vec<Taken>>> = Vec::new();
    for (run, (profile, validation)) in pairs.iter().enumerate() {
        let (p, v, models, last) = load(profile, validation)?;
        let Some(first) = p.regions.first() else {
            return Err(format!("{profile}: no regions"));
        };
        let r = reference.get_or_insert_with(|| first.focal.clone()).clone();
        names = models.iter().map(|(n, _)| *n).collect();
        parts.resize_with(models.len(), Default::default);
        for x in v.points.iter().filter(|x| x.region != last) {
            let w = &x.workload;
            let key = key(w);
            for (m, (_, model)) in models.iter().enumerate() {
                let at = taken_apart(model.as_ref(), &r, w);
                let taken = (run, x.region, at, x.measured_bytes_per_sec.ln());
                parts[m].entry(key).or_default().push(taken);
            }
        }
    }
    for (name, each) in names.iter().zip(&parts) {
        by_run(name, each);
    }
    say!("run to run, median standard deviation of each part of the log of a prediction, %");
    for (name, each) in names.iter().zip(&parts) {
        let runs: Vec<&Vec<Taken>> = each.values().filter(|v| v.len() > 1).collect();
        let mut line = format!("{name:<6} ({} workloads)", runs.len());
        for (j, part) in PARTS.iter().enumerate() {
            let sds: Vec<f64> = runs
                .iter()
                .map(|v| sd(&v.iter().map(|x| x.2[j]).collect::<Vec<_>>()))
                .collect();
            line += &format!(" {part} {:.1}", median(&sds) * 100.0);
        }
        say!("{line}");
    }
    Ok(())
}

/// `model`'s prediction of `w` taken apart at the reference `r`: the log
/// of the prediction at `r`, how much `w`'s uniqueBytes changes it, and
/// how much each of `w`'s other parameters, set alone there, changes that.
fn taken_apart(model: &dyn Model, r: &Workload, w: &Workload) -> [f64; 6] {
    let ln = |x: &Workload| model.predict(x).predicted_throughput_bytes_per_sec.ln();
    let mut at = r.clone();
    at.unique_bytes = w.unique_bytes;
    let base = ln(&at);
    let with = |set: &dyn Fn(&mut Workload)| {
        let mut x = at.clone();
        set(&mut x);
        ln(&x) - base
    };
    [
        ln(r),
        base - ln(r),
        with(&|x| x.size_mean = w.size_mean),
        with(&|x| x.read_frac = w.read_frac),
        with(&|x| x.seq_frac = w.seq_frac),
        with(&|x| x.process_num = w.process_num),
    ]
}

fn one(profile: &str, validation: &str, flags: Flags) -> Result<(), String> {
    let Flags { points, all, drift } = flags;
    let (_, v, models, last) = load(profile, validation)?;
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
    say!("{line}");
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
            say!("{l}");
        }
    }
    Ok(())
}

/// What to print and how to score.
/// `--steady`: every point of the profiles and every validated workload
/// taken at its steady state where its measurement recorded a transient.
static STEADY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
    STEADY.store(has("--steady"), std::sync::atomic::Ordering::Relaxed);
    let split_runs = has("--split");
    let by_part = has("--factors");
    args.retain(|a| {
        ![
            "--points",
            "--all",
            "--drift",
            "--split",
            "--factors",
            "--steady",
        ]
        .contains(&a.as_str())
    });
    if args.is_empty() || !args.len().is_multiple_of(2) {
        eprintln!(
            "usage: rescore [--points|--all] [--drift] [--steady] [--split|--factors] PROFILE VALIDATION [PROFILE VALIDATION ...]"
        );
        return ExitCode::from(2);
    }
    if split_runs || by_part {
        let pairs: Vec<(String, String)> = args
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect();
        let done = if by_part {
            factors(&pairs)
        } else {
            split(&pairs)
        };
        if let Err(e) = done {
            eprintln!("rescore: {e}");
            return ExitCode::from(2);
        }
        return ExitCode::SUCCESS;
    }
    for pair in args.chunks(2) {
        if let Err(e) = one(&pair[0], &pair[1], flags) {
            eprintln!("rescore: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
