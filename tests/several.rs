//! `willy run` on several targets at once (issue 16's contract): the
//! generators spread over the targets, per-target figures in `targets`,
//! their totals at the top, the targets joined in `target`, and Barve's
//! `rounds_kept`.

use crate::util::*;
use serde_json::Value;

/// The contract's fields, and that the totals are the targets' sums.
fn check_totals(v: &Value, targets: &[&str]) {
    assert_eq!(v["target"], targets.join(","));
    let ts = v["targets"].as_array().expect("targets");
    assert_eq!(ts.len(), targets.len());
    for (t, name) in ts.iter().zip(targets) {
        assert_eq!(t["target"], *name);
        assert!(t["throughput_bytes_per_sec"].as_f64().unwrap() > 0.0);
    }
    let sum = |k: &str| ts.iter().map(|t| t[k].as_f64().unwrap()).sum::<f64>();
    for k in [
        "throughput_bytes_per_sec",
        "iops",
        "requests",
        "bytes_transferred",
    ] {
        let (total, parts) = (v[k].as_f64().unwrap(), sum(k));
        assert!(
            (total / parts - 1.0).abs() < 1e-9,
            "{k}: {total} vs {parts}"
        );
    }
    let kept = v["rounds_kept"].as_f64().expect("rounds_kept");
    assert!((0.0..=1.0).contains(&kept), "{kept}");
    let procs: u64 = ts
        .iter()
        .map(|t| t["workload"]["processNum"].as_u64().unwrap())
        .sum();
    assert_eq!(procs, v["workload"]["processNum"].as_u64().unwrap());
}

#[test]
fn two_disks_of_a_simulated_bus_in_rounds() {
    let d = Dir::new();
    let targets = ["sim:cheetah-bus:0", "sim:cheetah-bus:1"];
    let out = d.join("o.json");
    run_ok(willy().args([
        "run",
        "--target",
        targets[0],
        "--target",
        targets[1],
        "--unique-bytes",
        "2GiB",
        "--size-mean",
        "128KiB",
        "--block-size",
        "128KiB",
        "--read-frac",
        "1",
        "--seq-frac",
        "0",
        "--process-num",
        "2",
        "--min-time",
        "5s",
        "--max-time",
        "10s",
        "--interval",
        "500ms",
        "--warmup-max",
        "2s",
        "--json",
        out.to_str().unwrap(),
    ]));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    check_totals(&v, &targets);
    // Disk-first arbitration with the bus the bottleneck: rounds.
    assert!(
        v["rounds_kept"].as_f64().unwrap() > 0.9,
        "{}",
        v["rounds_kept"]
    );
    assert_eq!(v["simulated"], true);
}

#[test]
fn two_directories_at_once_and_their_files_removed() {
    let (a, b) = (Dir::new(), Dir::new());
    let (pa, pb) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
    let out = a.join("o.json");
    let v = quick_json(
        willy().args([
            "run",
            "--target",
            pa,
            "--target",
            pb,
            "--unique-bytes",
            "8MiB",
            "--process-num",
            "3",
        ]),
        &out,
    );
    check_totals(&v, &[pa, pb]);
    // Three generators: two on the first target, one on the second.
    assert_eq!(v["targets"][0]["workload"]["processNum"], 2);
    assert_eq!(v["targets"][1]["workload"]["processNum"], 1);
    assert_eq!(a.entries(""), vec!["o.json".to_string()]);
    assert!(b.entries("").is_empty(), "{:?}", b.entries(""));
}

#[test]
fn several_targets_refuse_what_they_cannot_do() {
    let d = Dir::new();
    let p = d.path().to_str().unwrap();
    let run = |args: &[&str]| willy().arg("run").args(args).output().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--target",
                "sim:cheetah-bus:0",
                "--target",
                "sim:cheetah-bus:1",
                "--process-num",
                "1",
            ],
            "cannot be spread over 2 targets",
        ),
        (
            &[
                "--target",
                "sim:cheetah-bus:0",
                "--target",
                p,
                "--process-num",
                "2",
            ],
            "all simulated",
        ),
        (
            &[
                "--target",
                "sim:hdd",
                "--target",
                "sim:cheetah-bus:1",
                "--process-num",
                "2",
            ],
            "disks of one bus",
        ),
        (
            &[
                "--target",
                "sim:cheetah-bus:1",
                "--target",
                "sim:cheetah-bus:1",
                "--process-num",
                "2",
            ],
            "given twice",
        ),
        (
            &["--target", p, "--target", p, "--scale"],
            "--scale runs on one target",
        ),
        (
            &[
                "--target",
                "sim:cheetah-bus:0",
                "--target",
                "sim:cheetah-bus:9",
                "--process-num",
                "2",
            ],
            "the bus has 4 disks",
        ),
    ];
    for (args, needle) in cases {
        assert_usage_error(&run(args), needle);
    }
}
