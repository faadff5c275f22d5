//! Prediction is pure computation: predictions per second, and the time to
//! render every figure of a profile. Two profiles: the checked-in
//! sim:sparc1990 one (docs/figures/make-sim.sh, an early profile version
//! without the points most of the `willy` model's steps use), and one of
//! this machine's (docs/runs/2026-11-26m, real files under a 1 GiB
//! cgroup), on which every step of the `willy` model has its points; and
//! for the rate of the `willy` model alone, sim:ssd's (benches/data,
//! `bash benches/validate_presets.sh` at 8dd3158), whose LRU-like cache
//! takes its last region's workloads through step 22's classes, a
//! bisection in every step of their fixed point; and sim:raid0's (the
//! same run), whose calibration takes the device's busy time per byte
//! (step 25) since it weighs the processNum points by their precision
//! (step 26).
//!
//! cargo bench -p willy-predict --bench predict

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use willy_predict::predict::Predictor;
use willy_predict::profile::Profile;
use willy_predict::validate::{random_workloads, ValidationReport};

/// Read at run time: the documents live outside this crate.
fn doc(path: &str) -> String {
    let p = format!("{}/../../docs/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// 1000 random workloads of `p`'s ranges, predicted by each model.
fn predictions(c: &mut Criterion, group: &str, p: &Profile) {
    let pred = Predictor::new(p).expect("usable");
    let ws = random_workloads(&p.ranges, 1000, 1, 4096);
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(ws.len() as u64));
    g.bench_function("1000 random workloads", |b| {
        b.iter(|| {
            for w in &ws {
                black_box(pred.predict(black_box(w)));
            }
        })
    });
    let willy = willy_predict::model("willy", p).expect("usable");
    g.bench_function("1000 random workloads, willy model", |b| {
        b.iter(|| {
            for w in &ws {
                black_box(willy.predict(black_box(w)));
            }
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let sim = doc("figures/sim-sparc1990/profile.json");
    let p = Profile::from_json(&sim).expect("the checked-in profile parses");
    predictions(c, "predict", &p);
    let real = doc("runs/2026-11-26m/1g-psync-profile.json");
    let r = Profile::from_json(&real).expect("the checked-in profile parses");
    predictions(c, "predict on this machine's profile", &r);
    for preset in ["ssd", "raid0"] {
        let path = format!(
            "{}/benches/data/{preset}-profile.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let s = Profile::from_json(&text).expect("the checked-in profile parses");
        predictions(c, &format!("predict on sim:{preset}'s profile"), &s);
    }
    let v: ValidationReport =
        serde_json::from_str(&doc("figures/sim-sparc1990/validation.json")).expect("parses");
    let mut g = c.benchmark_group("plot");
    g.sample_size(20);
    g.bench_function("every figure of a profile and its validation", |b| {
        b.iter(|| {
            let mut f = willy_predict::plot::profile_figures(&p).unwrap();
            f.extend(willy_predict::plot::validation_figures(&v).unwrap());
            black_box(f)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
