//! `willy anomalies` as a user runs it, on sim:hdd with a 64 MiB cache
//! (examples/sim/hdd-64m.json: even 32 generators' files go past it), with
//! and without Shen's read-ahead bug planted; its figure and page; and its
//! bad input.

use crate::util::*;
use serde_json::Value;

/// Short measurements: 400 samples in about 40 s each run.
const RULE: &[&str] = &[
    "--min-time",
    "1s",
    "--max-time",
    "5s",
    "--warmup-max",
    "10s",
];

/// examples/sim/hdd-64m.json (sim:hdd with a 64 MiB cache), or its twin
/// with the fault planted.
fn system(fault: bool) -> String {
    let name = if fault {
        "hdd-64m-readahead-bug"
    } else {
        "hdd-64m"
    };
    format!(
        "sim:{}/examples/sim/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn anomalies(d: &Dir, fault: bool) -> Value {
    let out = d.join(if fault { "bug.json" } else { "clean.json" });
    run_ok(
        willy()
            .args(["anomalies", "--samples", "400", "--target", &system(fault)])
            .arg("--json")
            .arg(&out)
            .args(RULE),
    );
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// Issue 18's checks 2 and 3 on the 64 MiB system. Without the fault,
/// 4 of 400 samples fall 10% below the model, by 10-14% (at most 5% may).
/// With it, 29 do, and the first cluster is the planted region:
/// buffered, read-ahead on, processNum from 7 (the fault needs more than
/// 8 operations queued; with write-outs a generator can have more than
/// one), 27 anomalies among 30 samples: precision 0.90, recall 0.93.
#[test]
fn the_planted_readahead_bug_is_found_and_the_clean_system_is_not_blamed() {
    let d = Dir::new();
    // The two systems side by side: each run is one thread of simulation.
    let (clean, bug) = std::thread::scope(|s| {
        let clean = s.spawn(|| anomalies(&d, false));
        let bug = anomalies(&d, true);
        (clean.join().unwrap(), bug)
    });
    assert_eq!(clean["kind"], "willy-anomalies");
    assert_eq!(clean["samples"].as_array().unwrap().len(), 400);
    let f = clean["anomalous_fraction"].as_f64().unwrap();
    assert!(f <= 0.05, "clean system: {f} anomalous");

    let first = &bug["clusters"][0];
    let r = &first["ranges"];
    assert_eq!(r["direct"], serde_json::json!([false]), "{first}");
    assert_eq!(r["readahead"], serde_json::json!([true]), "{first}");
    let lo = r["processNum"][0].as_f64().unwrap();
    assert!((6.0..=16.0).contains(&lo), "{first}");
    assert!(first["precision"].as_f64().unwrap() >= 0.9, "{first}");
    assert!(first["recall"].as_f64().unwrap() >= 0.8, "{first}");
    assert!(d.entries(".").iter().all(|e| !e.ends_with(".ckpt")));

    // Drawn: the figure has the clusters' rectangles, the page their sentences.
    run_ok(
        willy()
            .arg("plot")
            .arg(d.join("bug.json"))
            .arg("-o")
            .arg(d.join("plots")),
    );
    let svg = std::fs::read_to_string(d.join("plots/anomalies.svg")).unwrap();
    assert!(svg.matches("<rect").count() >= 6, "a rectangle per panel");
    run_ok(
        willy()
            .arg("report")
            .arg(d.join("bug.json"))
            .arg("-o")
            .arg(d.join("a.html")),
    );
    let html = std::fs::read_to_string(d.join("a.html")).unwrap();
    let sentence = first["description"].as_str().unwrap();
    assert!(html.contains(sentence), "{sentence}");
}

#[test]
fn bad_input_is_one_line_and_no_file() {
    let d = Dir::new();
    for (args, want) in [
        (
            vec!["--samples", "0", "--target", "sim:hdd"],
            "--samples must be at least 1",
        ),
        (
            vec!["--threshold", "1.5", "--target", "sim:hdd"],
            "--threshold must be between 0 and 1",
        ),
        (
            vec!["--expect", "profile", "--target", "sim:hdd"],
            "--expect profile needs --profile",
        ),
        (
            vec!["--target", "sim:raid0"],
            "--expect model covers systems with one disk",
        ),
        (
            vec!["--vary-scheduler", "--target", "sim:hdd"],
            "--vary-scheduler needs a raw block device as --target",
        ),
        (
            vec!["--target", "."],
            "--expect model on a real target needs --cache-limit",
        ),
        (
            vec!["--engines", "psync,uring", "--target", "sim:hdd"],
            "--engines: a simulated system has one engine",
        ),
    ] {
        let o = willy()
            .current_dir(d.path())
            .arg("anomalies")
            .args(&args)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains(want) && e.trim().lines().count() == 1,
            "{args:?}: {e}"
        );
    }
    assert!(d.entries(".").is_empty(), "{:?}", d.entries("."));
}

/// `--expect model` on real files: the model calibrated on them (five
/// short runs, written into the document), samples over O_DIRECT,
/// read-ahead and two engines, each with its expected value.
#[test]
fn the_model_is_calibrated_on_real_files() {
    let d = Dir::new();
    let data = d.join("data");
    std::fs::create_dir(&data).unwrap();
    let out = d.join("a.json");
    let o = run_ok(
        willy()
            .args(["anomalies", "--target"])
            .arg(&data)
            .args(["--cache-limit", "64MiB", "--samples", "3"])
            .args(["--max-processes", "2", "--engines", "psync,uring"])
            .args(["--min-time", "300ms", "--max-time", "1s"])
            .args(["--interval", "50ms", "--warmup-max", "300ms", "--json"])
            .arg(&out),
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["expect"], "model");
    let c = &v["calibration"];
    for f in [
        "random_read_4k_ms",
        "seq_read_mb_per_s",
        "seq_write_mb_per_s",
        "cached_4k_ms",
        "cached_1m_ms",
    ] {
        assert!(c[f].as_f64().unwrap() > 0.0, "{f}: {c}");
    }
    assert_eq!(c["cache_bytes"], 64 << 20);
    assert!(
        stderr(&o).contains("willy: the model: host"),
        "{}",
        stderr(&o)
    );
    let engines = v["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "engine")
        .expect("engine is a dimension");
    assert_eq!(engines["values"], serde_json::json!(["psync", "uring"]));
    for s in v["samples"].as_array().unwrap() {
        assert!(s["expected_bytes_per_sec"].as_f64().unwrap() > 0.0, "{s}");
        let u = s["workload"]["uniqueBytes"].as_u64().unwrap();
        assert!((16 << 20..=512 << 20).contains(&u), "{u}");
    }
    assert!(d.entries("data").is_empty(), "{:?}", d.entries("data"));
    assert!(!d.join("a.json.ckpt.calibration").exists());
}
