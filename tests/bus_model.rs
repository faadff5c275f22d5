//! `willy bus-model`: Barve's model from a simulated bus, from a probe and
//! from parameters by hand; the simulated bus beside it; its figure.

use crate::util::*;
use serde_json::Value;

fn read(p: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The model and the simulated Cheetah bus side by side, drawn; the same
/// parameters given by hand give the same model.
#[test]
fn the_model_beside_the_simulated_bus_and_by_hand() {
    let d = Dir::new();
    let out = d.join("bus.json");
    run_ok(
        willy()
            .args(["bus-model", "--target", "sim:cheetah-bus", "--measure"])
            .args([
                "--disks",
                "1,4",
                "--sizes",
                "64KiB,128KiB",
                "--seconds",
                "5",
                "--json",
                out.to_str().unwrap(),
            ]),
    );
    let v = read(&out);
    assert_eq!(v["kind"], "willy-bus");
    assert_eq!(v["arbitration"], "disk-first");
    let pts = v["points"].as_array().unwrap();
    assert_eq!(pts.len(), 4);
    for p in pts {
        let e = p["error"].as_f64().unwrap();
        assert!(e.abs() < 0.12, "{p}");
        let (d, b) = (
            p["disks"].as_f64().unwrap(),
            p["block_bytes"].as_f64().unwrap(),
        );
        let (rd, t) = (
            p["model_read_duration_ms"].as_f64().unwrap(),
            p["model_throughput_bytes_per_sec"].as_f64().unwrap(),
        );
        assert!((d * b / (rd / 1e3) / t - 1.0).abs() < 1e-9);
        assert_eq!(p["equation"], if d == 1.0 { 1 } else { 3 });
    }
    let figs = d.join("figs");
    run_ok(willy().args([
        "plot",
        out.to_str().unwrap(),
        "--out",
        figs.to_str().unwrap(),
    ]));
    assert!(std::fs::read_to_string(figs.join("bus.svg"))
        .unwrap()
        .contains("<svg"));
    let html = d.join("r.html");
    run_ok(willy().args([
        "report",
        out.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]));
    assert!(std::fs::read_to_string(&html).unwrap().contains("Barve"));
    // The parameters by hand: the same read durations.
    let params = d.write("p.json", &v["parameters"].to_string());
    let again = d.join("again.json");
    run_ok(
        willy()
            .args(["bus-model", "--params", params.to_str().unwrap()])
            .args([
                "--disks",
                "1,4",
                "--sizes",
                "64KiB,128KiB",
                "--json",
                again.to_str().unwrap(),
            ]),
    );
    let w = read(&again);
    for (p, q) in pts.iter().zip(w["points"].as_array().unwrap()) {
        assert_eq!(p["model_read_duration_ms"], q["model_read_duration_ms"]);
        assert!(q.get("measured_throughput_bytes_per_sec").is_none());
    }
}

/// From a probe of Lachesis' disk: the probe's revolution, track and seek
/// curve become the model's (the mean seek within 5% of the preset's
/// 4.5 ms: eq. 11 at one disk over the probe's fitted curve).
#[test]
fn the_model_from_a_probe() {
    let d = Dir::new();
    let probe = d.join("probe.json");
    run_ok(
        willy()
            .args([
                "probe",
                "--target",
                "sim:atlas10k3",
                "--only",
                "seek,rotation,boundaries",
            ])
            .args(["--json", probe.to_str().unwrap()]),
    );
    let out = d.join("bus.json");
    run_ok(
        willy()
            .args(["bus-model", "--probe", probe.to_str().unwrap()])
            .args([
                "--bus-mb-per-s",
                "40",
                "--overhead-ms",
                "0.3",
                "--disks",
                "1",
                "--sizes",
                "4KiB",
                "--json",
                out.to_str().unwrap(),
            ]),
    );
    let v = read(&out);
    let p = &v["parameters"];
    assert!(
        (p["revolution_ms"].as_f64().unwrap() / 6.0 - 1.0).abs() < 0.01,
        "{p}"
    );
    assert_eq!(p["track_bytes"].as_f64().unwrap(), 686.0 * 512.0);
    // One 4 KiB read: overhead + mean seek + half a revolution + 8 sectors
    // + the switches' share; so the mean seek is what is left.
    let rd = v["points"][0]["model_read_duration_ms"].as_f64().unwrap();
    let rest = 0.3 + 3.0 + 4096.0 / p["rot_mb_per_s"].as_f64().unwrap() / 1e3;
    let seek = rd - rest - 0.6 * 4096.0 / (686.0 * 512.0);
    assert!((seek / 4.5 - 1.0).abs() < 0.05, "mean seek {seek:.3} ms");
}

#[test]
fn bus_model_bad_input() {
    let d = Dir::new();
    let bad = d.write("bad.json", r#"{"overhead_ms": 1}"#);
    let cases: &[(&[&str], &str)] = &[
        (&["bus-model"], "say what to model"),
        (
            &["bus-model", "--target", "sim:hdd"],
            "not a bus of independent disks",
        ),
        (
            &["bus-model", "--target", "/dev/sda"],
            "bus-model models a simulated bus",
        ),
        (
            &["bus-model", "--params", bad.to_str().unwrap()],
            "missing field",
        ),
        (
            &["bus-model", "--params", bad.to_str().unwrap(), "--measure"],
            "missing field",
        ),
        (
            &["bus-model", "--target", "sim:cheetah-bus", "--disks", "0"],
            "--disks",
        ),
        (
            &["bus-model", "--target", "sim:cheetah-bus", "--seconds", "0"],
            "--seconds",
        ),
    ];
    for (args, needle) in cases {
        assert_usage_error(&willy().args(*args).output().unwrap(), needle);
    }
}
